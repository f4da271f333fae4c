#include "cli/options.hpp"

#include <cxxopts.hpp>

#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "cli/config_file.hpp"
#include "cli/usage_error.hpp"
#include "parallel/policy.hpp"

namespace uts::cli {

namespace {

// Options a config or preset file may set (everything that describes a run,
// nothing that only acts, like --help).
const char* const kFileKeys[] = {"tree", "shape", "b0", "depth", "nonleaf-prob", "nonleaf-children", "shift", "seed",
                                 "granularity", "rng", "root-id", "threads", "steal",
                                 "victim", "init", "max-nodes", "expect-size",
                                 "expect-depth", "expect-leaves", "format"};

cxxopts::Options make_options() {
  cxxopts::Options o("uts", "Unbalanced Tree Search on per-thread split deques (OpenMP)");
  o.custom_help("[options]   e.g.  uts -t 1 -a 3 -d 10 -b 4 -r 19   or   uts --preset T1L");
  // clang-format off
  o.add_options("Tree")
    ("t,tree", "tree type: 0|bin|binomial, 1|geo|geometric, 2|hybrid, 3|balanced", cxxopts::value<std::string>()->default_value("geo"))
    ("a,shape", "geometric shape: 0|linear, 1|expdec, 2|cyclic, 3|fixed", cxxopts::value<std::string>()->default_value("linear"))
    ("b,b0", "root branching factor (binomial) / mean children (geometric, balanced)", cxxopts::value<std::string>()->default_value("4.0"))
    ("d,depth", "depth parameter D (geometric, hybrid, balanced)", cxxopts::value<std::string>()->default_value("6"))
    ("q,nonleaf-prob", "binomial: probability that a node has m children", cxxopts::value<std::string>()->default_value("0.234375"))
    ("m,nonleaf-children", "binomial: number of children of a non-leaf", cxxopts::value<std::string>()->default_value("4"))
    ("f,shift", "hybrid: geometric rule below depth shift*D, binomial from there", cxxopts::value<std::string>()->default_value("0.5"))
    ("r,seed", "root seed (uts RNG convention)", cxxopts::value<std::string>()->default_value("0"))
    ("g,granularity", "SHA-1 evaluations per child (compute granularity)", cxxopts::value<std::string>()->default_value("1"))
    ("rng", "RNG convention: uts (UTS 2.x reference) | paper2003", cxxopts::value<std::string>()->default_value("uts"))
    ("root-id", "paper2003: root id as up to 40 hex digits, right-aligned", cxxopts::value<std::string>())
    ("preset", "load a tree preset by name (see --list-presets)", cxxopts::value<std::string>())
    ("config", "load options from a key = value file", cxxopts::value<std::string>())
    ("list-presets", "list the tree presets and exit");
  o.add_options("Engine")
    ("threads", "number of threads (default: OMP_NUM_THREADS or all cores)", cxxopts::value<std::string>())
    ("sequential", "run the sequential depth-first baseline")
    ("steal", "nodes per steal: half | one | chunk:K", cxxopts::value<std::string>()->default_value("half"))
    ("victim", "victim selection: random | linear | tree", cxxopts::value<std::string>()->default_value("random"))
    ("init", "root start: root (thread 0 expands it) | balanced (children split in blocks)", cxxopts::value<std::string>()->default_value("root"))
    ("max-nodes", "stop after about N nodes and say so (safety valve)", cxxopts::value<std::string>());
  o.add_options("Output")
    ("format", "text | json | csv", cxxopts::value<std::string>()->default_value("text"))
    ("output", "append the json (or csv with --format csv) record to FILE", cxxopts::value<std::string>())
    ("verify", "compare with the expected size/depth/leaves; exit 1 on mismatch")
    ("expect-size", "expected tree size (presets set it)", cxxopts::value<std::string>())
    ("expect-depth", "expected tree depth", cxxopts::value<std::string>())
    ("expect-leaves", "expected number of leaves", cxxopts::value<std::string>())
    ("progress", "show a live progress line on stderr")
    ("no-progress", "never show the progress line")
    ("v,verbose", "more detail (per-thread table in text output)")
    ("h,help", "print this help and exit")
    ("version", "print the version and exit");
  // clang-format on
  return o;
}

std::string plain_quotes(std::string s) {
  // cxxopts quotes names with U+2018/U+2019; keep messages plain ASCII.
  for (const char* q : {"\u2018", "\u2019"}) {
    for (auto pos = s.find(q); pos != std::string::npos; pos = s.find(q)) s.replace(pos, 3, "'");
  }
  return s;
}

cxxopts::ParseResult parse_tokens(cxxopts::Options& options, const std::vector<std::string>& tokens) {
  std::vector<const char*> argv;
  argv.reserve(tokens.size());
  for (const std::string& t : tokens) argv.push_back(t.c_str());
  try {
    auto result = options.parse(static_cast<int>(argv.size()), argv.data());
    if (!result.unmatched().empty()) throw UsageError("unexpected argument '" + result.unmatched().front() + "'");
    return result;
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(plain_quotes(e.what()));
  }
}

// Files may also use the reference's one-letter names (q = 0.2, m = 5).
std::string long_name(const std::string& key) {
  static const std::pair<const char*, const char*> kLetters[] = {
      {"t", "tree"}, {"a", "shape"}, {"b", "b0"}, {"d", "depth"}, {"q", "nonleaf-prob"},
      {"m", "nonleaf-children"}, {"f", "shift"}, {"r", "seed"}, {"g", "granularity"}};
  for (const auto& [letter, name] : kLetters)
    if (key == letter) return name;
  return key;
}

bool allowed_in_file(const std::string& key) {
  for (const char* k : kFileKeys)
    if (key == k) return true;
  return false;
}

std::string label(const std::string& name) {
  static const std::pair<const char*, const char*> kShort[] = {
      {"tree", "-t"}, {"shape", "-a"}, {"b0", "-b"}, {"depth", "-d"}, {"nonleaf-prob", "-q"},
      {"nonleaf-children", "-m"}, {"shift", "-f"}, {"seed", "-r"}, {"granularity", "-g"}};
  for (const auto& [long_name, short_name] : kShort)
    if (name == long_name) return std::string(short_name) + "/--" + name;
  return "--" + name;
}

template <class T>
T value_of(const cxxopts::ParseResult& r, const std::string& name);

template <>
std::string value_of<std::string>(const cxxopts::ParseResult& r, const std::string& name) {
  try {
    return r[name].as<std::string>();
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(label(name) + ": " + plain_quotes(e.what()));
  }
}

// Whole-string numeric conversions, so "12x", "3.5" for an integer or "nan"
// are refused with the option's name.
template <>
double value_of<double>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::string text = value_of<std::string>(r, name);
  double v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || !std::isfinite(v))
    throw UsageError(label(name) + ": '" + text + "' is not a finite number");
  return v;
}

template <>
std::int64_t value_of<std::int64_t>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::string text = value_of<std::string>(r, name);
  std::int64_t v = 0;
  const char* begin = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
  const auto res = std::from_chars(begin, text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size())
    throw UsageError(label(name) + ": '" + text + "' is not an integer in range");
  return v;
}

template <>
int value_of<int>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::int64_t v = value_of<std::int64_t>(r, name);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw UsageError(label(name) + ": " + std::to_string(v) + " is out of range");
  return static_cast<int>(v);
}

template <>
std::uint64_t value_of<std::uint64_t>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::string text = value_of<std::string>(r, name);
  std::uint64_t v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size())
    throw UsageError(label(name) + ": '" + text + "' is not a non-negative integer");
  return v;
}

// Converts and checks every option's value (not the combination of them).
void fill_config(const cxxopts::ParseResult& r, RunConfig& cfg, int default_threads = 1) {
  TreeParams& t = cfg.tree;
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

  EngineSettings& e = cfg.engine;
  e.sequential = r.count("sequential") > 0;
  e.threads = r.count("threads") ? value_of<int>(r, "threads") : default_threads;
  if (e.threads < 1) throw UsageError("--threads must be at least 1");
  if (e.threads > 4096) throw UsageError("--threads must be at most 4096");
  const std::string steal = value_of<std::string>(r, "steal");
  if (auto v = parse_steal(steal)) e.steal = *v;
  else throw UsageError("--steal: '" + steal + "' is not half, one or chunk:K with K >= 1");
  const std::string victim = value_of<std::string>(r, "victim");
  if (auto v = parse_victim(victim)) e.victim = *v;
  else throw UsageError("--victim: '" + victim + "' is not random, linear or tree");
  const std::string init = value_of<std::string>(r, "init");
  if (auto v = parse_init(init)) e.init = *v;
  else throw UsageError("--init: '" + init + "' is not root or balanced");

  if (r.count("max-nodes")) {
    cfg.stop.max_nodes = value_of<std::uint64_t>(r, "max-nodes");
    if (cfg.stop.max_nodes < 1) throw UsageError("--max-nodes must be at least 1");
  }
  if (r.count("expect-size")) cfg.expected.size = value_of<std::uint64_t>(r, "expect-size");
  if (r.count("expect-depth")) cfg.expected.depth = value_of<std::uint64_t>(r, "expect-depth");
  if (r.count("expect-leaves")) cfg.expected.leaves = value_of<std::uint64_t>(r, "expect-leaves");
  cfg.verify = r.count("verify") > 0;
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
  if (r.count("progress") && r.count("no-progress")) throw UsageError("--progress and --no-progress contradict each other");
  if (r.count("progress")) cfg.progress = Progress::on;
  if (r.count("no-progress")) cfg.progress = Progress::off;
  cfg.verbose = static_cast<int>(r.count("verbose"));

}

// Turn a file's entries into option tokens, checking each value on its own so
// an error can name the file and line.
void append_file_tokens(cxxopts::Options& options, const std::string& path, std::vector<std::string>& tokens) {
  for (const ConfigEntry& e : read_config_file(path)) {
    if (e.key == "description") continue;
    const std::string where = e.file + ":" + std::to_string(e.line) + ": ";
    const std::string key = long_name(e.key);
    if (!allowed_in_file(key)) throw UsageError(where + "unknown key '" + e.key + "'");
    try {
      RunConfig scratch;
      fill_config(parse_tokens(options, {"uts", "--" + key, e.value}), scratch);
    } catch (const UsageError& err) {
      throw UsageError(where + err.what());
    }
    tokens.push_back("--" + key);
    tokens.push_back(e.value);
  }
}

}  // namespace

const char* to_string(Format f) {
  switch (f) {
    case Format::text: return "text";
    case Format::json: return "json";
    case Format::csv: return "csv";
  }
  return "?";
}

RunConfig parse_command_line(int argc, const char* const* argv, int default_threads) {
  cxxopts::Options options = make_options();
  std::vector<std::string> command_line(argv, argv + argc);
  if (command_line.empty()) command_line.emplace_back("uts");

  // First pass: the command line alone, to find --preset/--config.
  const auto first = parse_tokens(options, command_line);
  RunConfig cfg;
  if (first.count("help")) {
    cfg.show_help = true;
    cfg.help_text = options.help();
    return cfg;
  }
  if (first.count("version")) {
    cfg.show_version = true;
    return cfg;
  }
  if (first.count("list-presets")) {
    cfg.show_presets = true;
    return cfg;
  }

  std::vector<std::string> tokens{command_line.front()};
  if (first.count("preset")) {
    cfg.preset = value_of<std::string>(first, "preset");
    append_file_tokens(options, find_preset(cfg.preset), tokens);
  }
  if (first.count("config")) {
    cfg.config_file = value_of<std::string>(first, "config");
    append_file_tokens(options, cfg.config_file, tokens);
  }
  tokens.insert(tokens.end(), command_line.begin() + 1, command_line.end());
  const auto r = parse_tokens(options, tokens);

  fill_config(r, cfg, default_threads);
  try {
    validate(cfg.tree, cfg.stop.max_nodes != 0);
  } catch (const std::invalid_argument& err) {
    throw UsageError(err.what());
  }
  return cfg;
}

}  // namespace uts::cli
