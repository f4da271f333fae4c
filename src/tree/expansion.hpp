// What every way of expanding a node shares (docs/hashing.md): the sink the
// children go to, the question asked between a huge node's pieces, the
// traversal's refill, and the counting and pushing of a visited batch.
#pragma once

#include <cstdint>

#include "tree/counts.hpp"
#include "tree/node.hpp"
#include "tree/tree.hpp"

namespace uts {

// Where expansion puts the children that have children of their own, a
// sink:
//   auto out = sink.pusher(n)   a cursor with room for n more nodes
//   out.push(node)              at most n times
//   sink.commit(out)            the pushed nodes join the sink
// The cursor is a local: the pushes of one expansion keep the sink's
// position in registers (steal/storage/packed_node.hpp says why that
// matters for the deques). Only a node with children is pushed, by a branch:
// it beat an unconditional store for the stack and the deque
// (results/benchmarks/2026-11-25-visit.md).
//
// A node with more than kHugeNode children (a binomial root has up to 2^31)
// is expanded in pieces, and between them `keep_going()` is asked whether to
// go on (a stop request, --max-nodes); false abandons the rest of the node.
// A batch whose hashing was abandoned (tree.hpp, -g) is dropped too, with
// everything else queued, and the node's remaining children are not queued.
// Either way the run is partial, and the expansion says so (false /
// abandoned()); an abandoned expander holds nothing (pending() is false).
inline constexpr std::uint32_t kHugeNode = 1024;

struct AlwaysGoOn {
  bool operator()() const { return true; }
};

// Where the slot way (SlotPairExpander) takes more parents while a pair of
// batches is hashed: refill(node) pops the traversal's next node, as the
// traversal would (false: none now, and refilling stops until the next
// pair; the engine's refill takes only what its owner pops without a call,
// steal/protocol.hpp's pop_private). A node whose children do not fit is
// pushed back.
struct NoRefill {
  bool operator()(Node&) const { return false; }
};

namespace expansion {

// A visit's counts: n children, `kept` of them inner.
inline void count(const Tree::BatchVisit& v, int n, Counts& counts) {
  counts.nodes += static_cast<std::uint64_t>(n);
  counts.leaves += static_cast<std::uint64_t>(n) - v.kept;
  counts.checksum += v.checksum;
  counts.max_depth = v.max_height > counts.max_depth ? v.max_height : counts.max_depth;
}

// The inner children (bits of `inner`: lane j's id in ids, its height in
// heights[j], its child count in children[j]) through a cursor with room
// for them.
template <class IdsT, class Pusher>
[[gnu::always_inline]] inline void push_inner(const IdsT& ids, const std::uint32_t* heights, std::uint32_t inner,
                                              const std::uint32_t* children, Pusher& out) {
  for (std::uint32_t m = inner; m != 0; m &= m - 1) {
    const int j = __builtin_ctz(m);
    Node child;
    child.id = ids.get(j);
    child.height = heights[j];
    child.children = children[j];
    out.push(child);
  }
}

// Counts, then the inner children to the sink. Whether a child is a leaf is
// random (most are), so nothing here branches on it per child: the counts
// are summed over all lanes, the inner children collected in a bit mask,
// and only the loop over the mask's bits has a data-dependent exit, once
// per batch; a branch per child mispredicted
// (results/benchmarks/2026-11-28-expander-figures.md).
template <class IdsT, class Sink>
[[gnu::always_inline]] inline void push(const IdsT& ids, const std::uint32_t* heights, int n,
                                        const Tree::BatchVisit& v, const std::uint32_t* children, Counts& counts,
                                        Sink& sink) {
  count(v, n, counts);
  auto out = sink.pusher(v.kept);
  push_inner(ids, heights, v.inner, children, out);
  sink.commit(out);
}

}  // namespace expansion

}  // namespace uts
