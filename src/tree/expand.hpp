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
//
// A node with more than kHugeNode children (a binomial root has up to 2^31)
// is expanded in pieces, and between them `keep_going()` is asked whether to
// go on (a stop request, --max-nodes); false abandons the rest of the node.
// A batch whose hashing was abandoned (tree.hpp, -g) is dropped too. Either
// way the run is partial, and the expansion says so (false / abandoned()).
inline constexpr std::uint32_t kHugeNode = 1024;

struct AlwaysGoOn {
  bool operator()() const { return true; }
};

// Generate children [first, last) of `parent`, visiting each and keeping the
// ones with children. Ids are hashed a batch at a time, so the hashes of
// siblings overlap (sha1/batch.hpp). false: abandoned.
template <class Sink, class KeepGoing = AlwaysGoOn>
inline bool expand_range(const Tree& tree, const Node& parent, std::uint32_t first, std::uint32_t last,
                         Counts& counts, Sink& sink, KeepGoing&& keep_going = AlwaysGoOn{}) {
  constexpr std::uint32_t kBatch = 16;
  sha1::Words ids[kBatch];
  const std::uint32_t height = parent.height + 1;
  for (std::uint32_t i = first; i < last; i += kBatch) {
    static_assert(kHugeNode % kBatch == 0);
    if (i != first && (i - first) % kHugeNode == 0 && !keep_going()) return false;
    const std::uint32_t n = last - i < kBatch ? last - i : kBatch;
    if (!tree.child_ids(parent.id, i, n, ids)) return false;
    sink.reserve(n);
    for (std::uint32_t j = 0; j < n; ++j) {
      Node child;
      child.id = ids[j];
      child.height = height;
      child.children = static_cast<std::uint32_t>(tree.num_children(child.id[4], height));
      sink.push_if(child, visit(child, counts));
    }
  }
  return true;
}

template <class Sink>
inline bool expand(const Tree& tree, const Node& parent, Counts& counts, Sink& sink) {
  return expand_range(tree, parent, 0, parent.children, counts, sink);
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
  template <class Sink, class KeepGoing = AlwaysGoOn>
  [[gnu::always_inline]] void add(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing&& keep_going = AlwaysGoOn{}) {
    if (parent.children > kHugeNode) return add_huge(tree, parent, counts, sink, keep_going);
    const std::uint32_t height = parent.height + 1;
    for (std::uint32_t i = 0; i < parent.children; ++i) {
      jobs_[pending_] = {parent.id, i};
      heights_[pending_] = height;
      if (++pending_ == kLanes) run(tree, counts, sink);
    }
  }

  // A child batch or the rest of a huge node was given up (the run stops).
  bool abandoned() const { return abandoned_; }
  // Children are queued, not yet hashed.
  bool pending() const { return pending_ != 0; }

  // Hash what is queued; false when nothing was.
  template <class Sink>
  bool flush(const Tree& tree, Counts& counts, Sink& sink) {
    if (pending_ == 0) return false;
    run(tree, counts, sink);
    return true;
  }

 private:
  // The same in pieces of kHugeNode children, asking between them.
  template <class Sink, class KeepGoing>
  [[gnu::noinline]] void add_huge(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing& keep_going) {
    const std::uint32_t height = parent.height + 1;
    for (std::uint32_t i = 0; i < parent.children; ++i) {
      if (i % kHugeNode == kHugeNode - 1 && !keep_going()) {
        abandoned_ = true;
        return;
      }
      jobs_[pending_] = {parent.id, i};
      heights_[pending_] = height;
      if (++pending_ == kLanes) run(tree, counts, sink);
    }
  }

  template <class Sink>
  [[gnu::always_inline]] void run(const Tree& tree, Counts& counts, Sink& sink) {
    sha1::Words ids[kLanes];
    if (!tree.child_ids(jobs_, pending_, ids)) {  // -g: a stop came during the hashing
      pending_ = 0;
      abandoned_ = true;
      return;
    }
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
  bool abandoned_ = false;
};

}  // namespace uts
