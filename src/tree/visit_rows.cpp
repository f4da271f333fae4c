// The lane path's step after hashing (shani, cryptopp): each child's number
// of children and what the batch adds to the counts, scalar, one loop per
// tree rule. The rule is chosen once per call: with num_children() per
// child, inlined into a traversal loop, the rule's switch ran for every
// child and the loop's state lived on the stack
// (results/benchmarks/2026-11-28-engine.md).
#include "tree/tree.hpp"

namespace uts {

namespace {

// rule(word4, height): the child's number of children.
template <class Rule>
inline void visit_each(const sha1::RowIds& ids, const std::uint32_t* heights, int n, std::uint32_t* children,
                       Tree::BatchVisit& out, Rule rule) {
  std::uint32_t inner = 0, kept = 0, highest = 0;
  std::uint64_t checksum = 0;
  for (int j = 0; j < n; ++j) {
    const std::uint32_t* id = ids.row[j];
    const std::uint32_t h = heights[j];
    const auto c = static_cast<std::uint32_t>(rule(id[4], h));
    children[j] = c;
    inner |= static_cast<std::uint32_t>(c != 0) << j;
    kept += c != 0 ? 1 : 0;
    checksum += (std::uint64_t{id[0]} << 32) | id[1];  // checksum_term (node.hpp)
    highest = h > highest ? h : highest;
  }
  out.inner = inner;
  out.kept = kept;
  out.checksum = checksum;
  out.max_height = highest;
}

}  // namespace

void Tree::visit_rows(const sha1::RowIds& ids, const std::uint32_t* heights, int n, std::uint32_t* children,
                      BatchVisit& out) const {
  switch (params_.type) {
    case TreeType::binomial: {
      // binomial_children() without a branch: whether a child has children
      // is random (1 - q of them do), and GCC's branch mispredicted on
      // those (results/benchmarks/2026-11-28-shani-rows.md).
      const auto m = static_cast<std::uint32_t>(params_.m);
      const std::uint64_t below = binomial_below_;
      const std::uint32_t mask = variate_mask_;
      return visit_each(ids, heights, n, children, out, [=, this](std::uint32_t w, std::uint32_t h) {
        const std::uint32_t c = m & (0u - static_cast<std::uint32_t>((w & mask) < below));
        return h == 0 ? static_cast<std::uint32_t>(binomial_root_children_) : c;
      });
    }
    case TreeType::geometric:
      return visit_each(ids, heights, n, children, out,
                        [this](std::uint32_t w, std::uint32_t h) { return geometric_children(w, h); });
    case TreeType::hybrid:
      return visit_each(ids, heights, n, children, out, [this](std::uint32_t w, std::uint32_t h) {
        return h < hybrid_geometric_below_ ? geometric_children(w, h) : binomial_children(w);
      });
    case TreeType::balanced:
      return visit_each(ids, heights, n, children, out, [this](std::uint32_t, std::uint32_t h) {
        return static_cast<std::int64_t>(h) < params_.depth ? balanced_children_ : 0;
      });
  }
}

}  // namespace uts
