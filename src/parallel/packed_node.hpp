// A node stored where other threads may read it concurrently: four 64-bit
// words, each accessed atomically (a racing read is a stale value, not a
// data race), packed from Node's 32-bit fields in registers.
#pragma once

#include <atomic>
#include <cstdint>

#include "tree/node.hpp"

namespace uts {

struct PackedNode {
  std::uint64_t w[4];

  static std::uint64_t pair(std::uint32_t lo, std::uint32_t hi) { return std::uint64_t{hi} << 32 | lo; }

  // relaxed: callers order slot accesses through their protocol's fences,
  // CAS or release/acquire on an index.
  void store(const Node& node) {
    const std::uint64_t words[4] = {pair(node.id[0], node.id[1]), pair(node.id[2], node.id[3]),
                                    pair(node.id[4], node.height), node.children};
    for (int i = 0; i < 4; ++i) std::atomic_ref<std::uint64_t>(w[i]).store(words[i], std::memory_order_relaxed);
  }
  // relaxed: as store().
  Node load() const {
    std::uint64_t v[4];
    for (int i = 0; i < 4; ++i)
      v[i] = std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w[i])).load(std::memory_order_relaxed);
    auto lo = [](std::uint64_t x) { return static_cast<std::uint32_t>(x); };
    auto hi = [](std::uint64_t x) { return static_cast<std::uint32_t>(x >> 32); };
    return Node{{lo(v[0]), hi(v[0]), lo(v[1]), hi(v[1]), lo(v[2])}, hi(v[2]), lo(v[3])};
  }
};

}  // namespace uts
