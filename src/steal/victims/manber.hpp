// The shared part of Manber's search (docs/engine.md, section 3): one counter
// per node of a binary tree superimposed on the deques (heap layout: node 1
// is the root, node k has children 2k and 2k+1, leaf j is node L + j where L
// is P rounded up to a power of two). A counter value r means "this subtree
// was found empty in every round up to r". The walk itself is per thread
// (selector.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/cache_line.hpp"

namespace uts {

class ManberTree {
 public:
  explicit ManberTree(int threads);
  int threads() const { return threads_; }
  int leaves() const { return leaves_; }
  // relaxed: the counters only steer the search; every claim is validated by
  // the deque's CAS and termination is decided by the busy count.
  std::uint64_t read(int node) const { return counters_[static_cast<std::size_t>(node)].value.load(std::memory_order_relaxed); }
  // relaxed, for the same reason as read().
  void mark(int node, std::uint64_t round) {
    counters_[static_cast<std::size_t>(node)].value.store(round, std::memory_order_relaxed);
  }

 private:
  int threads_;
  int leaves_;
  // 64-bit: an idle thread can pass 2^32 rounds in hours; rounds never wrap.
  std::vector<Padded<std::atomic<std::uint64_t>>> counters_;
};

}  // namespace uts
