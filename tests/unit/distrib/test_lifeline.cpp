// distrib/lifeline.hpp: GLB's cyclic-hypercube lifeline graph. For every job
// size P = 1..4096 and base l in {2, 3, 4, 8}: no self-lifeline, no rank
// listed twice, degree <= z = ceil(log_l P), strongly connected (work pushed
// against the edges reaches every rank from any rank, rank 0 included); and
// diameter <= z (l - 1), checked exactly for every P <= 512 and for a set of
// larger P (powers of two and of l, one either side of each, and 48 drawn
// with a fixed seed, 4096 included): an all-pairs check at every P costs
// minutes, not seconds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "distrib/lifeline.hpp"

using uts::distrib::lifeline_digits;
using uts::distrib::lifeline_thieves_of;
using uts::distrib::lifelines_of;

namespace {

using Graph = std::vector<std::vector<int>>;

Graph graph_of(int ranks, int base) {
  Graph g(static_cast<std::size_t>(ranks));
  for (int h = 0; h < ranks; ++h) g[static_cast<std::size_t>(h)] = lifelines_of(h, ranks, base);
  return g;
}

// The directed diameter, computed for all sources at once with bit sets:
// after round k, reach[u] holds the ranks within k edges of u. -1 when some
// pair is not connected within `limit` + 1 rounds.
int diameter(const Graph& g, int limit) {
  const std::size_t n = g.size(), words = (n + 63) / 64;
  std::vector<std::uint64_t> reach(n * words, 0), next;
  for (std::size_t u = 0; u < n; ++u) reach[u * words + u / 64] |= std::uint64_t{1} << (u % 64);
  auto full = [&](const std::vector<std::uint64_t>& r) {
    for (std::size_t u = 0; u < n; ++u)
      for (std::size_t w = 0; w < words; ++w) {
        const std::size_t bits = (w + 1) * 64 <= n ? 64 : n - w * 64;
        const std::uint64_t want = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
        if (r[u * words + w] != want) return false;
      }
    return true;
  };
  for (int k = 0; k <= limit + 1; ++k) {
    if (full(reach)) return k;
    next = reach;
    for (std::size_t u = 0; u < n; ++u)
      for (int v : g[u])
        for (std::size_t w = 0; w < words; ++w) next[u * words + w] |= reach[static_cast<std::size_t>(v) * words + w];
    reach.swap(next);
  }
  return -1;
}

}  // namespace

TEST_CASE("lifeline graph: the examples of the definition") {
  // l = 2, P = 8: rank h's lifelines flip one bit each (decrement mod 2).
  CHECK(lifelines_of(0, 8, 2) == std::vector<int>{1, 2, 4});
  CHECK(lifelines_of(5, 8, 2) == std::vector<int>{4, 7, 1});
  // l = 4, P = 16 (z = 2): digit 0 of 6 (= 12 in base 4) 2 -> 1, digit 1: 1 -> 0.
  CHECK(lifelines_of(6, 16, 4) == std::vector<int>{5, 2});
  // Skipping ranks that do not exist: P = 5, l = 2 (z = 3). Rank 0: digit 0
  // gives 1, digit 1 gives 2, digit 2 gives 4.
  CHECK(lifelines_of(0, 5, 2) == std::vector<int>{1, 2, 4});
  // Rank 4 (100): 101 = 5 does not exist and base 2 has no second try, so
  // no lifeline on digit 0; 110 = 6 neither; 000 = 0 does.
  CHECK(lifelines_of(4, 5, 2) == std::vector<int>{0});
  // l = 4, P = 6: rank 4 (10): digit 0: 0 -> 3 (7), 2 (6) do not exist, 1 (5) does.
  CHECK(lifelines_of(4, 6, 4) == std::vector<int>{5, 0});
  CHECK(lifelines_of(0, 1, 4).empty());
  CHECK(lifeline_digits(1, 4) == 0);
  CHECK(lifeline_digits(4096, 8) == 4);
  CHECK(lifeline_digits(4097, 8) == 5);
  CHECK(lifeline_thieves_of(0, 8, 2) == std::vector<int>{1, 2, 4});
}

TEST_CASE("lifeline graph: P = 1..4096, l in {2, 3, 4, 8}: no self-lifeline, degree <= z, strongly connected") {
  // Flat arrays (no allocation per rank): 4 x 8.4 million ranks in all.
  std::vector<int> first, edges, rfirst, redges, stack;
  std::vector<char> seen;
  // Ranks reached from rank 0 over (first, edges).
  auto reached = [&](const std::vector<int>& f, const std::vector<int>& e, int n) {
    seen.assign(static_cast<std::size_t>(n), 0);
    stack.assign(1, 0);
    seen[0] = 1;
    int count = 1;
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int k = f[static_cast<std::size_t>(u)]; k < f[static_cast<std::size_t>(u) + 1]; ++k) {
        const int v = e[static_cast<std::size_t>(k)];
        if (!seen[static_cast<std::size_t>(v)]) {
          seen[static_cast<std::size_t>(v)] = 1;
          ++count;
          stack.push_back(v);
        }
      }
    }
    return count;
  };
  for (int base : {2, 3, 4, 8}) {
    for (int ranks = 1; ranks <= 4096; ++ranks) {
      const int z = lifeline_digits(ranks, base);
      first.assign(1, 0);
      edges.clear();
      std::vector<int> indegree(static_cast<std::size_t>(ranks) + 1, 0);
      bool ok = true;
      for (int h = 0; h < ranks; ++h) {
        int mine[64], n = 0;
        uts::distrib::for_each_lifeline(h, ranks, base, [&](int v) { mine[n < 64 ? n++ : 63] = v; });
        std::sort(mine, mine + n);
        const bool good = n <= z && std::adjacent_find(mine, mine + n) == mine + n &&
                          !std::binary_search(mine, mine + n, h) && (n == 0 || (mine[0] >= 0 && mine[n - 1] < ranks));
        if (!good) {
          FAIL_CHECK("P=" << ranks << " l=" << base << " rank " << h << ": lifelines bad");
          ok = false;
          break;
        }
        for (int k = 0; k < n; ++k) {
          edges.push_back(mine[k]);
          ++indegree[static_cast<std::size_t>(mine[k]) + 1];
        }
        first.push_back(static_cast<int>(edges.size()));
      }
      if (!ok) continue;
      // The reverse graph, to walk against the edges.
      rfirst.assign(indegree.begin(), indegree.end());
      for (int v = 0; v < ranks; ++v) rfirst[static_cast<std::size_t>(v) + 1] += rfirst[static_cast<std::size_t>(v)];
      redges.assign(edges.size(), 0);
      std::vector<int> fill(rfirst.begin(), rfirst.end() - 1);
      for (int u = 0; u < ranks; ++u)
        for (int k = first[static_cast<std::size_t>(u)]; k < first[static_cast<std::size_t>(u) + 1]; ++k)
          redges[static_cast<std::size_t>(fill[static_cast<std::size_t>(edges[static_cast<std::size_t>(k)])]++)] = u;
      // Every rank reaches rank 0 and rank 0 reaches every rank: strongly connected.
      if (reached(first, edges, ranks) != ranks || reached(rfirst, redges, ranks) != ranks)
        FAIL_CHECK("P=" << ranks << " l=" << base << ": not strongly connected");
    }
  }
}

TEST_CASE("lifeline graph: diameter <= z (l - 1)") {
  std::set<int> sizes;
  for (int p = 1; p <= 512; ++p) sizes.insert(p);
  for (int base : {2, 3, 4, 8})
    for (std::int64_t x = base; x <= 4096; x *= base)
      for (std::int64_t d : {-1, 0, 1})
        if (x + d >= 1 && x + d <= 4096) sizes.insert(static_cast<int>(x + d));
  std::mt19937 rng(2011);  // GLB's year
  for (int i = 0; i < 48; ++i) sizes.insert(std::uniform_int_distribution<int>(513, 4096)(rng));
  sizes.insert(4096);
  for (int base : {2, 3, 4, 8}) {
    for (int ranks : sizes) {
      const int z = lifeline_digits(ranks, base), bound = z * (base - 1);
      const int d = diameter(graph_of(ranks, base), bound);
      if (d < 0 || d > bound) FAIL_CHECK("P=" << ranks << " l=" << base << ": diameter " << d << " > " << bound);
    }
  }
}
