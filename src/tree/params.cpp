// Tree parameters (params.hpp): validation, the geometric means, expected
// sizes, and the names of types, shapes and conventions.
#include "tree/params.hpp"

#include <cctype>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace uts {

double geometric_mean(const TreeParams& p, std::uint32_t height) {
  const double b0 = p.b0;
  const int gen_mx = p.depth;
  const auto depth = static_cast<std::int64_t>(height);
  if (depth == 0) return b0;
  switch (p.shape) {
    case GeoShape::expdec:
      return b0 * std::pow(static_cast<double>(depth), -std::log(b0) / std::log(static_cast<double>(gen_mx)));
    case GeoShape::cyclic:
      if (depth > 5 * static_cast<std::int64_t>(gen_mx)) return 0.0;
      return std::pow(b0, std::sin(2.0 * 3.141592653589793 * static_cast<double>(depth) /
                                   static_cast<double>(gen_mx)));
    case GeoShape::fixed:
      return depth < gen_mx ? b0 : 0.0;
    case GeoShape::linear:
      return b0 * (1.0 - static_cast<double>(depth) / static_cast<double>(gen_mx));
  }
  return 0.0;
}

double expected_size(const TreeParams& p) {
  const double inf = std::numeric_limits<double>::infinity();
  const double qm = p.q * p.m;
  const double binomial_subtree = qm < 1.0 ? 1.0 / (1.0 - qm) : inf;
  if (p.type == TreeType::binomial) return 1.0 + std::floor(p.b0) * binomial_subtree;
  if (p.type == TreeType::balanced) {
    double total = 0, level = 1;
    for (int h = 0; h <= p.depth && total <= kMaxUnboundedSize; ++h, level *= std::floor(p.b0)) total += level;
    return total;
  }
  // Geometric (and the geometric top of a hybrid tree): expected nodes per
  // level are products of the capped means b_h.
  const double hybrid_switch = std::ceil(p.shift * p.depth);
  double total = 0, level = 1;
  for (std::uint32_t h = 0; h < 10'000'000; ++h) {
    if (p.type == TreeType::hybrid && h >= hybrid_switch) return total + level * binomial_subtree;
    total += level;
    const double b = std::min(geometric_mean(p, h), static_cast<double>(kMaxChildrenCap));
    if (!(b > 0.0)) break;
    level *= b;
    if (total > kMaxUnboundedSize || level > kMaxUnboundedSize) return inf;
    if (level < 1e-12) break;  // deeper levels are reached with negligible probability
  }
  return total;
}

double binomial_extinction_probability(double q, int m) {
  if (m == 1) return q < 1.0 ? 1.0 : 0.0;
  // Smallest root of f(s) = 1 - q + q s^m - s in [0,1]. f is convex and
  // decreasing there, so Newton's method from s = 0 climbs to it from below.
  double s = 0.0;
  for (int i = 0; i < 200; ++i) {
    const double f = 1.0 - q + q * std::pow(s, m) - s;
    const double slope = q * m * std::pow(s, m - 1) - 1.0;
    if (slope >= 0.0) break;  // reached the critical point: s = 1 is the root
    const double next = s - f / slope;
    if (!(next > s)) break;
    s = std::min(next, 1.0);
  }
  return s;
}

double probability_finite(const TreeParams& p) {
  if (p.type != TreeType::binomial && p.type != TreeType::hybrid) return 1.0;
  if (p.q * p.m < 1.0) return 1.0;
  // A hybrid tree starts an unknown, typically large number of binomial
  // subtrees at depth shift*D: treat it as infinite.
  if (p.type == TreeType::hybrid) return 0.0;
  // A binomial tree is finite when all floor(b0) subtrees of the root die out.
  return std::pow(binomial_extinction_probability(p.q, p.m), std::floor(p.b0));
}

void validate(const TreeParams& p, bool bounded) {
  auto fail = [](const std::string& msg) { throw std::invalid_argument(msg); };
  if (!std::isfinite(p.b0) || p.b0 <= 0) fail("-b/--b0 must be a positive number");
  if (p.b0 >= 2147483648.0) fail("-b/--b0 must be below 2^31");
  if (p.depth < 0) fail("-d/--depth must not be negative");
  if (p.granularity < 1) fail("-g/--granularity must be at least 1");
  if (p.type == TreeType::binomial || p.type == TreeType::hybrid) {
    if (!(p.q >= 0.0 && p.q <= 1.0)) fail("-q/--q must lie in [0,1]");
    if (p.m < 1) fail("-m/--m must be at least 1");
    // q*m >= 1 means an infinite expected size, but near-critical trees such
    // as the reference T3L (q*m = 1.00007) are finite with high probability.
    // Refuse only trees that are more likely infinite than finite.
    if (p.q * p.m >= 1.0 && !bounded && probability_finite(p) < 0.5)
      fail("-q * -m >= 1 makes this tree more likely infinite than finite; add --max-nodes N to run it anyway");
  }
  if (p.type == TreeType::hybrid && !(p.shift >= 0.0 && std::isfinite(p.shift)))
    fail("-f/--shift must be a non-negative number");
  // q*m >= 1 is judged above by the extinction probability; everything else
  // by the expected size, so no parameter choice silently runs for ever.
  if (!bounded && !(p.type == TreeType::binomial && p.q * p.m >= 1.0)) {
    const double size = expected_size(p);
    if (!(size <= kMaxUnboundedSize)) {
      char what[64];
      std::snprintf(what, sizeof what, std::isfinite(size) ? "about %.3g nodes" : "an unbounded number of nodes", size);
      fail(std::string("these parameters give a tree of ") + what + " (over 1e15 expected); add --max-nodes N to run it anyway");
    }
  }
  if (p.rng == RngConvention::paper2003 && !p.root_id)
    fail("--rng paper2003 needs --root-id HEX");
  if (p.rng == RngConvention::uts && p.root_id)
    fail("--root-id is only meaningful with --rng paper2003");
  if (p.rng == RngConvention::uts && (p.seed < INT32_MIN || p.seed > INT32_MAX))
    fail("-r/--seed must fit in a signed 32-bit integer");
}

const char* to_string(TreeType t) {
  switch (t) {
    case TreeType::binomial: return "binomial";
    case TreeType::geometric: return "geometric";
    case TreeType::hybrid: return "hybrid";
    case TreeType::balanced: return "balanced";
  }
  return "?";
}

const char* to_string(GeoShape s) {
  switch (s) {
    case GeoShape::linear: return "linear";
    case GeoShape::expdec: return "expdec";
    case GeoShape::cyclic: return "cyclic";
    case GeoShape::fixed: return "fixed";
  }
  return "?";
}

const char* to_string(RngConvention r) { return r == RngConvention::uts ? "uts" : "paper2003"; }

namespace {
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::optional<TreeType> parse_tree_type(const std::string& text) {
  const std::string t = lower(text);
  if (t == "0" || t == "bin" || t == "binomial") return TreeType::binomial;
  if (t == "1" || t == "geo" || t == "geometric") return TreeType::geometric;
  if (t == "2" || t == "hybrid") return TreeType::hybrid;
  if (t == "3" || t == "balanced") return TreeType::balanced;
  return std::nullopt;
}

std::optional<GeoShape> parse_shape(const std::string& text) {
  const std::string t = lower(text);
  if (t == "0" || t == "linear") return GeoShape::linear;
  if (t == "1" || t == "expdec") return GeoShape::expdec;
  if (t == "2" || t == "cyclic") return GeoShape::cyclic;
  if (t == "3" || t == "fixed") return GeoShape::fixed;
  return std::nullopt;
}

std::optional<RngConvention> parse_rng(const std::string& text) {
  const std::string t = lower(text);
  if (t == "uts") return RngConvention::uts;
  if (t == "paper2003") return RngConvention::paper2003;
  return std::nullopt;
}

std::optional<sha1::Words> parse_root_id(const std::string& hex) {
  std::string digits = hex;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
    digits = digits.substr(2);
  if (digits.empty() || digits.size() > 40) return std::nullopt;
  std::uint8_t bytes[20] = {};
  // Right-align: the last hex digit is the low nibble of byte 19.
  for (std::size_t k = 0; k < digits.size(); ++k) {
    const char c = digits[digits.size() - 1 - k];
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    const int v = std::isdigit(static_cast<unsigned char>(c))
                      ? c - '0'
                      : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    bytes[19 - k / 2] |= static_cast<std::uint8_t>(v << (4 * (k % 2)));
  }
  return sha1::from_bytes(bytes);
}

}  // namespace uts
