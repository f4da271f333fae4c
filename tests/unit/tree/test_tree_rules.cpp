// tree/: the generation rules (docs/tree-rules.md) and node visits.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "sha1/sha1.hpp"
#include "tree/counts.hpp"
#include "tree/tree.hpp"

using namespace uts;

namespace {
TreeParams geometric(GeoShape shape, double b0, int depth) {
  TreeParams p;
  p.type = TreeType::geometric;
  p.shape = shape;
  p.b0 = b0;
  p.depth = depth;
  return p;
}

TreeParams binomial(double b0, double q, int m) {
  TreeParams p;
  p.type = TreeType::binomial;
  p.b0 = b0;
  p.q = q;
  p.m = m;
  return p;
}

// The id word 4 whose uts-convention variate is u (u a multiple of 2^-31).
std::uint32_t x_for(double u) { return static_cast<std::uint32_t>(u * 2147483648.0); }
}  // namespace

TEST_CASE("variate: bytes 16..19 big-endian, per RNG convention") {
  TreeParams p;
  const Tree uts_tree(p);
  CHECK(uts_tree.variate(0x00000000u) == 0.0);
  CHECK(uts_tree.variate(0x80000000u) == 0.0);  // the top bit is masked off
  CHECK(uts_tree.variate(0x40000000u) == 0.5);
  CHECK(uts_tree.variate(0xFFFFFFFFu) == 2147483647.0 / 2147483648.0);
  p.rng = RngConvention::paper2003;
  p.root_id = sha1::Words{};
  const Tree paper_tree(p);
  CHECK(paper_tree.variate(0x80000000u) == 0.5);
  CHECK(paper_tree.variate(0xFFFFFFFFu) == 4294967295.0 / 4294967296.0);
}

TEST_CASE("binomial rule: floor(b0) at the root, m children iff u < q") {
  const Tree t(binomial(2000.7, 0.25, 8));
  CHECK(t.num_children(0, 0) == 2000);
  CHECK(t.num_children(x_for(0.0), 5) == 8);
  CHECK(t.num_children(x_for(0.25) - 1, 5) == 8);
  CHECK(t.num_children(x_for(0.25), 5) == 0);  // u == q is a leaf
  CHECK(t.num_children(0xFFFFFFFFu, 1) == 0);
}

TEST_CASE("geometric rule: n = floor(log(1-u)/log(1-p)), p = 1/(1+b_h)") {
  const Tree t(geometric(GeoShape::fixed, 4.0, 10));
  for (double u : {0.1, 0.5, 0.75, 0.9, 0.99}) {
    const double expect = std::floor(std::log(1.0 - u) / std::log(1.0 - 1.0 / 5.0));
    CHECK(t.num_children(x_for(u), 3) == static_cast<int>(expect));
  }
  SUBCASE("u = 0 gives no children") { CHECK(t.num_children(0, 3) == 0); }
  SUBCASE("b_h = 0 (fixed shape at h >= D) gives no children even for u near 1") {
    CHECK(t.geometric_mean(10) == 0.0);
    CHECK(t.num_children(0x7FFFFFFFu, 10) == 0);
    CHECK(t.num_children(0x7FFFFFFFu, 11) == 0);
    CHECK(t.num_children(0x7FFFFFFFu, 9) > 0);
  }
}

TEST_CASE("geometric shapes give b_h as the reference computes it") {
  CHECK(Tree(geometric(GeoShape::linear, 4.0, 20)).geometric_mean(5) == 4.0 * (1.0 - 5.0 / 20.0));
  CHECK(Tree(geometric(GeoShape::linear, 4.0, 20)).geometric_mean(20) == 0.0);
  CHECK(Tree(geometric(GeoShape::expdec, 4.0, 16)).geometric_mean(3) ==
        4.0 * std::pow(3.0, -std::log(4.0) / std::log(16.0)));
  const Tree cyclic(geometric(GeoShape::cyclic, 6.0, 16));
  CHECK(cyclic.geometric_mean(0) == 6.0);
  CHECK(cyclic.geometric_mean(4) == std::pow(6.0, std::sin(2.0 * 3.141592653589793 * 4.0 / 16.0)));
  SUBCASE("cyclic cut-off: b_h = 0 only past 5D") {
    CHECK(cyclic.geometric_mean(80) == std::pow(6.0, std::sin(2.0 * 3.141592653589793 * 80.0 / 16.0)));
    CHECK(cyclic.geometric_mean(81) == 0.0);
    CHECK(cyclic.num_children(0x7FFFFFFFu, 81) == 0);
  }
}

TEST_CASE("caps: 100 children for every node but the binomial root, counted once per node") {
  const Tree big(geometric(GeoShape::fixed, 1000.0, 5));
  CHECK(big.truncations() == 0);
  CHECK(big.num_children(0x7FFFFFFFu, 0) == kMaxChildren);  // the geometric root is capped
  CHECK(big.num_children(0x7FFFFFFFu, 2) == kMaxChildren);
  CHECK(big.truncations() == 2);
  const Tree wide_root(binomial(5000.0, 0.1, 3));
  CHECK(wide_root.num_children(0, 0) == 5000);  // the binomial root keeps floor(b0)
  CHECK(wide_root.truncations() == 0);
}

TEST_CASE("hybrid: geometric below shift*D, binomial from there, no binomial root rule") {
  TreeParams p = geometric(GeoShape::fixed, 4.0, 10);
  p.type = TreeType::hybrid;
  p.shift = 0.25;  // geometric for h < 2.5, i.e. h = 0, 1, 2
  p.q = 0.5;
  p.m = 7;
  const Tree t(p);
  const std::uint32_t x = x_for(0.9);
  const int geo = static_cast<int>(std::floor(std::log(1.0 - 0.9) / std::log(1.0 - 1.0 / 5.0)));
  CHECK(t.num_children(x, 0) == geo);
  CHECK(t.num_children(x, 2) == geo);
  CHECK(t.num_children(x, 3) == 0);              // binomial, u >= q
  CHECK(t.num_children(x_for(0.1), 3) == 7);     // binomial, u < q
  p.shift = 0.0;                                 // binomial everywhere, the root too
  CHECK(Tree(p).num_children(x_for(0.1), 0) == 7);
}

TEST_CASE("balanced: floor(b0) children above depth D, none from D on") {
  TreeParams p;
  p.type = TreeType::balanced;
  p.b0 = 3.9;
  p.depth = 4;
  const Tree t(p);
  CHECK(t.num_children(0, 0) == 3);
  CHECK(t.num_children(0xFFFFFFFFu, 3) == 3);
  CHECK(t.num_children(0, 4) == 0);
}

TEST_CASE("granularity repeats the hash without changing the id") {
  TreeParams p = geometric(GeoShape::fixed, 4.0, 10);
  const Tree one(p);
  p.granularity = 5;
  const Tree five(p);
  const Node root = one.root();
  CHECK(one.child_id(root.id, 3) == five.child_id(root.id, 3));
  CHECK(one.child_id(root.id, 3) == sha1::child_id(root.id, 3));
}

TEST_CASE("root ids per convention") {
  TreeParams p = geometric(GeoShape::fixed, 4.0, 10);
  p.seed = 19;
  std::uint8_t message[20] = {};
  message[19] = 19;
  CHECK(Tree(p).root().id == sha1::digest(message, 20));
  p.rng = RngConvention::paper2003;
  p.root_id = parse_root_id("101");
  CHECK(Tree(p).root().id == sha1::Words{0, 0, 0, 0, 0x101});
}

TEST_CASE("visit: leaves are finished at once, depth counts every node (a stopped run's depth is real)") {
  Counts c;
  Node leaf{{1, 2, 3, 4, 5}, 7, 0};
  Node inner{{0, 9, 0, 0, 0}, 9, 3};
  CHECK_FALSE(visit(leaf, c));
  CHECK(visit(inner, c));
  CHECK(c.nodes == 2);
  CHECK(c.leaves == 1);
  CHECK(c.max_depth == 9);
  CHECK(c.checksum == ((std::uint64_t{1} << 32) | 2) + 9);
}

TEST_CASE("geometric fast path agrees with the log formula everywhere, thresholds included") {
  std::mt19937_64 rng(7);
  struct Case {
    GeoShape shape;
    double b0;
    int depth;
    RngConvention conv;
  };
  const Case cases[] = {{GeoShape::fixed, 4.0, 10, RngConvention::uts},
                        {GeoShape::cyclic, 6.0, 16, RngConvention::uts},
                        {GeoShape::linear, 4.0, 20, RngConvention::uts},
                        {GeoShape::expdec, 3.0, 12, RngConvention::uts},
                        {GeoShape::fixed, 150.0, 3, RngConvention::uts},  // truncations
                        {GeoShape::fixed, 0.01, 5, RngConvention::uts},   // tiny mean
                        {GeoShape::cyclic, 7.0, 23, RngConvention::paper2003}};
  for (const Case& c : cases) {
    TreeParams p = geometric(c.shape, c.b0, c.depth);
    p.rng = c.conv;
    if (c.conv == RngConvention::paper2003) p.root_id = sha1::Words{};
    const Tree t(p);
    const std::uint64_t range = c.conv == RngConvention::uts ? (1ull << 31) : (1ull << 32);
    for (std::uint32_t h = 0; h < static_cast<std::uint32_t>(c.depth) * 5 + 3; ++h) {
      // Random numerators, and a sweep around every place the count changes.
      for (int i = 0; i < 2000; ++i) {
        const auto x = static_cast<std::uint32_t>(rng());
        REQUIRE(t.num_children(x, h) == t.num_children_exact(x, h));
      }
      for (int k = 1; k <= kMaxChildren + 1; ++k) {
        const double target = 1.0 - std::exp(k * std::log(1.0 - 1.0 / (1.0 + t.geometric_mean(h))));
        if (!(target > 0.0 && target < 1.0)) continue;
        const auto centre = static_cast<std::int64_t>(target * static_cast<double>(range));
        for (std::int64_t v = centre - 40; v <= centre + 40; ++v) {
          if (v < 0 || v >= static_cast<std::int64_t>(range)) continue;
          const auto x = static_cast<std::uint32_t>(v);
          REQUIRE(t.num_children(x, h) == t.num_children_exact(x, h));
        }
      }
    }
  }
}

TEST_CASE("expected size: exact for balanced and binomial trees, infinite when the means never decay") {
  TreeParams balanced;
  balanced.type = TreeType::balanced;
  balanced.b0 = 3;
  balanced.depth = 5;
  CHECK(expected_size(balanced) == 364.0);  // (3^6 - 1) / 2
  CHECK(expected_size(binomial(2000, 0.124875, 8)) == doctest::Approx(1.0 + 2000.0 / (1.0 - 0.999)));
  CHECK(std::isinf(expected_size(binomial(2000, 0.25, 4))));
  CHECK(std::isinf(expected_size(geometric(GeoShape::expdec, 4.0, 0))));  // b_h = b0 at every depth
  CHECK(expected_size(geometric(GeoShape::fixed, 4.0, 10)) == doctest::Approx((std::pow(4.0, 11) - 1) / 3));
}
