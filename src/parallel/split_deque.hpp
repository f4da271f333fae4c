// A Lace-style split deque of nodes, owned by one thread and robbed by others.
//
// Positions are 32-bit counters that only the owner's pushes/pops and the
// thieves' claims move; slot = position & mask in a power-of-two ring.
//
//      shallow end                                        deep end
//      top ............. split ................ bottom
//      [ shared: thieves claim here ][ private: owner only ]
//
// `word_` packs top (high 32 bits) and split (low 32 bits), so a thief's claim
// (one CAS that advances top) fails if the owner moved the split meanwhile.
//
// Why it is safe (each point is exercised by tests/unit/test_split_deque.cpp
// and model-checked in tests/model/split_deque.pml):
//
// 1. The owner's private part [split, bottom) is touched with plain loads and
//    stores only. Thieves never read it: a claim takes k <= split - top nodes
//    from top, validated by the CAS against the current (top, split).
// 2. Sharing writes the nodes first, then moves split up with a release CAS;
//    a thief's acquire CAS (and its later acquire load of the ring pointer)
//    therefore sees the node contents it claims.
// 3. Reclaiming moves split down with one CAS: the locked instruction publishes
//    the new split, is a full fence, and re-reads top atomically, which is the
//    fence-and-re-read settlement in one step. If thieves claimed meanwhile the
//    CAS fails and the owner retries with the fresh top; when top == split
//    everything was stolen and the owner knows it for certain.
// 4. Claim-then-copy makes ABA on the word harmless: a stale CAS can only
//    succeed when the word equals (top, split) *now*, and then it claims
//    [top, top+k) of the current shared part, whose contents are current.
// 5. A claimed slot must not be overwritten while its thief still copies it.
//    The owner writes only positions >= split >= top, so only a ring
//    wrap-around could alias a claimed slot. Thieves bracket claim-and-copy
//    with increments of `copying_`; the owner extends its safe write window
//    (`safe_end_`) to top + capacity only after reading top and then seeing
//    copying_ == 0 (seq_cst on both sides, a Dekker pairing). Any copy still
//    running would have its increment ordered before that read; any later one
//    claims positions >= that top. Otherwise the owner grows the ring instead.
// 6. Growth copies the whole write window [window_start, bottom) into a
//    larger ring and publishes it with a release store. A thief that claimed
//    before the growth may load either ring: the old one is retired, never
//    freed while the deque lives, and never written again; the new one holds
//    every position the thief can have claimed, because claimed-but-unread
//    positions are >= window_start (the window is only extended while no copy
//    is in flight). Copying just [top, bottom) would lose them: the spin
//    model in tests/model found exactly that interleaving.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "parallel/policy.hpp"
#include "tree/node.hpp"

namespace uts {

inline constexpr std::size_t kCacheLine = 64;

class SplitDeque {
 public:
  // Construct on the owning thread: the ring is first written here, so
  // first-touch places it on the owner's NUMA node.
  explicit SplitDeque(std::uint32_t initial_capacity = 1u << 10);
  ~SplitDeque();
  SplitDeque(const SplitDeque&) = delete;
  SplitDeque& operator=(const SplitDeque&) = delete;

  // ---- owner only ----------------------------------------------------------

  void push(const Node& node) {
    if (bottom_ == safe_end_) make_room();
    ring_->slots[bottom_ & ring_->mask] = node;
    ++bottom_;
  }

  // Deepest private node; reclaims half of the shared part when the private
  // part is empty. false: the deque is empty (everything was taken).
  bool pop(Node& out) {
    if (bottom_ != split_) {
      --bottom_;
      out = ring_->slots[bottom_ & ring_->mask];
      return true;
    }
    return reclaim_and_pop(out);
  }

  // relaxed: a hint; a missed request is seen at the next pop.
  bool share_requested() const { return request_.flag.load(std::memory_order_relaxed); }

  // Answer a thief's request: the shallowest half of the private part becomes
  // shared. Keeps the request pending while fewer than 2 nodes are private.
  void share();

  std::uint32_t private_size() const { return bottom_ - split_; }
  std::uint64_t shares() const { return shares_; }
  std::uint64_t reclaims() const { return reclaims_; }
  std::uint32_t capacity() const { return ring_->mask + 1; }

  // ---- any thread ----------------------------------------------------------

  // Nodes shared right now (a snapshot; may be stale by the time it is used).
  std::uint32_t shared_size() const {
    // relaxed: only steers victim choice; the claim CAS re-validates.
    return shared_of(thief_.word.load(std::memory_order_relaxed));
  }

  void request_share() {
    // relaxed, and read before write so idle thieves polling a victim do not
    // keep pulling its cache line into exclusive state.
    if (!request_.flag.load(std::memory_order_relaxed)) request_.flag.store(true, std::memory_order_relaxed);
  }

  // Claim nodes from the shallow end by the policy and hand each to `receive`
  // (the thief's own push). Returns how many were taken (0: none shared, or
  // the policy's minimum not met, or lost every race).
  template <class Receive>
  std::uint32_t steal(const StealPolicy& policy, Receive&& receive);

 private:
  struct Ring {
    std::uint32_t mask;
    Node* slots;
  };

  static std::uint32_t top_of(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }
  static std::uint32_t split_of(std::uint64_t w) { return static_cast<std::uint32_t>(w); }
  static std::uint64_t pack(std::uint32_t top, std::uint32_t split) {
    return (std::uint64_t{top} << 32) | split;
  }
  static std::uint32_t shared_of(std::uint64_t w) {
    const auto n = static_cast<std::int32_t>(split_of(w) - top_of(w));
    return n > 0 ? static_cast<std::uint32_t>(n) : 0u;
  }

  static Ring* new_ring(std::uint32_t capacity);
  void make_room();
  bool reclaim_and_pop(Node& out);

  // Thieves' line: written by every claim.
  struct alignas(kCacheLine) ThiefLine {
    std::atomic<std::uint64_t> word{0};       // top:32 | split:32
    std::atomic<std::uint32_t> copying{0};    // thieves between claim and end of copy
    std::atomic<Ring*> ring{nullptr};         // current ring, for thieves
  } thief_;
  // Request flag on its own line: the owner reads it at every node.
  struct alignas(kCacheLine) RequestLine {
    std::atomic<bool> flag{false};
  } request_;
  // Owner's line(s): plain fields, never touched by thieves.
  alignas(kCacheLine) Ring* ring_ = nullptr;
  std::uint32_t bottom_ = 0;
  std::uint32_t split_ = 0;     // the owner's exact copy: only the owner moves split
  std::uint32_t window_start_ = 0;  // top when the write window was last set
  std::uint32_t safe_end_ = 0;      // window_start_ + capacity: writable without checks
  std::uint64_t shares_ = 0;
  std::uint64_t reclaims_ = 0;
  std::vector<Ring*> retired_;
};

template <class Receive>
std::uint32_t SplitDeque::steal(const StealPolicy& policy, Receive&& receive) {
  // seq_cst: pairs with the owner's seq_cst loads of top then copying_ in
  // make_room (point 5 above).
  thief_.copying.fetch_add(1, std::memory_order_seq_cst);
  std::uint64_t w = thief_.word.load(std::memory_order_acquire);  // acquire: see shared nodes
  std::uint32_t taken = 0;
  for (;;) {
    const std::uint32_t k = policy.claim_size(shared_of(w));
    if (k == 0) break;
    const std::uint32_t top = top_of(w);
    // seq_cst on success: acquire for the node contents (point 2) and a place
    // in the single total order for point 5. On failure w is reloaded
    // (acquire) and the claim is recomputed against the fresh word.
    if (thief_.word.compare_exchange_strong(w, pack(top + k, split_of(w)), std::memory_order_seq_cst,
                                            std::memory_order_acquire)) {
      // acquire: a ring published by a growth that preceded the share we
      // synchronised with; an older ring still holds these nodes unchanged.
      const Ring* ring = thief_.ring.load(std::memory_order_acquire);
      for (std::uint32_t i = 0; i < k; ++i) receive(ring->slots[(top + i) & ring->mask]);
      taken = k;
      break;
    }
  }
  // seq_cst: the owner's copying_ load that reads 0 must order our copy's reads
  // before its later writes (release part) within the total order of point 5.
  thief_.copying.fetch_sub(1, std::memory_order_seq_cst);
  return taken;
}

}  // namespace uts
