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
  void store(const Node& node) {
    const std::uint64_t words[4] = {pair(node.id[0], node.id[1]), pair(node.id[2], node.id[3]),
                                    pair(node.id[4], node.height), node.children};
    for (int i = 0; i < 4; ++i) std::atomic_ref<std::uint64_t>(w[i]).store(words[i], std::memory_order_relaxed);
  }
  // A read that may race a write of the slot (a thief's speculative copy).
  // relaxed: as store().
  Node load() const {
    std::uint64_t v[4];
    for (int i = 0; i < 4; ++i)
      v[i] = std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w[i])).load(std::memory_order_relaxed);
    return unpack(v);
  }
  // A read by the only thread that writes this slot: it can meet other
  // reads but never a write, so a plain load is race-free (and is what the
  // owner's hot pop path wants).
  Node load_own() const {
    const std::uint64_t v[4] = {w[0], w[1], w[2], w[3]};
    return unpack(v);
  }

 private:
  static std::uint64_t pair(std::uint32_t lo, std::uint32_t hi) { return std::uint64_t{hi} << 32 | lo; }
  static Node unpack(const std::uint64_t (&v)[4]) {
    auto lo = [](std::uint64_t x) { return static_cast<std::uint32_t>(x); };
    auto hi = [](std::uint64_t x) { return static_cast<std::uint32_t>(x >> 32); };
    return Node{{lo(v[0]), hi(v[0]), lo(v[1]), hi(v[1]), lo(v[2])}, hi(v[2]), lo(v[3])};
  }
};

}  // namespace uts
