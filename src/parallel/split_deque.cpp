#include "parallel/split_deque.hpp"

#include <bit>
#include <new>

namespace uts {

namespace {
constexpr int kCopyWaitSpins = 256;
}

SplitDeque::Ring* SplitDeque::new_ring(std::uint32_t capacity) {
  auto* ring = new Ring;
  ring->mask = capacity - 1;
  ring->slots = static_cast<Node*>(::operator new(sizeof(Node) * capacity, std::align_val_t{kCacheLine}));
  // Touch every page now, on the calling (owning) thread.
  for (std::uint32_t i = 0; i < capacity; ++i) new (&ring->slots[i]) Node{};
  return ring;
}

SplitDeque::SplitDeque(std::uint32_t initial_capacity) {
  const std::uint32_t capacity = std::bit_ceil(initial_capacity < 2 ? 2u : initial_capacity);
  ring_ = new_ring(capacity);
  safe_end_ = capacity;  // nothing has been claimed yet, so no slot can alias
  // release: thieves that load the ring pointer see an initialised ring.
  thief_.ring.store(ring_, std::memory_order_release);
}

SplitDeque::~SplitDeque() {
  retired_.push_back(ring_);
  for (Ring* r : retired_) {
    ::operator delete(r->slots, std::align_val_t{kCacheLine});
    delete r;
  }
}

void SplitDeque::make_room() {
  // seq_cst load of top, then seq_cst load of copying_: point 5 of the header.
  const std::uint32_t top = top_of(thief_.word.load(std::memory_order_seq_cst));
  const std::uint32_t live = bottom_ - top;
  const std::uint32_t capacity = ring_->mask + 1;
  if (live < capacity / 2) {
    // A copy takes a few dozen nanoseconds: wait briefly for in-flight ones
    // rather than grow; a thief preempted mid-copy makes us grow instead.
    for (int spin = 0; spin < kCopyWaitSpins; ++spin) {
      if (thief_.copying.load(std::memory_order_seq_cst) == 0) {
        window_start_ = top;
        safe_end_ = top + capacity;
        return;
      }
    }
  }
  // Grow. Copy the whole window [window_start, bottom), not just [top,
  // bottom): a thief may have claimed positions below top and not yet read
  // them, and if it then loads the new ring it must find them there. Such
  // positions are >= window_start, because the window was last extended when
  // no copy was in flight (point 6; found by the spin model).
  std::uint32_t new_capacity = capacity * 2;
  // bottom - window_start <= capacity < new_capacity, so the window fits.
  while (live >= new_capacity / 2) new_capacity *= 2;
  Ring* grown = new_ring(new_capacity);
  for (std::uint32_t p = window_start_; p != bottom_; ++p)
    grown->slots[p & grown->mask] = ring_->slots[p & ring_->mask];
  retired_.push_back(ring_);
  ring_ = grown;
  // release: a thief that reads this pointer also sees the copied nodes.
  thief_.ring.store(grown, std::memory_order_release);
  // In-flight copies read positions >= window_start, so the new ring's
  // window starts there too.
  safe_end_ = window_start_ + new_capacity;
}

void SplitDeque::share() {
  const std::uint32_t priv = bottom_ - split_;
  if (priv < 2) return;  // keep the request pending until there is a half to give
  const std::uint32_t new_split = split_ + priv / 2;
  // relaxed initial read: the CAS below validates it.
  std::uint64_t w = thief_.word.load(std::memory_order_relaxed);
  // release: publishes the node contents of [split, new_split) to claimers.
  while (!thief_.word.compare_exchange_weak(w, pack(top_of(w), new_split), std::memory_order_release,
                                            std::memory_order_relaxed)) {
  }
  split_ = new_split;
  ++shares_;
  // relaxed: the flag carries no data; a thief re-raises it if still hungry.
  request_.flag.store(false, std::memory_order_relaxed);
}

bool SplitDeque::reclaim_and_pop(Node& out) {
  // acquire: pairs with nothing the owner needs (thieves never write slots),
  // but keeps the reasoning uniform; the CAS below is what settles races.
  std::uint64_t w = thief_.word.load(std::memory_order_acquire);
  for (;;) {
    const std::uint32_t shared = shared_of(w);
    if (shared == 0) {
      // Everything shared was claimed: the deque is empty, with certainty,
      // because split_ == bottom_ and top == split in the word just read.
      return false;
    }
    const std::uint32_t take = shared - shared / 2;  // the deeper ceil(n/2) come back
    const std::uint32_t new_split = split_ - take;
    // seq_cst: publish the lower split, full fence, and re-read top, in one
    // locked instruction (the settlement of point 3).
    if (thief_.word.compare_exchange_strong(w, pack(top_of(w), new_split), std::memory_order_seq_cst,
                                            std::memory_order_acquire)) {
      split_ = new_split;
      ++reclaims_;
      --bottom_;
      out = ring_->slots[bottom_ & ring_->mask];
      return true;
    }
  }
}

}  // namespace uts
