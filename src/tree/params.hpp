// Parameters that define one UTS tree (docs/tree-rules.md, section 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sha1/words.hpp"

namespace uts {

inline constexpr int kMaxChildrenCap = 100;  // every node but the binomial root

enum class TreeType { binomial = 0, geometric = 1, hybrid = 2, balanced = 3 };
enum class GeoShape { linear = 0, expdec = 1, cyclic = 2, fixed = 3 };
enum class RngConvention { uts, paper2003 };

struct TreeParams {
  TreeType type = TreeType::geometric;
  GeoShape shape = GeoShape::linear;
  double b0 = 4.0;             // -b: root branching factor / geometric mean
  int depth = 6;               // -d: gen_mx, the depth parameter D
  double q = 15.0 / 64.0;      // -q: binomial probability of a non-leaf
  int m = 4;                   // -m: binomial number of children
  double shift = 0.5;          // -f: hybrid switch depth as a fraction of D
  std::int64_t seed = 0;       // -r: root seed (uts convention)
  int granularity = 1;         // -g: SHA-1 evaluations per child
  RngConvention rng = RngConvention::uts;
  std::optional<sha1::Words> root_id;  // --root-id (paper2003 convention)
};

// Throws std::invalid_argument with a one-line message naming the option when
// the parameters cannot define a finite, well-formed tree. `bounded` says a
// --max-nodes limit is set, which permits supercritical binomial trees.
void validate(const TreeParams& p, bool bounded);

// The geometric rule's mean b_h at height h, as the reference computes it.
double geometric_mean(const TreeParams& p, std::uint32_t height);

// Expected number of nodes (infinity when it diverges). Caps are applied to
// the means, so this is an estimate, used only to refuse absurd trees.
double expected_size(const TreeParams& p);
inline constexpr double kMaxUnboundedSize = 1e15;

// Probability that one binomial subtree (m children with probability q) is
// finite, and that the whole tree is.
double binomial_extinction_probability(double q, int m);
double probability_finite(const TreeParams& p);

const char* to_string(TreeType t);
const char* to_string(GeoShape s);
const char* to_string(RngConvention r);

// Accept either the number or the name ("1", "geo", "geometric").
std::optional<TreeType> parse_tree_type(const std::string& text);
std::optional<GeoShape> parse_shape(const std::string& text);
std::optional<RngConvention> parse_rng(const std::string& text);
// 1 to 40 hex digits, right-aligned into 160 bits; nullopt if malformed.
std::optional<sha1::Words> parse_root_id(const std::string& hex);

}  // namespace uts
