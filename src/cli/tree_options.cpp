// The tree section of the command line: type, shape and parameters, each
// converted and checked on its own.
#include <cxxopts.hpp>

#include "cli/convert.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"

namespace uts::cli {

void fill_tree(const cxxopts::ParseResult& r, TreeParams& t) {
  const std::string type = value_of<std::string>(r, "tree");
  if (auto v = parse_tree_type(type)) t.type = *v;
  else throw UsageError("-t/--tree: unknown tree type '" + type + "' (0|bin, 1|geo, 2|hybrid, 3|balanced)");
  const std::string shape = value_of<std::string>(r, "shape");
  if (auto v = parse_shape(shape)) t.shape = *v;
  else throw UsageError("-a/--shape: unknown shape '" + shape + "' (0|linear, 1|expdec, 2|cyclic, 3|fixed)");
  t.b0 = value_of<double>(r, "b0");
  t.depth = value_of<int>(r, "depth");
  t.q = value_of<double>(r, "nonleaf-prob");
  t.m = value_of<int>(r, "nonleaf-children");
  t.shift = value_of<double>(r, "shift");
  t.seed = value_of<std::int64_t>(r, "seed");
  t.granularity = value_of<int>(r, "granularity");
  const std::string rng = value_of<std::string>(r, "rng");
  if (auto v = parse_rng(rng)) t.rng = *v;
  else throw UsageError("--rng: unknown convention '" + rng + "' (uts | paper2003)");
  if (r.count("root-id")) {
    const std::string hex = value_of<std::string>(r, "root-id");
    if (auto v = parse_root_id(hex)) t.root_id = *v;
    else throw UsageError("--root-id: '" + hex + "' is not 1 to 40 hex digits");
  }
}

}  // namespace uts::cli
