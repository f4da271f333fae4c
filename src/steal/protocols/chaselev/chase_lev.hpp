// Protocol `chaselev`: the Chase-Lev dynamic circular work-stealing deque
// (SPAA 2005) with the C11 memory orders of Le, Pop, Cohen and Zappa Nardelli,
// "Correct and Efficient Work-Stealing for Weak Memory Models" (PPoPP 2013),
// Figure 1. The owner pushes and takes at the bottom; a thief steals the
// single top (oldest, shallowest) node by CAS on top.
//
// Indices are 64-bit and only grow (top only increases; bottom moves both
// ways but never below top), so they never wrap and the CAS on top has no ABA.
//
// Why it is safe (the paper proves these orders correct for C11; the model
// tests/model/chaselev.pml checks the algorithm, with mutants):
//  - push: the node is written, then bottom is published with release; a
//    thief's acquire load of bottom sees the node. An expansion's pushes
//    (pusher/commit) write their nodes, then publish bottom once: the same
//    as pushes whose intermediate bottoms no thief happened to read. take()'s stores of bottom
//    are release too (the paper has relaxed): C++20 no longer lets a later
//    relaxed store continue an earlier release sequence (P0982), so a thief
//    that reads a value take() stored must still synchronise with the
//    pushes and the growth before it.
//  - take: the owner stores bottom - 1 first, then a seq_cst fence, then
//    reads top. A thief reads top, a seq_cst fence, then bottom. The two
//    fences order these so that a thief and the owner cannot both miss each
//    other: if they meet on the last node (t == b), both CAS top from t and
//    exactly one wins; otherwise the owner's node is below every node a thief
//    can claim.
//  - slot reuse: the owner overwrites slot b mod capacity only when
//    b - capacity < top as read with acquire; a thief claimed position
//    b - capacity with a seq_cst (release) CAS after reading it, so its read
//    happens-before the overwrite. A thief that loses its CAS discards what it
//    read, so slots are relaxed atomics (a racing read is stale, not UB).
//  - growth copies [top, bottom) into an array twice the size and publishes
//    it with release before the bottom store of any node pushed into it; a
//    thief that loaded bottom with acquire then loads the array with acquire
//    and finds its position there or, if it read an older array, finds the
//    node still in it (a retired array is never written again).
//  - the owner giving its shallowest nodes away (an MPI rank's agent) takes
//    them one at a time from the top with the thieves' steal: it races them
//    like any thief, and never runs beside its own take().
//  - retired arrays are freed when the deque is destroyed (after the run's
//    final barrier, so no thief can be reading them). Each array is twice the
//    previous, so the retired ones together are smaller than the current.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/cache_line.hpp"
#include "steal/storage/packed_node.hpp"
#include "tree/node.hpp"

namespace uts {

class ChaseLevDeque {
 public:
  explicit ChaseLevDeque(std::uint32_t initial_capacity = 1u << 10);
  ~ChaseLevDeque();
  ChaseLevDeque(const ChaseLevDeque&) = delete;
  ChaseLevDeque& operator=(const ChaseLevDeque&) = delete;

  // ---- owner only ----------------------------------------------------------
  void reserve(std::uint32_t n) {
    // A cached top only underestimates the free room (top never decreases).
    if (bottom_own_ - top_cache_ + n > capacity()) refresh_or_grow(n);
  }
  // The sink interface of expansion (tree/expand.hpp): a cursor with room
  // for n pushes, then commit() publishes them all with one store of bottom.
  using Pusher = RingPusher<std::int64_t>;
  Pusher pusher(std::uint32_t n) {
    reserve(n);
    return {array_->slots, array_->mask, bottom_own_};
  }
  void commit(const Pusher& p) {
    if (p.pos == bottom_own_) return;  // nothing pushed (most expansions: leaves): leave thieves' line alone
    bottom_own_ = p.pos;
    // release: the nodes are visible to a thief that reads this bottom (acquire).
    bottom_.value.store(bottom_own_, std::memory_order_release);
  }
  void push(const Node& node) {
    Pusher p = pusher(1);
    p.push(node);
    commit(p);
  }
  // take(): false means empty for certain (a failed CAS on the last node
  // leaves top == bottom, and only the owner pushes).
  bool pop(Node& out) {
    const std::int64_t b = bottom_own_ - 1;
    const Array* a = array_;
    // release (the paper has relaxed): under C++20's narrowed release
    // sequences a thief that reads this value must still synchronise with
    // the pushes and growth before it; a plain store on x86, stlr on ARMv8.
    // The fence below orders it before the read of top.
    bottom_.value.store(b, std::memory_order_release);
    // seq_cst: the store of bottom and the load of top must not reorder
    // (store-load); pairs with the thief's fence between its top and bottom loads.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // acquire (the paper has relaxed): a thief's claim seen here happens-before
    // what we do next, which termination.hpp's argument uses (free on x86).
    std::int64_t t = top_.value.load(std::memory_order_acquire);
    if (t <= b) {
      out = a->slots[b & a->mask].load();
      if (t == b) {
        // The last node: race the thieves for it. seq_cst on success as in
        // the paper; acquire on failure, as the load of top above.
        const bool won =
            top_.value.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_acquire);
        // release: as the store of b above.
        bottom_.value.store(b + 1, std::memory_order_release);
        bottom_own_ = b + 1;
        return won;
      }
      bottom_own_ = b;
      return true;
    }
    // release: as the store of b above. The deque is empty (top > b).
    bottom_.value.store(b + 1, std::memory_order_release);
    return false;
  }

  std::int64_t size_estimate() const {
    // relaxed, both: a hint for victim choice and wake-ups; steals validate.
    const std::int64_t b = bottom_.value.load(std::memory_order_relaxed);
    const std::int64_t t = top_.value.load(std::memory_order_relaxed);
    return b - t;
  }
  std::uint32_t capacity() const { return static_cast<std::uint32_t>(array_->mask + 1); }
  std::size_t retired_arrays() const { return retired_.size(); }

  // ---- thieves ----------------------------------------------------------------
  enum class Steal { empty, lost, won };
  // The top node (won), nothing to take (empty: no CAS issued), or a lost
  // race (lost: the caller moves on).
  Steal steal(Node& out) {
    // acquire: pairs with the CAS of other thieves and the owner (their reads done).
    std::int64_t t = top_.value.load(std::memory_order_acquire);
    // seq_cst: pairs with the owner's fence in pop() (see the header).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // acquire: the nodes pushed below this bottom are visible.
    const std::int64_t b = bottom_.value.load(std::memory_order_acquire);
    if (t >= b) return Steal::empty;
    // acquire (the paper's consume): the array's contents as copied at growth.
    const Array* a = array_pub_.value.load(std::memory_order_acquire);
    const Node x = a->slots[t & a->mask].load();
    // seq_cst on success as in the paper; relaxed on failure (x is discarded).
    if (!top_.value.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
      return Steal::lost;
    out = x;
    return Steal::won;
  }

 private:
  struct Array {
    std::int64_t mask;
    PackedNode* slots;
  };
  static Array* new_array(std::uint32_t capacity);
  static void free_array(Array* a);
  void refresh_or_grow(std::uint32_t n);

  Padded<std::atomic<std::int64_t>> top_;
  Padded<std::atomic<std::int64_t>> bottom_;
  Padded<std::atomic<Array*>> array_pub_;
  // Owner's fields.
  alignas(kCacheLine) Array* array_ = nullptr;
  std::int64_t bottom_own_ = 0;  // the owner's exact copy of bottom
  std::int64_t top_cache_ = 0;   // a top loaded with acquire (a lower bound)
  std::vector<Array*> retired_;
};

}  // namespace uts
