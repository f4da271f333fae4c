// Expanding one node: the per-node work every traversal shares.
#pragma once

#include <cstdint>

#include "tree/counts.hpp"
#include "tree/node.hpp"
#include "tree/tree.hpp"

namespace uts {

// Where expansion puts the children that have children of their own:
//   reserve(n)          room for n more nodes
//   push_if(node, keep) push node if `keep` (measured: a branch beats an
//                       unconditional store here, for the stack and the deque)
// Generate children [first, last) of `parent`, visiting each and keeping the
// ones with children. Ids are hashed a batch at a time, so the hashes of
// siblings overlap (sha1/batch.hpp).
template <class Sink>
inline void expand_range(const Tree& tree, const Node& parent, std::uint32_t first, std::uint32_t last,
                         Counts& counts, Sink& sink) {
  constexpr std::uint32_t kBatch = 16;
  sha1::Words ids[kBatch];
  const std::uint32_t height = parent.height + 1;
  for (std::uint32_t i = first; i < last; i += kBatch) {
    const std::uint32_t n = last - i < kBatch ? last - i : kBatch;
    tree.child_ids(parent.id, i, n, ids);
    sink.reserve(n);
    for (std::uint32_t j = 0; j < n; ++j) {
      Node child;
      child.id = ids[j];
      child.height = height;
      child.children = static_cast<std::uint32_t>(tree.num_children(child.id[4], height));
      sink.push_if(child, visit(child, counts));
    }
  }
}

template <class Sink>
inline void expand(const Tree& tree, const Node& parent, Counts& counts, Sink& sink) {
  expand_range(tree, parent, 0, parent.children, counts, sink);
}

// Expansion across nodes: children of successive nodes are queued and hashed
// kLanes at a time, so nodes with one to three children (a third of a
// geometric tree's nodes) still fill the SHA-NI lanes. A traversal calls
// add() for each node it pops and flush() when it has nothing left to pop;
// until then the queued children are work this thread holds.
class Expander {
 public:
  static constexpr int kLanes = sha1::kMaxLanes;

  // add() and run() are always inlined: they are the per-node path, and the
  // compiler's budget otherwise goes to the engine's cold paths.
  template <class Sink>
  [[gnu::always_inline]] void add(const Tree& tree, const Node& parent, Counts& counts, Sink& sink) {
    const std::uint32_t height = parent.height + 1;
    for (std::uint32_t i = 0; i < parent.children; ++i) {
      jobs_[pending_] = {parent.id, i};
      heights_[pending_] = height;
      if (++pending_ == kLanes) run(tree, counts, sink);
    }
  }

  // Hash what is queued; false when nothing was.
  template <class Sink>
  bool flush(const Tree& tree, Counts& counts, Sink& sink) {
    if (pending_ == 0) return false;
    run(tree, counts, sink);
    return true;
  }

 private:
  template <class Sink>
  [[gnu::always_inline]] void run(const Tree& tree, Counts& counts, Sink& sink) {
    sha1::Words ids[kLanes];
    tree.child_ids(jobs_, pending_, ids);
    sink.reserve(static_cast<std::uint32_t>(pending_));
    // A local copy: the sink's stores cannot alias it, so it stays in registers.
    Counts local = counts;
    for (int j = 0; j < pending_; ++j) {
      Node child;
      child.id = ids[j];
      child.height = heights_[j];
      child.children = static_cast<std::uint32_t>(tree.num_children(child.id[4], child.height));
      sink.push_if(child, visit(child, local));
    }
    counts = local;
    pending_ = 0;
  }

  sha1::ChildJob jobs_[kLanes];
  std::uint32_t heights_[kLanes];
  int pending_ = 0;
};

}  // namespace uts
