// A node stored where other threads may read it concurrently: four 64-bit
// words, each accessed atomically (a racing read is a stale value, not a
// data race), packed from Node's 32-bit fields in registers (never through
// memory, so a node written and soon read back forwards from the store
// buffer). The split deque and the Chase-Lev deque keep their slots so.
#pragma once

#include <atomic>
#include <cstdint>

#include "tree/node.hpp"

namespace uts {

struct PackedNode {
  std::uint64_t w[4];

  static_assert(sizeof(Node) == 7 * sizeof(std::uint32_t));

  // relaxed: callers order slot accesses through their protocol's fences,
  // CAS or release/acquire on an index.
  // Four stores written out: as a loop, GCC 12 kept the loop and packed the
  // words through a stack temporary, which slowed every push
  // (results/benchmarks/2026-11-28-figures-from-comments.md).
  void store(const Node& node) {
    const NodeWords words = NodeWords::pack(node);
    std::atomic_ref<std::uint64_t>(w[0]).store(words.w[0], std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(w[1]).store(words.w[1], std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(w[2]).store(words.w[2], std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(w[3]).store(words.w[3], std::memory_order_relaxed);
  }
  // A read that may race a write of the slot (a thief's speculative copy).
  // relaxed: as store().
  Node load() const {
    NodeWords v;
    for (int i = 0; i < 4; ++i)
      v.w[i] = std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w[i])).load(std::memory_order_relaxed);
    return v.unpack();
  }
  // A read by the only thread that writes this slot: it can meet other
  // reads but never a write, so a plain load is race-free (and is what the
  // owner's hot pop path wants).
  Node load_own() const {
    const NodeWords v{{w[0], w[1], w[2], w[3]}};
    return v.unpack();
  }
};

// The owner's pushes of one expansion into a ring of slots (the split and
// Chase-Lev deques' Pusher): positions from `pos` up, in registers. GCC
// treats each atomic store as a possible write to any memory, so pushing
// through the deque's members reloaded the ring, mask and bottom after
// every slot and kept bottom in memory, which put the engine at 1 thread
// behind --sequential (results/benchmarks/2026-11-25-pusher.md); a cursor
// in locals is not reloaded. The deque takes `pos` back in commit().
template <class Index>
struct RingPusher {
  PackedNode* slots;
  Index mask;
  Index pos;
  void push(const Node& node) {
    slots[pos & mask].store(node);
    ++pos;
  }
};

}  // namespace uts
