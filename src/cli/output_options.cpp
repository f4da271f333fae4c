// The output section of the command line: format, record file, progress,
// verbosity, --max-nodes and the expected values --verify compares with.
#include <cxxopts.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <vector>

#include "cli/convert.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"

namespace uts::cli {

namespace {

constexpr std::int64_t kMaxLevel = std::numeric_limits<int>::max();

// -v, -v N, -v -v: each -v adds its level (1 when it has none).
int verbose_level(const cxxopts::ParseResult& r) {
  if (!r.count("verbose")) return 0;
  std::vector<std::string> levels;
  try {
    levels = r["verbose"].as<std::vector<std::string>>();
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError("-v/--verbose: " + plain_quotes(e.what()));
  }
  if (levels.empty()) throw UsageError("-v/--verbose: empty level");
  std::int64_t total = 0;
  for (const std::string& text : levels) {
    std::int64_t v = -1;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || v < 0 || v > kMaxLevel)
      throw UsageError("-v/--verbose: '" + text + "' is not a level from 0 to " + std::to_string(kMaxLevel));
    total = std::min(total + v, kMaxLevel);
  }
  return static_cast<int>(total);
}

}  // namespace

// What to stop at, what to compare with, and what to print.
void fill_output(const cxxopts::ParseResult& r, RunConfig& cfg) {
  if (r.count("max-nodes")) {
    cfg.stop.max_nodes = value_of<std::uint64_t>(r, "max-nodes");
    if (cfg.stop.max_nodes < 1) throw UsageError("--max-nodes must be at least 1");
  }
  if (r.count("expect-size")) cfg.expected.size = value_of<std::uint64_t>(r, "expect-size");
  if (r.count("expect-depth")) cfg.expected.depth = value_of<std::uint64_t>(r, "expect-depth");
  if (r.count("expect-leaves")) cfg.expected.leaves = value_of<std::uint64_t>(r, "expect-leaves");
  cfg.verify = flag_on(r, "verify");
  if (cfg.verify && !cfg.expected.any() && !cfg.preset_base.empty())
    throw UsageError("--verify: the tree options changed preset " + cfg.preset_base +
                     "'s tree, so its expected values do not apply (give --expect-size/-depth/-leaves)");
  if (cfg.verify && !cfg.expected.any())
    throw UsageError("--verify: no expected values (use a preset that has them, or --expect-size/-depth/-leaves)");

  const std::string format = value_of<std::string>(r, "format");
  if (format == "text") cfg.format = Format::text;
  else if (format == "json") cfg.format = Format::json;
  else if (format == "csv") cfg.format = Format::csv;
  else throw UsageError("--format: '" + format + "' is not text, json or csv");
  if (r.count("output")) {
    cfg.output_file = value_of<std::string>(r, "output");
    if (cfg.output_file.empty()) throw UsageError("--output: empty file name");
  }
  // Each flag as its value says: --progress=0 --no-progress is consistent
  // (off), --progress=false alone leaves the automatic choice.
  const bool progress = flag_on(r, "progress"), no_progress = flag_on(r, "no-progress");
  if (progress && no_progress) throw UsageError("--progress and --no-progress contradict each other");
  if (progress) cfg.progress = Progress::on;
  if (no_progress) cfg.progress = Progress::off;
  cfg.verbose = verbose_level(r);
}

}  // namespace uts::cli
