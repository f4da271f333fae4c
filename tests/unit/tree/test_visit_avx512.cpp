// The AVX-512 step after hashing (tree/visit_avx512.cpp), and the lane
// path's scalar one (tree/visit_rows.cpp), against the scalar rules, lane by
// lane: child counts, the inner mask, the leaves, checksum and
// depth, at every batch fill, for every tree type and both RNG conventions,
// including heights past the geometric tables and variates at thresholds.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sha1/batch.hpp"
#include "sha1/sha1.hpp"
#include "tree/node.hpp"
#include "tree/tree.hpp"

using namespace uts;

namespace {

std::vector<TreeParams> trees() {
  std::vector<TreeParams> out;
  TreeParams geo;  // T1L-like: geometric, fixed shape
  geo.type = TreeType::geometric;
  geo.shape = GeoShape::fixed;
  geo.b0 = 4;
  geo.depth = 13;
  geo.seed = 29;
  out.push_back(geo);
  TreeParams deep = geo;  // deeper than the bucket tables reach
  deep.shape = GeoShape::linear;
  deep.depth = 900;
  out.push_back(deep);
  TreeParams paper = geo;  // the 2003 convention: all 32 bits of the variate
  paper.rng = RngConvention::paper2003;
  paper.root_id = sha1::Words{1, 2, 3, 4, 5};
  out.push_back(paper);
  TreeParams bin;  // T3L-like
  bin.type = TreeType::binomial;
  bin.b0 = 2000;
  bin.q = 0.200014;
  bin.m = 5;
  bin.seed = 7;
  out.push_back(bin);
  TreeParams all = bin;  // q = 1/m: every numerator below the bound
  all.q = 0.5;
  all.m = 2;
  out.push_back(all);
  TreeParams hyb;
  hyb.type = TreeType::hybrid;
  hyb.b0 = 4;
  hyb.depth = 20;
  hyb.q = 0.2;
  hyb.m = 4;
  hyb.shift = 0.5;
  hyb.seed = 3;
  out.push_back(hyb);
  TreeParams bal;
  bal.type = TreeType::balanced;
  bal.b0 = 3;
  bal.depth = 9;
  out.push_back(bal);
  TreeParams sure = bin;  // paper2003 with q = 1: the bound is 2^32, past 32 bits
  sure.rng = RngConvention::paper2003;
  sure.root_id = sha1::Words{1, 0, 0, 0, 0};
  sure.q = 1.0;
  sure.m = 1;
  out.push_back(sure);
  TreeParams wide = geo;  // counts above the 100-child cap (truncated)
  wide.b0 = 60;
  wide.depth = 3;
  out.push_back(wide);
  // Fixed shapes the row in registers covers (tree.hpp, shared_row_):
  TreeParams past = geo;  // 2.6% of the numerators past the row's 31st threshold
  past.b0 = 8;
  out.push_back(past);
  TreeParams few = geo;  // fewer than 31 thresholds: the row padded with ~0
  few.b0 = 0.3;
  out.push_back(few);
  TreeParams few32 = few;  // and with all 32 bits of the variate: numerator 2^32 - 1 equals the padding
  few32.rng = RngConvention::paper2003;
  few32.root_id = sha1::Words{1, 2, 3, 4, 5};
  out.push_back(few32);
  TreeParams tall = geo;  // deeper than the threshold tables: heights 4096 .. 4999 unsettled
  tall.b0 = 1.0;
  tall.depth = 5000;
  out.push_back(tall);
  return out;
}

// false (and says so) on a CPU without AVX-512, where `what` is not run.
bool have_avx512(const char* what) {
  if (sha1::cpu_has_avx512()) return true;
  MESSAGE("this CPU has no AVX-512: ", what, " is not run here");
  return false;
}

// What a visit of lanes 0 .. n-1 must report, summed lane by lane from the
// scalar rules.
struct ExpectedVisit {
  std::uint32_t inner = 0, kept = 0, max_height = 0;
  std::uint64_t checksum = 0;
  void add(int lane, std::uint32_t children, const sha1::Words& id, std::uint32_t height) {
    if (children != 0) {
      inner |= 1u << lane;
      ++kept;
    }
    checksum += checksum_term(id);
    max_height = height > max_height ? height : max_height;
  }
  void check(const Tree::BatchVisit& v) const {
    CHECK(v.inner == inner);
    CHECK(v.kept == kept);
    CHECK(v.checksum == checksum);
    CHECK(v.max_height == max_height);
  }
};

// Lanes 0 .. n-1 of a visit (children[], v) against the scalar rules, lane
// by lane; returns n. Ids: sha1::Ids or sha1::RowIds.
template <class Ids>
int check_visit(const Tree& scalar, const Ids& ids, const std::uint32_t* heights, int n,
                const std::uint32_t* children, const Tree::BatchVisit& v) {
  ExpectedVisit want_v;
  std::size_t bad = 0;
  for (int j = 0; j < n; ++j) {
    const sha1::Words id = ids.get(j);
    const auto want = static_cast<std::uint32_t>(scalar.num_children(id[4], heights[j]));
    bad += children[j] != want;
    want_v.add(j, want, id, heights[j]);
  }
  CHECK(bad == 0);
  want_v.check(v);
  return n;
}

// A height near the interesting edges: 0 (the root's rule, when `root`),
// small, around the depth, past the bucket tables (512), the threshold
// tables (4096), and anything.
std::uint32_t pick_height(std::mt19937& rng, const TreeParams& p, bool root) {
  const auto depth = static_cast<std::uint32_t>(p.depth);
  const std::uint32_t past_thresholds = 4095 + static_cast<std::uint32_t>(rng() % 3);
  const std::uint32_t pick[] = {1,   2, depth - 1, depth, depth + 1, 600, past_thresholds,
                                static_cast<std::uint32_t>(rng() % 1000), 0};
  return pick[rng() % (root ? 9 : 8)];
}

// A numerator within a few units of a threshold (the binomial bound q, a
// geometric count's first variate 1-(1-p)^k), where the bucket table is
// ambiguous and the scalar rule decides; k up to 34, past the 31 thresholds
// a register row holds. Or one of the largest numerators, which the row's ~0
// padding must not count.
std::uint32_t edge_numerator(std::mt19937& rng, const TreeParams& p, const Tree& tree, std::uint32_t height) {
  double u = p.q;
  if (p.type == TreeType::geometric || (p.type == TreeType::hybrid && rng() % 2)) {
    const double b = tree.geometric_mean(height);
    const double keep = b > 0 ? 1.0 - 1.0 / (1.0 + b) : 0.0;  // 1 - p
    const int k = rng() % 3 == 0 ? 28 + static_cast<int>(rng() % 7) : 1 + static_cast<int>(rng() % 6);
    u = 1.0 - std::pow(keep, k);
  }
  const double scale = p.rng == RngConvention::uts ? 2147483648.0 : 4294967296.0;
  const double near = std::floor(u * scale) + static_cast<double>(static_cast<int>(rng() % 21) - 10);
  const double v = rng() % 8 == 0 ? scale - 1 - static_cast<double>(rng() % 3) : near;
  return static_cast<std::uint32_t>(v < 0 ? 0 : v >= scale ? scale - 1 : v);
}

// n lanes of `batch` in runs of 1-6 per parent slot, each parent random and
// each slot with its own height (the children's), as the Expander queues them.
void random_slots(std::mt19937& rng, const TreeParams& p, int n, sha1::SlotBatch& batch,
                  std::uint32_t* slot_heights) {
  int lane = 0, s = 0;
  while (lane < n) {
    const int run = 1 + static_cast<int>(rng() % 6);
    const sha1::Words parent = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng()),
                                static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng()),
                                static_cast<std::uint32_t>(rng())};
    batch.put(s, parent, lane, static_cast<std::uint32_t>(rng() % 50));
    slot_heights[s] = pick_height(rng, p, false);
    lane += run;
    ++s;
  }
}

}  // namespace

TEST_CASE("AVX-512 visit of a batch equals the scalar rules lane by lane") {
  if (!have_avx512("the vector visit")) return;
  std::mt19937 rng(99);
  std::size_t lanes_checked = 0;
  for (const TreeParams& p : trees()) {
    const Tree tree(p, sha1::Path::avx512);
    const Tree scalar(p, sha1::Path::avx512);  // the same rules, asked lane by lane
    CAPTURE(static_cast<int>(p.type));
    for (int rep = 0; rep < 3000; ++rep) {
      // 1 to 32 lanes: one column of sixteen or two (a pair's), either part-filled.
      const int n = 1 + rep % (2 * sha1::kMaxLanes);
      sha1::Ids ids;
      alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes] = {};
      for (int l = 0; l < 2 * sha1::kMaxLanes; ++l) {
        for (int k = 0; k < 5; ++k) ids.word[k][l] = static_cast<std::uint32_t>(rng());
        heights[l] = pick_height(rng, p, true);
        if (rng() % 4 == 0) ids.word[4][l] = edge_numerator(rng, p, tree, heights[l]);
      }
      alignas(64) std::uint32_t children[2 * sha1::kMaxLanes];
      Tree::BatchVisit v;
      tree.visit_batch_avx512(ids, heights, n, children, v);
      lanes_checked += check_visit(scalar, ids, heights, n, children, v);
    }
    // Truncations (a count cut to the 100 cap) noted once per live lane,
    // never for the unused lanes past n.
    CHECK(tree.truncations() == scalar.truncations());
  }
  CHECK(lanes_checked > 100000);
}

TEST_CASE("the lane path's scalar visit of a row batch (Tree::visit_rows) equals the scalar rules lane by lane") {
  // Any CPU: the shani and cryptopp paths visit through it.
  std::mt19937 rng(98);
  std::size_t lanes_checked = 0;
  for (const TreeParams& p : trees()) {
    const Tree tree(p, sha1::Path::cryptopp);
    const Tree scalar(p, sha1::Path::cryptopp);
    CAPTURE(static_cast<int>(p.type));
    for (int rep = 0; rep < 3000; ++rep) {
      const int n = 1 + rep % sha1::kMaxLanes;
      sha1::RowIds ids;
      alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes] = {};
      for (int l = 0; l < sha1::kMaxLanes; ++l) {
        for (int k = 0; k < 8; ++k) ids.row[l][k] = static_cast<std::uint32_t>(rng());
        heights[l] = pick_height(rng, p, true);
        if (rng() % 4 == 0) ids.row[l][4] = edge_numerator(rng, p, tree, heights[l]);
      }
      std::uint32_t children[sha1::kMaxLanes];
      Tree::BatchVisit v;
      tree.visit_rows(ids, heights, n, children, v);
      lanes_checked += check_visit(scalar, ids, heights, n, children, v);
    }
    CHECK(tree.truncations() == scalar.truncations());
  }
  CHECK(lanes_checked > 50000);
}

TEST_CASE("Geometric trees of fixed shape count children against one row of thresholds in registers") {
  // The vector visit's binary search (visit_avx512.cpp) runs on these, so the
  // lane-by-lane tests above check it; the others gather from the buckets.
  auto row = [](double b0, int depth, GeoShape shape, RngConvention rng) {
    TreeParams p;
    p.type = TreeType::geometric;
    p.shape = shape;
    p.b0 = b0;
    p.depth = depth;
    p.rng = rng;
    if (rng == RngConvention::paper2003) p.root_id = sha1::Words{1, 2, 3, 4, 5};
    return Tree(p, sha1::Path::cryptopp).geometric_row_in_registers();
  };
  CHECK(row(4, 13, GeoShape::fixed, RngConvention::uts));  // T1L
  CHECK(row(4, 13, GeoShape::fixed, RngConvention::paper2003));
  CHECK(row(8, 13, GeoShape::fixed, RngConvention::uts));
  CHECK(row(0.3, 13, GeoShape::fixed, RngConvention::uts));
  CHECK(row(1.0, 5000, GeoShape::fixed, RngConvention::uts));
  CHECK_FALSE(row(60, 3, GeoShape::fixed, RngConvention::uts));  // most numerators past 31 thresholds
  CHECK_FALSE(row(4, 13, GeoShape::linear, RngConvention::uts));  // a row per height
  CHECK_FALSE(row(4, 13, GeoShape::cyclic, RngConvention::uts));
  CHECK_FALSE(row(4, 13, GeoShape::expdec, RngConvention::uts));
  TreeParams bin;
  bin.type = TreeType::binomial;
  CHECK_FALSE(Tree(bin, sha1::Path::cryptopp).geometric_row_in_registers());
}

TEST_CASE("AVX-512 slot batch: hashed and visited in one call equals Crypto++ and the scalar rules lane by lane") {
  if (!have_avx512("the slot batch visit")) return;
  std::mt19937 rng(17);
  std::size_t lanes_checked = 0;
  for (const TreeParams& p : trees()) {
    const Tree tree(p, sha1::Path::avx512);
    const Tree scalar(p, sha1::Path::avx512);
    CAPTURE(static_cast<int>(p.type));
    sha1::SlotBatch batch;
    for (int rep = 0; rep < 2000; ++rep) {
      const int n = 1 + rep % sha1::kMaxLanes;
      alignas(64) std::uint32_t slot_heights[sha1::kMaxLanes] = {};
      random_slots(rng, p, n, batch, slot_heights);
      sha1::Ids ids, ids2;
      alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes] = {}, heights2[2 * sha1::kMaxLanes] = {};
      alignas(64) std::uint32_t children[sha1::kMaxLanes], children2[sha1::kMaxLanes];
      Tree::BatchVisit v, v2;
      tree.hash_visit_slots_avx512(batch, slot_heights, n, ids, heights, children, v);
      sha1::child_ids_avx512(batch, ids2);
      tree.visit_slots_avx512(ids2, batch, slot_heights, n, heights2, children2, v2);
      ExpectedVisit want_v;
      std::size_t bad = 0;
      for (int j = 0; j < n; ++j) {
        const sha1::Words id = sha1::child_id(batch.parent(j), batch.index(j));
        const std::uint32_t h = slot_heights[batch.slot[j]];
        bad += ids.get(j) != id;
        bad += ids2.get(j) != id;
        bad += heights[j] != h;
        bad += heights2[j] != h;
        const auto want = static_cast<std::uint32_t>(scalar.num_children(id[4], h));
        bad += children[j] != want;
        bad += children2[j] != want;
        want_v.add(j, want, id, h);
        ++lanes_checked;
      }
      CHECK(bad == 0);
      want_v.check(v);
      want_v.check(v2);
    }
  }
  CHECK(lanes_checked > 100000);
}

TEST_CASE("AVX-512 pair of slot batches: hashed together and visited equals Crypto++ and the scalar rules lane by lane") {
  if (!have_avx512("the slot batch pair")) return;
  std::mt19937 rng(23);
  std::size_t lanes_checked = 0;
  for (const TreeParams& p : trees()) {
    const Tree tree(p, sha1::Path::avx512);
    const Tree scalar(p, sha1::Path::avx512);
    CAPTURE(static_cast<int>(p.type));
    sha1::SlotBatch pair[2];
    for (int rep = 0; rep < 1000; ++rep) {
      const int n = 1 + rep % sha1::kMaxLanes;  // the second batch's fill; the first is full
      CAPTURE(n);
      alignas(64) std::uint32_t slot_heights[2][sha1::kMaxLanes] = {};
      random_slots(rng, p, sha1::kMaxLanes, pair[0], slot_heights[0]);
      random_slots(rng, p, n, pair[1], slot_heights[1]);
      sha1::Ids ids;
      alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes] = {};
      alignas(64) std::uint32_t children[2 * sha1::kMaxLanes];
      Tree::BatchVisit v;
      tree.hash_visit_slot_pair_avx512(pair[0], slot_heights[0], pair[1], slot_heights[1], n, ids, heights, children,
                                       v);
      ExpectedVisit want_v;
      std::size_t bad = 0;
      for (int j = 0; j < sha1::kMaxLanes + n; ++j) {
        const int q = j / sha1::kMaxLanes, l = j % sha1::kMaxLanes;
        const sha1::Words id = sha1::child_id(pair[q].parent(l), pair[q].index(l));
        const std::uint32_t h = slot_heights[q][pair[q].slot[l]];
        bad += ids.get(j) != id;
        bad += heights[j] != h;
        const auto want = static_cast<std::uint32_t>(scalar.num_children(id[4], h));
        bad += children[j] != want;
        want_v.add(j, want, id, h);
        ++lanes_checked;
      }
      CHECK(bad == 0);
      want_v.check(v);
    }
  }
  CHECK(lanes_checked > 100000);
}

#if defined(__x86_64__)
#include <immintrin.h>

#include "tree/row_search_avx512.hpp"

namespace {

// Sixteen numerators through the row search; counts and unsettled lanes out.
__attribute__((target("avx512f,avx512vl"))) void search_row(const std::uint32_t (&row)[32],
                                                           const std::uint32_t (&probe)[5][32], std::uint32_t cap,
                                                           const std::uint32_t* v, std::uint32_t* n,
                                                           std::uint16_t& unsettled) {
  __mmask16 u = 0;
  const __m512i counts = row_search::shared_row_lanes(
      _mm512_loadu_si512(v), _mm512_setzero_si512(), row, probe, /*below=*/1, cap, /*no_children_from=*/1,
      /*margin=*/8, u);
  _mm512_storeu_si512(n, counts);
  unsettled = u;
}

}  // namespace

TEST_CASE("AVX-512 row search: exact counts, and every lane the scalar rule would settle by the formula is flagged") {
  if (!have_avx512("the row search")) return;
  // Rows as build_shared_row makes them: `count` ascending thresholds, ~0
  // past them and at index 31. Near a threshold (within the margin of 8)
  // the scalar rule (tree.hpp, geometric_children) uses the exact formula,
  // so the vector search must flag those lanes: the end-to-end tests cannot
  // see a missed flag unless log() rounds across a threshold right there.
  struct Case {
    const char* what;
    std::vector<std::uint32_t> thresholds;
  };
  std::vector<Case> cases;
  auto geometric = [](double keep, double scale, int count) {
    std::vector<std::uint32_t> t;
    for (int j = 1; j <= count; ++j)
      t.push_back(static_cast<std::uint32_t>(std::ceil(scale * (1.0 - std::pow(keep, j)))));
    return t;
  };
  cases.push_back({"b0 = 4, 31-bit (T1L's row)", geometric(0.8, 2147483648.0, 31)});
  cases.push_back({"b0 = 8, 31-bit", geometric(8.0 / 9.0, 2147483648.0, 31)});
  cases.push_back({"5 thresholds, padded", geometric(0.2, 2147483648.0, 5)});
  cases.push_back({"b0 = 4, 32-bit", geometric(0.8, 4294967296.0, 31)});
  cases.push_back({"thresholds at the ends of 32 bits", {0, 1, 9, 0x80000000u, 0xFFFFFFF0u, 0xFFFFFFFEu}});
  cases.push_back({"equal neighbours", {100, 100, 5000, 5000, 5008, 0x7FFFFFF0u}});
  std::size_t lanes = 0, flagged = 0;
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const int count = static_cast<int>(c.thresholds.size());
    alignas(64) std::uint32_t row[32];
    for (int j = 0; j < 32; ++j)
      row[j] = j < std::min(count, 31) ? c.thresholds[static_cast<std::size_t>(j)] : 0xFFFFFFFFu;
    alignas(64) std::uint32_t probe[5][32];
    row_search::build_probes(row, probe);
    const auto cap = static_cast<std::uint32_t>(std::min(count, 30));
    std::vector<std::uint32_t> vs = {0, 1, 7, 8, 9, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFF7u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (std::uint32_t t : c.thresholds)
      for (int d = -12; d <= 12; ++d) vs.push_back(t + static_cast<std::uint32_t>(d));
    while (vs.size() % 16 != 0) vs.push_back(vs.back());
    for (std::size_t i = 0; i < vs.size(); i += 16) {
      std::uint32_t n[16];
      std::uint16_t unsettled = 0;
      search_row(row, probe, cap, vs.data() + i, n, unsettled);
      for (int l = 0; l < 16; ++l) {
        const std::uint64_t v = vs[i + static_cast<std::size_t>(l)];
        // The scalar rule's count and nearness, over the real thresholds in 64 bits.
        int ns = 0;
        while (ns < count && v >= c.thresholds[static_cast<std::size_t>(ns)]) ++ns;
        const bool near = (ns > 0 && v - c.thresholds[static_cast<std::size_t>(ns - 1)] < 8) ||
                          (ns < count && c.thresholds[static_cast<std::size_t>(ns)] - v <= 8);
        const bool must = near || ns > static_cast<int>(cap);
        const bool got = (unsettled >> l) & 1;
        CAPTURE(v);
        CHECK((!must || got));
        if (!got) CHECK(n[l] == static_cast<std::uint32_t>(ns));
        ++lanes;
        flagged += got;
      }
    }
  }
  CHECK(lanes > 1000);
  CHECK(flagged > lanes / 2);  // most numerators here sit within the margin of a threshold
}
#endif

TEST_CASE("AVX-512 visit: lanes past the count never note a truncation") {
  if (!have_avx512("the visit's dead lanes")) return;
  TreeParams wide;  // geometric, b0 = 60: the largest numerators give counts past the 100 cap
  wide.type = TreeType::geometric;
  wide.shape = GeoShape::fixed;
  wide.b0 = 60;
  wide.depth = 3;
  const Tree tree(wide, sha1::Path::avx512);
  const Tree scalar(wide, sha1::Path::avx512);
  for (int n = 1; n < 2 * sha1::kMaxLanes; ++n) {
    sha1::Ids ids;
    alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes];
    for (int l = 0; l < 2 * sha1::kMaxLanes; ++l) {
      for (int k = 0; k < 5; ++k) ids.word[k][l] = static_cast<std::uint32_t>(l * 7 + k);
      ids.word[4][l] = l < n ? static_cast<std::uint32_t>(l) * 1000u : 0x7FFFFFFFu;  // dead lanes: truncating
      heights[l] = 1;
    }
    alignas(64) std::uint32_t children[2 * sha1::kMaxLanes];
    Tree::BatchVisit v;
    tree.visit_batch_avx512(ids, heights, n, children, v);
    for (int l = 0; l < n; ++l)
      CHECK(children[l] == static_cast<std::uint32_t>(scalar.num_children(ids.word[4][l], heights[l])));
  }
  CHECK(scalar.truncations() == 0);
  CHECK(tree.truncations() == 0);
  // And a live lane that truncates is noted once.
  sha1::Ids ids{};
  alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes] = {};
  for (int l = 0; l < 2 * sha1::kMaxLanes; ++l) heights[l] = 1;
  ids.word[4][0] = 0x7FFFFFFFu;
  alignas(64) std::uint32_t children[2 * sha1::kMaxLanes];
  Tree::BatchVisit v;
  tree.visit_batch_avx512(ids, heights, 1, children, v);
  CHECK(children[0] == static_cast<std::uint32_t>(scalar.num_children(0x7FFFFFFFu, 1)));
  CHECK(tree.truncations() == 1);
}

#if defined(__x86_64__)
#include "tree/visit_lanes_avx512.hpp"

namespace {
// The inlined pair visit, in a function compiled for AVX-512 (it is
// always_inline with AVX-512 targets, as in the kernel's step).
__attribute__((target("avx512f,avx512vl,popcnt"))) void pair_visit_in_kernel(
    const Tree& tree, const sha1::Ids& ids, const sha1::SlotBatch* pair, const std::uint32_t (*slot_heights)[16], int n,
    std::uint32_t* heights, std::uint32_t* children, Tree::BatchVisit& v) {
  PairVisitInKernel::run(tree, ids, pair[0], slot_heights[0], pair[1], slot_heights[1], n, heights, children, v);
}
}  // namespace

TEST_CASE("AVX-512 pair visit inlined into the kernel equals the out-of-line one and the scalar rules") {
  if (!have_avx512("the pair visit in the kernel")) return;
  std::mt19937 rng(41);
  std::size_t lanes_checked = 0;
  int available = 0;
  for (const TreeParams& p : trees()) {
    const Tree tree(p, sha1::Path::avx512);
    const Tree scalar(p, sha1::Path::avx512);
    CAPTURE(static_cast<int>(p.type));
    // The rule it has: the fixed-shape geometric row, nothing else.
    CHECK(PairVisitInKernel::available(tree) ==
          (p.type == TreeType::geometric && tree.geometric_row_in_registers()));
    if (!PairVisitInKernel::available(tree)) continue;
    ++available;
    sha1::SlotBatch pair[2];
    for (int rep = 0; rep < 2000; ++rep) {
      const int n = rep % (sha1::kMaxLanes + 1);  // the second batch's fill, 0 to 16
      CAPTURE(n);
      alignas(64) std::uint32_t slot_heights[2][sha1::kMaxLanes] = {};
      random_slots(rng, p, sha1::kMaxLanes, pair[0], slot_heights[0]);
      random_slots(rng, p, n == 0 ? 1 : n, pair[1], slot_heights[1]);
      sha1::Ids ids;
      for (int j = 0; j < 2 * sha1::kMaxLanes; ++j) {
        const int q = j / sha1::kMaxLanes, l = j % sha1::kMaxLanes;
        for (int k = 0; k < 5; ++k) ids.word[k][j] = static_cast<std::uint32_t>(rng());
        // Numerators near thresholds and past the row: lanes the vector
        // rule leaves to the scalar one.
        if (rng() % 3 == 0) ids.word[4][j] = edge_numerator(rng, p, tree, slot_heights[q][pair[q].slot[l]]);
      }
      alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes] = {}, want_heights[2 * sha1::kMaxLanes] = {};
      alignas(64) std::uint32_t children[2 * sha1::kMaxLanes] = {}, want_children[2 * sha1::kMaxLanes] = {};
      Tree::BatchVisit v, want;
      pair_visit_in_kernel(tree, ids, pair, slot_heights, n, heights, children, v);
      tree.visit_slot_pair_avx512(ids, pair[0], slot_heights[0], pair[1], slot_heights[1], n, want_heights,
                                  want_children, want);
      const int lanes = sha1::kMaxLanes + n;
      std::size_t bad = 0;
      for (int j = 0; j < lanes; ++j) {
        bad += heights[j] != want_heights[j];
        bad += children[j] != want_children[j];
      }
      CHECK(bad == 0);
      CHECK(v.inner == want.inner);
      CHECK(v.kept == want.kept);
      CHECK(v.checksum == want.checksum);
      CHECK(v.max_height == want.max_height);
      lanes_checked += static_cast<std::size_t>(check_visit(scalar, ids, heights, lanes, children, v));
    }
  }
  CHECK(available >= 2);  // T1L-like, in both conventions, and the other fixed shapes
  CHECK(lanes_checked > 100000);
}
#endif
