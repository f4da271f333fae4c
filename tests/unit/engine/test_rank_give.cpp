// engine/rank_give.hpp: what --rank-split levels gives another rank and what
// thread 0 keeps, on hand-made stacks of nodes (the worker's use of it is
// covered, exact, by test_engine.cpp's rank seam).
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "engine/rank_give.hpp"

using namespace uts;

namespace {

// Nodes told apart by id[0]; `height` the level.
std::vector<Node> stack_of(const std::vector<std::uint32_t>& heights) {
  std::vector<Node> v;
  for (std::uint32_t i = 0; i < heights.size(); ++i) {
    Node n{};
    n.id[0] = i;
    n.height = heights[i];
    v.push_back(n);
  }
  return v;
}

std::map<std::uint32_t, int> per_level(const std::vector<Node>& v) {
  std::map<std::uint32_t, int> m;
  for (const Node& n : v) ++m[n.height];
  return m;
}

}  // namespace

TEST_CASE("split_levels: half of every level, the shallower of each pair to the thief, order kept") {
  // Two nodes a level over levels 1-4, as a depth-first stack holds them.
  const std::vector<Node> held = stack_of({1, 1, 2, 2, 3, 3, 4, 4});
  std::vector<Node> give, keep;
  CHECK(split_levels(held, 1024, give, keep) == 4);
  CHECK(per_level(give) == std::map<std::uint32_t, int>{{1, 1}, {2, 1}, {3, 1}, {4, 1}});
  CHECK(per_level(keep) == per_level(give));
  for (std::size_t i = 0; i < give.size(); ++i) {
    CHECK(give[i].id[0] == 2 * i);      // positions 0, 2, 4, 6, in order
    CHECK(keep[i].id[0] == 2 * i + 1);  // positions 1, 3, 5, 7, in order
  }
}

TEST_CASE("split_levels: against the shallowest half, the thief no longer takes every shallow level") {
  // The shallowest half of this stack would be levels 1 and 2 entirely: the
  // victim would keep only level 3 and 4 nodes (the crumbs).
  const std::vector<Node> held = stack_of({1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4});
  std::vector<Node> give, keep;
  CHECK(split_levels(held, 1024, give, keep) == 6);
  const auto kept = per_level(keep);
  CHECK(kept.at(1) >= 1);
  CHECK(kept.at(2) >= 1);
  CHECK(give.size() + keep.size() == held.size());
}

TEST_CASE("split_levels: a lone node goes; odd counts alternate; the cap holds; nothing is lost") {
  std::vector<Node> give, keep;
  CHECK(split_levels(stack_of({5}), 1024, give, keep) == 1);
  CHECK(keep.empty());

  give.clear();
  keep.clear();
  // Odd levels: 3 at level 1 (2 go), then 1 at level 2 (it stays, the
  // parity having moved), then 3 at level 3 (2 go).
  CHECK(split_levels(stack_of({1, 1, 1, 2, 3, 3, 3}), 1024, give, keep) == 4);
  CHECK(per_level(give) == std::map<std::uint32_t, int>{{1, 2}, {3, 2}});
  CHECK(per_level(keep) == std::map<std::uint32_t, int>{{1, 1}, {2, 1}, {3, 1}});

  give.clear();
  keep.clear();
  // --rank-chunk caps what goes; the rest stays, in order.
  const std::vector<Node> held = stack_of({1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
  CHECK(split_levels(held, 2, give, keep) == 2);
  CHECK(give.size() == 2);
  CHECK(keep.size() == 8);
  CHECK(give[0].id[0] == 0);
  CHECK(give[1].id[0] == 2);
  std::uint32_t last = 0;
  for (const Node& n : keep) {
    CHECK(n.id[0] >= last);
    last = n.id[0];
  }

  give.clear();
  keep.clear();
  CHECK(split_levels(std::vector<Node>{}, 1024, give, keep) == 0);
  CHECK(give.empty());
  CHECK(keep.empty());
}
