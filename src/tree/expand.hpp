// Expanding one node: the per-node work every traversal shares.
#pragma once

#include <algorithm>
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
// a full batch at a time (16 lanes for AVX-512, 6 for SHA-NI:
// sha1::batch_lanes), so nodes with one to three children (a third of a
// geometric tree's nodes, every expanded node of a binomial tree with m = 2)
// still fill the lanes. A traversal calls add() for each node it pops and
// flush() when it has nothing left to pop; until then the queued children
// are work this thread holds (at most lanes - 1 of them between calls).
class Expander {
 public:
  explicit Expander(sha1::Path path) : lanes_(sha1::batch_lanes(path)) {}

  // add() and run() are always inlined: they are the per-node path, and the
  // compiler's budget otherwise goes to the engine's cold paths.
  template <class Sink, class KeepGoing = AlwaysGoOn>
  [[gnu::always_inline]] void add(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing&& keep_going = AlwaysGoOn{}) {
    if (parent.children > kHugeNode) return add_huge(tree, parent, counts, sink, keep_going);
    // Batch::kFill lanes are written whatever the child count (fixed-length
    // loops, no branch on the count), then pending_ moves by the children
    // that fit; a node with more children writes the next kFill, running the
    // batch whenever it is full.
    const std::uint32_t height = parent.height + 1;
    std::uint32_t first = 0;
    for (;;) {
      batch_.fill(pending_, parent.id, first);
      for (int l = 0; l < sha1::Batch::kFill; ++l) heights_[pending_ + l] = height;
      const std::uint32_t left = parent.children - first;
      const auto room = std::min<std::uint32_t>(static_cast<std::uint32_t>(lanes_ - pending_), sha1::Batch::kFill);
      if (left < room) {
        pending_ += static_cast<int>(left);
        return;
      }
      pending_ += static_cast<int>(room);
      first += room;
      if (pending_ == lanes_) run(tree, counts, sink);
      if (first == parent.children) return;
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
      batch_.set(pending_, parent.id, i);
      heights_[pending_] = height;
      if (++pending_ == lanes_) run(tree, counts, sink);
    }
  }

  // Visit the batch's children, then push the ones with children. Whether a
  // child is a leaf is random (80% are), so nothing here branches on it per
  // child: the counts are summed over all lanes, the inner children collected
  // in a bit mask, and only the loop over the mask's bits has a data-dependent
  // exit, once per batch (a branch per child mispredicted on a fifth of the
  // nodes and cost a third of the traversal's time with the AVX-512 kernel).
  template <class Sink>
  [[gnu::always_inline]] void run(const Tree& tree, Counts& counts, Sink& sink) {
    if (!tree.child_ids(batch_, pending_, ids_)) {  // -g: a stop came during the hashing
      pending_ = 0;
      abandoned_ = true;
      return;
    }
    const int n = pending_;
    alignas(64) std::uint32_t children[sha1::kMaxLanes];
    std::uint32_t inner = 0;  // bit j: child j has children
    std::uint32_t kept = 0;   // how many bits of `inner` are set
    std::uint64_t checksum = 0;
    std::uint32_t depth = counts.max_depth;
    if (lanes_ == sha1::kMaxLanes) {  // the AVX-512 path: the same in zmm registers
      Tree::BatchVisit v;
      tree.visit_batch_avx512(ids_, heights_, n, children, v);
      inner = v.inner;
      kept = v.kept;
      checksum = v.checksum;
      depth = v.max_height > depth ? v.max_height : depth;
    } else {
      for (int j = 0; j < n; ++j) {
        children[j] = static_cast<std::uint32_t>(tree.num_children(ids_.word[4][j], heights_[j]));
        inner |= static_cast<std::uint32_t>(children[j] != 0) << j;
        kept += children[j] != 0 ? 1 : 0;
        checksum += (std::uint64_t{ids_.word[0][j]} << 32) | ids_.word[1][j];  // checksum_term (node.hpp)
        depth = heights_[j] > depth ? heights_[j] : depth;
      }
    }
    counts.nodes += static_cast<std::uint64_t>(n);
    counts.leaves += static_cast<std::uint64_t>(n) - kept;
    counts.checksum += checksum;
    counts.max_depth = depth;
    sink.reserve(kept);
    for (std::uint32_t m = inner; m != 0; m &= m - 1) {
      const int j = __builtin_ctz(m);
      Node child;
      child.id = ids_.get(j);
      child.height = heights_[j];
      child.children = children[j];
      sink.push_if(child, true);
    }
    pending_ = 0;
  }

  sha1::Batch batch_;
  sha1::Ids ids_;
  std::uint32_t heights_[2 * sha1::kMaxLanes] = {};  // as the batch's columns, with scratch
  int pending_ = 0;
  int lanes_;
  bool abandoned_ = false;
};

}  // namespace uts
