// Expanding one node by itself: its children hashed a batch at a time,
// visited, and the inner ones pushed. Any SHA-1 path; used where nodes do not
// stream (a thread's block of the root's children, --init) and by the tests
// as the oracle the expanders must match.
#pragma once

#include <cstdint>

#include "tree/counts.hpp"
#include "tree/expansion.hpp"
#include "tree/node.hpp"
#include "tree/tree.hpp"

namespace uts {

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
    auto out = sink.pusher(n);
    for (std::uint32_t j = 0; j < n; ++j) {
      Node child;
      child.id = ids[j];
      child.height = height;
      child.children = static_cast<std::uint32_t>(tree.num_children(child.id[4], height));
      if (visit(child, counts)) out.push(child);
    }
    sink.commit(out);
  }
  return true;
}

template <class Sink>
inline bool expand(const Tree& tree, const Node& parent, Counts& counts, Sink& sink) {
  return expand_range(tree, parent, 0, parent.children, counts, sink);
}

}  // namespace uts
