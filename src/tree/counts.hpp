// What a traversal counts, and the visit of one generated node.
#pragma once

#include <cstdint>

#include "tree/node.hpp"

namespace uts {

// What a traversal has seen so far; merged across threads by summing
// (and taking the max of depth).
struct Counts {
  std::uint64_t nodes = 0;
  std::uint64_t leaves = 0;
  std::uint64_t checksum = 0;
  std::uint32_t max_depth = 0;

  void merge(const Counts& other) {
    nodes += other.nodes;
    leaves += other.leaves;
    checksum += other.checksum;
    if (other.max_depth > max_depth) max_depth = other.max_depth;
  }
};

// Records a freshly generated node; returns true when it must be expanded
// later (it has children). Leaves are finished here and never stored. Depth
// counts every node visited, not only leaves, so a run stopped early
// (SIGINT, --max-nodes) reports the depth it reached. No branch: whether a
// node is a leaf is random.
inline bool visit(const Node& node, Counts& counts) {
  ++counts.nodes;
  counts.checksum += checksum_term(node.id);
  counts.max_depth = node.height > counts.max_depth ? node.height : counts.max_depth;
  const bool inner = node.children != 0;
  counts.leaves += inner ? 0 : 1;
  return inner;
}

}  // namespace uts
