// The split deque's out-of-line operations (split_deque.hpp, whose
// numbered points the comments cite): rings and growth, checkpoints,
// share, reclaim and take_shallowest.
#include "steal/protocols/split/split_deque.hpp"

#include <bit>
#include <new>
#include <stdexcept>
#include <thread>

namespace uts {

SplitDeque::Ring* SplitDeque::new_ring(std::uint32_t capacity) {
  auto* ring = new Ring;
  ring->mask = capacity - 1;
  ring->slots =
      static_cast<PackedNode*>(::operator new(sizeof(PackedNode) * capacity, std::align_val_t{kCacheLine}));
  // Touch every page now, on the calling (owning) thread.
  for (std::uint32_t i = 0; i < capacity; ++i) new (&ring->slots[i]) PackedNode{};
  return ring;
}

void SplitDeque::free_ring(Ring* ring) {
  ::operator delete(ring->slots, std::align_val_t{kCacheLine});
  delete ring;
}

SplitDeque::SplitDeque(std::span<ThiefRecord> thieves, Options options)
    : checkpoint_interval_(options.checkpoint_interval < 1 ? 1 : options.checkpoint_interval),
      thieves_(thieves) {
  std::uint32_t capacity = std::bit_ceil(options.initial_capacity < 2 ? 2u : options.initial_capacity);
  if (capacity > kMaxCapacity) capacity = kMaxCapacity;
  ring_ = new_ring(capacity);
  slots_ = ring_->slots;
  mask_ = ring_->mask;
  bottom_ = split_ = options.start_position;
  safe_end_ = bottom_ + capacity;
  next_checkpoint_ = split_ + checkpoint_interval_;
  // relaxed: the deque is handed to other threads through a barrier or a
  // release store, which publishes these initial values.
  thief_.word.store(pack(bottom_, split_), std::memory_order_relaxed);
  // release: thieves that load the ring pointer see an initialised ring.
  thief_.ring.store(ring_, std::memory_order_release);
}

SplitDeque::~SplitDeque() {
  // Destroyed after every thread has left the run: no thief can read a ring.
  for (Ring* r : retired_) free_ring(r);
  free_ring(ring_);
}

std::size_t SplitDeque::ring_bytes() const {
  std::size_t bytes = std::size_t{capacity()} * sizeof(PackedNode);
  for (const Ring* r : retired_) bytes += (std::size_t{r->mask} + 1) * sizeof(PackedNode);
  return bytes;
}

void SplitDeque::make_room(std::uint32_t needed) {
  // acquire: pairs with the release CAS of every claim, so the copies thieves
  // made of slots below this top happen-before we overwrite them (point 3).
  const std::uint32_t top = top_of(thief_.word.load(std::memory_order_acquire));
  const std::uint32_t capacity = ring_->mask + 1;
  const std::uint64_t live = bottom_ - top;
  if (live + needed <= capacity) {
    // Reuse the ring: positions below top were claimed and copied.
    safe_end_ = top + capacity;
    return;
  }
  grow(top, needed);
}

void SplitDeque::grow(std::uint32_t top, std::uint32_t needed) {
  const std::uint64_t live = bottom_ - top;
  std::uint64_t new_capacity = std::uint64_t{ring_->mask + 1} * 2;
  while (new_capacity < live + needed) new_capacity *= 2;
  if (new_capacity > kMaxCapacity)
    throw std::length_error("a deque would need more than 2^30 slots (" + std::to_string(live) + " live nodes)");
  Ring* grown = new_ring(static_cast<std::uint32_t>(new_capacity));
  // [top, bottom): everything live, shared and private. A thief that loads
  // the new ring finds every position it can still claim (point 4).
  // Atomic reads: a thief may be reading the same words speculatively, and
  // std::atomic_ref wants every concurrent access to go through one.
  for (std::uint32_t p = top; p != bottom_; ++p) store_slot(grown, p, load_slot(ring_, p));
  retired_.push_back(ring_);
  ring_ = grown;
  slots_ = grown->slots;
  mask_ = grown->mask;
  // seq_cst: release for the copied contents, and publish-then-scan for the
  // hazard pointers (point 4).
  thief_.ring.store(grown, std::memory_order_seq_cst);
  safe_end_ = top + static_cast<std::uint32_t>(new_capacity);
  free_unreferenced_rings();
}

void SplitDeque::free_unreferenced_rings() {
  std::size_t kept = 0;
  for (Ring* r : retired_) {
    bool referenced = false;
    for (const ThiefRecord& t : thieves_) {
      // seq_cst: the scan half of publish-then-scan (point 4).
      if (t.hazard.load(std::memory_order_seq_cst) == r) {
        referenced = true;
        break;
      }
    }
    if (referenced) retired_[kept++] = r;
    else free_ring(r);
  }
  retired_.resize(kept);
}

void SplitDeque::pass_checkpoint() {
  // Point 6: wait until every steal attempt in progress now has ended.
  bool waited = false;
  for (ThiefRecord& t : thieves_) {
    // seq_cst: an attempt that began before this load is seen as odd; one
    // that begins after it loads a word with the current split.
    const std::uint64_t a = t.attempt.load(std::memory_order_seq_cst);
    if ((a & 1) == 0) continue;
    // acquire: the attempt's end; nothing is read after it but the counter.
    while (t.attempt.load(std::memory_order_acquire) == a) {
      waited = true;
      std::this_thread::yield();
    }
  }
  if (waited) ++checkpoint_waits_;
  next_checkpoint_ += checkpoint_interval_;
}

void SplitDeque::share() {
  const std::uint32_t priv = bottom_ - split_;
  if (priv < 2) return;  // keep the request pending until there is a half to give
  move_split(priv / 2);
}

void SplitDeque::share_all() {
  const std::uint32_t priv = bottom_ - split_;
  if (priv > 0) move_split(priv);
}

void SplitDeque::pass_checkpoints(std::uint32_t new_split) {
  // Wrap-safe "new_split passes next_checkpoint_": split is never more than
  // one interval before the checkpoint.
  while (new_split - (next_checkpoint_ - checkpoint_interval_) >= checkpoint_interval_) pass_checkpoint();
}

void SplitDeque::move_split(std::uint32_t give) {
  const std::uint32_t new_split = split_ + give;
  pass_checkpoints(new_split);
  // relaxed initial read: the CAS below validates it.
  std::uint64_t w = thief_.word.load(std::memory_order_relaxed);
  // seq_cst: release publishes the contents of [split, new_split) (point 3);
  // the total order places the new split before later checkpoint scans (point 6).
  while (!thief_.word.compare_exchange_weak(w, pack(top_of(w), new_split), std::memory_order_seq_cst,
                                            std::memory_order_relaxed)) {
  }
  split_ = new_split;
  ++shares_;
  nodes_shared_ += give;
  // relaxed: the flag carries no data; a thief re-raises it if still hungry.
  request_.flag.store(false, std::memory_order_relaxed);
}

std::uint32_t SplitDeque::take_shallowest(std::uint32_t k, Node* out) {
  // acquire: as in reclaim_and_pop, claims' releases before our reuse of slots.
  std::uint64_t w = thief_.word.load(std::memory_order_acquire);
  for (;;) {
    const std::uint32_t top = top_of(w), shared = shared_of(w);
    const std::uint32_t held = shared + (bottom_ - split_);
    const std::uint32_t n = k < held ? k : held;
    if (n == 0) return 0;
    // Private nodes only once every shared one goes (point 7). A retry after
    // a thief's claim only raises it: split never has to go back.
    const std::uint32_t from_private = n > shared ? n - shared : 0;
    const std::uint32_t new_split = split_ + from_private;
    pass_checkpoints(new_split);
    // Atomic reads: stale thieves may be copying the shared slots right now.
    for (std::uint32_t i = 0; i < n; ++i) out[i] = load_slot(ring_, top + i);
    // seq_cst on success: release orders our reads before the slots' reuse
    // (point 3), and a raised split takes its place in the total order of
    // the checkpoint argument (point 6), as in move_split. acquire on
    // failure: w is fresh (a thief claimed) and we retry.
    if (thief_.word.compare_exchange_strong(w, pack(top + n, new_split), std::memory_order_seq_cst,
                                            std::memory_order_acquire)) {
      split_ = new_split;
      if (n > from_private) {  // shared nodes taken back by their owner
        ++reclaims_;
        nodes_reclaimed_ += n - from_private;
      }
      return n;
    }
  }
}

bool SplitDeque::reclaim_and_pop(Node& out) {
  // acquire: the shared nodes were written by this thread, but a claim's
  // release must precede our reuse of slots below the new top (point 3).
  std::uint64_t w = thief_.word.load(std::memory_order_acquire);
  for (;;) {
    const std::uint32_t shared = shared_of(w);
    if (shared == 0) return false;  // point 5: empty for certain
    const std::uint32_t top = top_of(w);
    // acq_rel: the same claim a thief makes (point 5); acquire as above.
    // On failure (acquire) w is fresh and we retry.
    if (thief_.word.compare_exchange_strong(w, pack(split_, split_), std::memory_order_acq_rel,
                                            std::memory_order_acquire)) {
      // We own positions [top, split) now. Read them before pushing: room
      // for the copies may reuse or replace their ring.
      scratch_.resize(shared);
      // Atomic reads: stale thieves may still be copying these slots.
      for (std::uint32_t i = 0; i < shared; ++i) scratch_[i] = load_slot(ring_, top + i);
      ensure_room(shared);
      for (std::uint32_t i = 0; i < shared; ++i) store_slot(ring_, bottom_ + i, scratch_[i]);
      bottom_ += shared;
      ++reclaims_;
      nodes_reclaimed_ += shared;
      --bottom_;
      out = load_slot(ring_, bottom_);  // just written above: cold path, keep it atomic
      return true;
    }
  }
}

}  // namespace uts
