// Expanding one node: the per-node work every traversal shares.
#pragma once

#include <cstdint>

#include "tree/node.hpp"
#include "tree/tree.hpp"

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
// (SIGINT, --max-nodes) reports the depth it reached.
inline bool visit(const Node& node, Counts& counts) {
  ++counts.nodes;
  counts.checksum += checksum_term(node.id);
  if (node.height > counts.max_depth) counts.max_depth = node.height;
  if (node.children != 0) return true;
  ++counts.leaves;
  return false;
}

// Generate children [first, last) of `parent`, visiting each and handing the
// ones with children to `keep`. Ids are hashed a batch at a time, so the
// hashes of siblings overlap (sha1/batch.hpp).
template <class Keep>
inline void expand_range(const Tree& tree, const Node& parent, std::uint32_t first, std::uint32_t last,
                         Counts& counts, Keep&& keep) {
  constexpr std::uint32_t kBatch = 16;
  sha1::Words ids[kBatch];
  const std::uint32_t height = parent.height + 1;
  for (std::uint32_t i = first; i < last; i += kBatch) {
    const std::uint32_t n = last - i < kBatch ? last - i : kBatch;
    tree.child_ids(parent.id, i, n, ids);
    for (std::uint32_t j = 0; j < n; ++j) {
      Node child;
      child.id = ids[j];
      child.height = height;
      child.children = static_cast<std::uint32_t>(tree.num_children(child.id[4], height));
      if (visit(child, counts)) keep(child);
    }
  }
}

template <class Keep>
inline void expand(const Tree& tree, const Node& parent, Counts& counts, Keep&& keep) {
  expand_range(tree, parent, 0, parent.children, counts, keep);
}

}  // namespace uts
