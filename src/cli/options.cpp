#include "cli/options.hpp"

#include <cxxopts.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "cli/config_file.hpp"
#include "cli/usage_error.hpp"
#include "parallel/policy.hpp"
#include "sha1/batch.hpp"

namespace uts::cli {

namespace {

// Options a config or preset file may set (everything that describes a run,
// nothing that only acts, like --help).
const char* const kFileKeys[] = {"tree", "shape", "b0", "depth", "nonleaf-prob", "nonleaf-children", "shift", "seed",
                                 "granularity", "rng", "root-id", "threads", "steal",
                                 "victim", "init", "max-nodes", "expect-size",
                                 "expect-depth", "expect-leaves", "format",
                                 "chunk", "stealing", "barrier-interval", "poll-interval", "debug", "sha1",
                                 "protocol", "domains", "steal-local", "steal-remote", "remote-delay",
                                 "rank-chunk", "rank-poll",
                                 "workload", "ops", "fill", "trials", "mix", "producers", "arrangement"};

// The reference reads -i, -I and -x as C ints; any int >= 0 is accepted.
constexpr std::int64_t kMaxReferenceInt = std::numeric_limits<int>::max();

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
    ("T", "number of threads, as --threads N (the reference's pthreads flag; both given must agree)", cxxopts::value<std::string>(), "N")
    ("sequential", "run the sequential depth-first baseline")
    ("protocol", "steal protocol: split (Lace-style split deque) | locked (2003 UPC / uts_shm chunk stack) | "
                 "request (UPC Queues request/response) | chaselev (Chase-Lev deque)", cxxopts::value<std::string>()->default_value("split"))
    ("steal", "nodes per steal: half | one | chunk:K (default: the protocol's own: split and request half, "
              "locked chunk:20, chaselev one)", cxxopts::value<std::string>())
    ("c,chunk", "nodes per steal, as --steal chunk:K (the reference's chunk size; K from 1 to 999999999; both given must agree)", cxxopts::value<std::string>(), "K")
    ("s,stealing", "work stealing: 1 on (default), 0 off (each thread explores only the nodes it starts with)", cxxopts::value<std::string>(), "0|1")
    ("victim", "victim selection: random | linear | tree | hier (default: the protocol's own: locked linear, "
               "the others random)", cxxopts::value<std::string>())
    ("domains", "locality domains: numa | l3 | package (from hwloc and the threads' binding) | N (N equal virtual "
                "domains of consecutive threads); default numa", cxxopts::value<std::string>())
    ("steal-local", "--victim hier: nodes per steal inside the domain, half | one | chunk:K (default one)",
     cxxopts::value<std::string>())
    ("steal-remote", "--victim hier: nodes per steal across domains, half | one | chunk:K (default half)",
     cxxopts::value<std::string>())
    ("remote-delay", "spin NS nanoseconds before every probe of and claim on another domain's deque (emulates "
                     "remote cost; 0 to 10000000000, default 0)", cxxopts::value<std::string>(), "NS")
    ("init", "root start: root (thread 0 expands it) | balanced (children split in blocks)", cxxopts::value<std::string>()->default_value("root"))
    ("sha1", "child-id hashing: auto (SHA-NI when the CPU has it) | shani | cryptopp", cxxopts::value<std::string>()->default_value("auto"))
    ("max-nodes", "stop after about N nodes and say so (safety valve)", cxxopts::value<std::string>());
  o.add_options("MPI ranks (under mpirun, in a build with -Dmpi)")
    ("rank-chunk", "most nodes one answer to another rank carries (1 to 1000000, default 1024)",
     cxxopts::value<std::string>(), "K")
    ("rank-poll", "expansions between two checks for other ranks' messages while thread 0 works "
                  "(1 to 1000000, default 256)", cxxopts::value<std::string>(), "N");
  // The reference's parallel flags with no counterpart here: accepted so its
  // scripts run, no effect, reported as not applicable (-v text, JSON).
  o.add_options("Reference compatibility")
    ("i,barrier-interval", "the reference's barrier polling interval, N from 0 to 2147483647: accepted, no effect here (-v and JSON say not applicable)", cxxopts::value<std::string>(), "N")
    ("I,poll-interval", "--protocol request: expansions between two checks for work requests, N from 1 to 2147483647 (default 1); "
                        "other protocols accept it with no effect (-v and JSON say not applicable)", cxxopts::value<std::string>(), "N")
    ("x,debug", "the reference's debug level, N from 0 to 2147483647: accepted, no effect here (-v and JSON say not applicable)", cxxopts::value<std::string>(), "N");
  o.add_options("Pool workload (--workload pool: the concurrent-pools experiment)")
    ("workload", "uts (the tree search, default) | pool (Kotz and Ellis's concurrent-pool experiment on split deques)",
     cxxopts::value<std::string>()->default_value("uts"))
    ("ops", "pool: operations by all threads together, N from 1 to 1000000000 (default 5000)", cxxopts::value<std::string>())
    ("fill", "pool: items spread over the segments at the start, 0 to 1000000000 (default 320)", cxxopts::value<std::string>())
    ("trials", "pool: repetitions, 1 to 1000000 (default 10)", cxxopts::value<std::string>())
    ("mix", "pool, random model: percent of operations that add, 0 to 100 (default 50)", cxxopts::value<std::string>())
    ("producers", "pool, producer/consumer model: K producers (only add), the other threads only remove; 1 to --threads",
     cxxopts::value<std::string>())
    ("arrangement", "pool: where the producers sit: contiguous (threads 0..K-1, default) | spread (evenly around the ring)",
     cxxopts::value<std::string>())
    ("trace", "pool: write each segment's size over time (sampled) to FILE as CSV", cxxopts::value<std::string>());
  o.add_options("Output")
    ("format", "text | json | csv", cxxopts::value<std::string>()->default_value("text"))
    ("output", "append the json (or csv with --format csv) record to FILE", cxxopts::value<std::string>())
    ("verify", "compare with the expected size/depth/leaves; exit 1 on mismatch")
    ("expect-size", "expected tree size (presets set it)", cxxopts::value<std::string>())
    ("expect-depth", "expected tree depth", cxxopts::value<std::string>())
    ("expect-leaves", "expected number of leaves", cxxopts::value<std::string>())
    ("progress", "show a live progress line on stderr")
    ("no-progress", "never show the progress line")
    ("v,verbose", "verbosity level N from 0 to 2147483647 (-v alone: 1; repeats add up, -v -v is 2). "
                  "1 and above add the per-thread table and the not-applicable reference flags; "
                  "levels above 1 print the same as 1", cxxopts::value<std::vector<std::string>>()->implicit_value("1"), "N")
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

// Files may also use the reference's lower-case one-letter names (q = 0.2, m = 5).
std::string long_name(const std::string& key) {
  static const std::pair<const char*, const char*> kLetters[] = {
      {"t", "tree"}, {"a", "shape"}, {"b", "b0"}, {"d", "depth"}, {"q", "nonleaf-prob"},
      {"m", "nonleaf-children"}, {"f", "shift"}, {"r", "seed"}, {"g", "granularity"},
      {"c", "chunk"}, {"s", "stealing"}, {"i", "barrier-interval"}, {"x", "debug"}};
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
  if (name.size() == 1) return "-" + name;  // short-only options (-T)
  static const std::pair<const char*, const char*> kShort[] = {
      {"tree", "-t"}, {"shape", "-a"}, {"b0", "-b"}, {"depth", "-d"}, {"nonleaf-prob", "-q"},
      {"nonleaf-children", "-m"}, {"shift", "-f"}, {"seed", "-r"}, {"granularity", "-g"},
      {"chunk", "-c"}, {"stealing", "-s"}, {"barrier-interval", "-i"}, {"poll-interval", "-I"},
      {"debug", "-x"}, {"verbose", "-v"}};
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

std::int64_t int_in_range(const cxxopts::ParseResult& r, const std::string& name, std::int64_t lo, std::int64_t hi) {
  const std::int64_t v = value_of<std::int64_t>(r, name);
  if (v < lo || v > hi)
    throw UsageError(label(name) + ": " + std::to_string(v) + " is out of range (" + std::to_string(lo) + " to " +
                     std::to_string(hi) + ")");
  return v;
}

int threads_of(const cxxopts::ParseResult& r, const std::string& name) {
  const std::int64_t v = value_of<std::int64_t>(r, name);
  if (v < 1) throw UsageError(label(name) + " must be at least 1");
  if (v > 4096) throw UsageError(label(name) + " must be at most 4096");
  return static_cast<int>(v);
}

// Each protocol's natural steal amount: Manber's halving for the split deque
// and the request answers, the reference's chunk of 20 for the locked stack,
// the single top node for Chase-Lev.
StealPolicy default_steal(Protocol p) {
  switch (p) {
    case Protocol::locked: return StealPolicy{StealAmount::chunk, 20};
    case Protocol::chaselev: return StealPolicy{StealAmount::one, 0};
    case Protocol::split:
    case Protocol::request: break;
  }
  return StealPolicy{StealAmount::half, 0};
}

// The locked stack moves whole chunks and Chase-Lev single nodes; the split
// deque and request answers take any amount.
void check_protocol_steal(Protocol p, const StealPolicy& steal, const std::string& given) {
  if (p == Protocol::locked && steal.amount != StealAmount::chunk)
    throw UsageError("--protocol locked and " + given +
                     " do not go together: the locked stack moves whole chunks (use --steal chunk:K or -c K)");
  if (p == Protocol::chaselev && steal.amount != StealAmount::one)
    throw UsageError("--protocol chaselev and " + given +
                     " do not go together: Chase-Lev steals the single top node (--steal one)");
}

// --workload pool and its options (checked on the merged command line and
// files: they depend on --threads and each other).
void fill_pool(const cxxopts::ParseResult& r, RunConfig& cfg) {
  static const char* const kPoolOnly[] = {"ops", "fill", "trials", "mix", "producers", "arrangement", "trace"};
  const std::string workload = value_of<std::string>(r, "workload");
  if (workload == "uts") cfg.workload = Workload::uts;
  else if (workload == "pool") cfg.workload = Workload::pool;
  else throw UsageError("--workload: '" + workload + "' is not uts or pool");
  if (cfg.workload == Workload::uts) {
    for (const char* key : kPoolOnly)
      if (r.count(key)) throw UsageError(std::string("--") + key + " applies only to --workload pool");
    return;
  }
  const EngineSettings& e = cfg.engine;
  if (e.sequential) throw UsageError("--workload pool and --sequential do not go together (the pool is parallel)");
  if (e.protocol != Protocol::split)
    throw UsageError("--workload pool and --protocol " + std::string(to_string(e.protocol)) +
                     " do not go together: the pool's segments are split deques");
  if (e.victim == VictimOrder::hier)
    throw UsageError("--workload pool and --victim hier do not go together (use linear, random or tree)");
  PoolSettings& p = cfg.pool;
  p.threads = e.threads;
  p.steal = e.steal;
  p.victim = e.victim;
  p.remote_delay_ns = e.remote_delay_ns;
  p.seed = static_cast<std::uint64_t>(cfg.tree.seed);
  if (r.count("ops")) p.ops = static_cast<std::uint64_t>(int_in_range(r, "ops", 1, 1000000000));
  if (r.count("fill")) p.fill = static_cast<std::uint64_t>(int_in_range(r, "fill", 0, 1000000000));
  if (r.count("trials")) p.trials = static_cast<int>(int_in_range(r, "trials", 1, 1000000));
  if (r.count("mix") && r.count("producers"))
    throw UsageError("--mix and --producers do not go together (the random model or the producer/consumer model)");
  if (r.count("mix")) p.mix = static_cast<int>(int_in_range(r, "mix", 0, 100));
  if (r.count("producers")) {
    const std::int64_t k = value_of<std::int64_t>(r, "producers");
    if (k < 1 || k > e.threads)
      throw UsageError("--producers " + std::to_string(k) + ": must be from 1 to --threads (" +
                       std::to_string(e.threads) + ")");
    p.producers = static_cast<int>(k);
  }
  if (r.count("arrangement")) {
    if (!p.producers) throw UsageError("--arrangement applies only with --producers K");
    const std::string a = value_of<std::string>(r, "arrangement");
    if (a == "contiguous") p.arrangement = Arrangement::contiguous;
    else if (a == "spread") p.arrangement = Arrangement::spread;
    else throw UsageError("--arrangement: '" + a + "' is not contiguous or spread");
  }
  if (r.count("trace")) {
    cfg.trace_file = value_of<std::string>(r, "trace");
    if (cfg.trace_file.empty()) throw UsageError("--trace: empty file name");
  }
}

// Locality settings that depend on others (checked once, on the merged
// command line and files, since a file may set threads or victim later).
void check_locality(const cxxopts::ParseResult& r, EngineSettings& e) {
  const bool local_given = r.count("steal-local") > 0, remote_given = r.count("steal-remote") > 0;
  if (e.domains.level == DomainLevel::virtual_count && e.domains.count > e.threads && !e.sequential)
    throw UsageError("--domains " + std::to_string(e.domains.count) + ": more domains than threads (" +
                     std::to_string(e.threads) + ")");
  if ((local_given || remote_given) && e.victim != VictimOrder::hier)
    throw UsageError(std::string(local_given ? "--steal-local" : "--steal-remote") +
                     " applies only to --victim hier (victim here: " + to_string(e.victim) + ")");
  if (e.protocol == Protocol::locked || e.protocol == Protocol::chaselev) {
    // One fixed amount: hier orders victims and limits remote rounds, but
    // local and remote steals take the same chunk (locked) or node (chaselev).
    if (local_given) check_protocol_steal(e.protocol, e.steal_local, "--steal-local " + to_string(e.steal_local));
    if (remote_given)
      check_protocol_steal(e.protocol, e.steal_remote, "--steal-remote " + to_string(e.steal_remote));
    e.steal_local = e.steal_remote = e.steal;
  }
}

// -c K: the reference's chunk size, here --steal chunk:K.
StealPolicy chunk_of(const cxxopts::ParseResult& r) {
  const std::int64_t k = int_in_range(r, "chunk", 1, 999999999);  // parse_steal's range
  return StealPolicy{StealAmount::chunk, static_cast<std::uint32_t>(k)};
}

bool same_policy(const StealPolicy& a, const StealPolicy& b) {
  return a.amount == b.amount && (a.amount != StealAmount::chunk || a.chunk == b.chunk);
}

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
    if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || v < 0 ||
        v > kMaxReferenceInt)
      throw UsageError("-v/--verbose: '" + text + "' is not a level from 0 to " + std::to_string(kMaxReferenceInt));
    total = std::min(total + v, kMaxReferenceInt);
  }
  return static_cast<int>(total);
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
  e.threads = r.count("threads") ? threads_of(r, "threads") : default_threads;
  // -T and -c come only from the command line (files turn chunk into steal),
  // where check_spellings_agree has made sure they agree with --threads and
  // --steal; so they win over any file's value.
  if (r.count("T")) e.threads = threads_of(r, "T");
  const std::string protocol = value_of<std::string>(r, "protocol");
  if (auto v = parse_protocol(protocol)) e.protocol = *v;
  else throw UsageError("--protocol: '" + protocol + "' is not split, locked, request or chaselev");
  e.steal = default_steal(e.protocol);
  std::string steal_given;  // how the user spelled it, for messages
  if (r.count("steal")) {
    steal_given = "--steal " + value_of<std::string>(r, "steal");
    if (auto v = parse_steal(value_of<std::string>(r, "steal"))) e.steal = *v;
    else throw UsageError(steal_given.substr(0, 7) + ": '" + value_of<std::string>(r, "steal") +
                          "' is not half, one or chunk:K with K >= 1");
  }
  if (r.count("chunk")) {
    e.steal = chunk_of(r);
    steal_given = "-c " + std::to_string(e.steal.chunk);
  }
  if (!steal_given.empty()) check_protocol_steal(e.protocol, e.steal, steal_given);
  if (r.count("stealing")) {
    const std::string stealing = value_of<std::string>(r, "stealing");
    if (stealing == "0") e.stealing = false;
    else if (stealing == "1") e.stealing = true;
    else throw UsageError("-s/--stealing: '" + stealing + "' is not 0 (work stealing off) or 1 (on)");
  }
  if (r.count("barrier-interval"))
    e.reference.barrier_interval = int_in_range(r, "barrier-interval", 0, kMaxReferenceInt);
  if (r.count("poll-interval")) {
    if (e.protocol == Protocol::request)
      e.poll_interval = static_cast<std::uint32_t>(int_in_range(r, "poll-interval", 1, kMaxReferenceInt));
    else
      e.reference.poll_interval = int_in_range(r, "poll-interval", 0, kMaxReferenceInt);
  }
  if (r.count("debug")) e.reference.debug_level = int_in_range(r, "debug", 0, kMaxReferenceInt);
  e.victim = e.protocol == Protocol::locked ? VictimOrder::linear : VictimOrder::random;
  if (r.count("victim")) {
    const std::string victim = value_of<std::string>(r, "victim");
    if (auto v = parse_victim(victim)) e.victim = *v;
    else throw UsageError("--victim: '" + victim + "' is not random, linear, tree or hier");
  }
  if (r.count("domains")) {
    const std::string d = value_of<std::string>(r, "domains");
    if (auto v = parse_domains(d)) e.domains = *v;
    else throw UsageError("--domains: '" + d + "' is not numa, l3, package or a number of domains N >= 1");
    e.domains_given = true;
  }
  if (r.count("rank-chunk"))
    e.rank_chunk = static_cast<std::uint32_t>(int_in_range(r, "rank-chunk", 1, 1000000));
  if (r.count("rank-poll"))
    e.rank_poll = static_cast<std::uint32_t>(int_in_range(r, "rank-poll", 1, 1000000));
  if (r.count("remote-delay"))
    e.remote_delay_ns = static_cast<std::uint64_t>(int_in_range(r, "remote-delay", 0, 10000000000LL));
  for (const char* key : {"steal-local", "steal-remote"}) {
    if (!r.count(key)) continue;
    const std::string text = value_of<std::string>(r, key);
    const auto v = parse_steal(text);
    if (!v) throw UsageError(std::string("--") + key + ": '" + text + "' is not half, one or chunk:K with K >= 1");
    (std::string(key) == "steal-local" ? e.steal_local : e.steal_remote) = *v;
  }
  const std::string init = value_of<std::string>(r, "init");
  if (auto v = parse_init(init)) e.init = *v;
  else throw UsageError("--init: '" + init + "' is not root or balanced");
  const std::string sha1_path = value_of<std::string>(r, "sha1");
  if (auto v = sha1::parse_path(sha1_path)) e.sha1 = *v;
  else throw UsageError("--sha1: '" + sha1_path + "' is not auto, shani or cryptopp");

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
  cfg.verbose = verbose_level(r);
}

// -c K and --steal chunk:K, -T N and --threads N: two spellings of one
// setting. Given both on the command line, they must agree.
void check_spellings_agree(const cxxopts::ParseResult& cl) {
  if (cl.count("chunk") && cl.count("steal")) {
    const StealPolicy chunk = chunk_of(cl);
    const std::string steal = value_of<std::string>(cl, "steal");
    const auto policy = parse_steal(steal);
    if (policy && !same_policy(*policy, chunk))
      throw UsageError("-c/--chunk " + std::to_string(chunk.chunk) + " and --steal " + steal +
                       " disagree (-c K means --steal chunk:K)");
  }
  if (cl.count("T") && cl.count("threads")) {
    const int t = threads_of(cl, "T");
    const int threads = threads_of(cl, "threads");
    if (t != threads)
      throw UsageError("-T " + std::to_string(t) + " and --threads " + std::to_string(threads) +
                       " disagree (-T N means --threads N)");
  }
}

// cxxopts never gives an option with an implicit value (-v) the next token,
// so `-v 2` would leave a stray "2". Join a bare -v (or --verbose) with a
// following token that starts like a number (digit, or sign and digit: no
// option looks like that) into --verbose=N, and -vN likewise; a bad level then
// gets -v's own error. Tokens that are another option's value are skipped, so
// `--output -v` still names a file "-v".
std::vector<std::string> join_verbose_levels(const cxxopts::Options& options, const std::vector<std::string>& args) {
  std::set<std::string> takes_value;  // "-d", "--depth", ...: the next token is their value
  for (const std::string& group : options.groups())
    for (const cxxopts::HelpOptionDetails& o : options.group_help(group).options) {
      if (o.has_implicit) continue;
      if (!o.s.empty()) takes_value.insert("-" + o.s);
      for (const std::string& l : o.l) takes_value.insert("--" + l);
    }
  auto numeric = [](const std::string& t) {
    const std::size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
    return t.size() > i && std::isdigit(static_cast<unsigned char>(t[i]));
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i == 0 || a == "--") {
      out.push_back(a);
      if (i == 0) continue;
      out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if ((a == "-v" || a == "--verbose") && i + 1 < args.size() && numeric(args[i + 1])) {
      out.push_back("--verbose=" + args[++i]);
      continue;
    }
    if (a.size() > 2 && a.compare(0, 2, "-v") == 0 && numeric(a.substr(2))) {
      out.push_back("--verbose=" + a.substr(2));
      continue;
    }
    out.push_back(a);
    // A value-taking option alone in its token takes the next token as its
    // value; in a short group (-tv), the first value-taking letter takes the
    // rest of the token, or the next token when it is the last letter.
    bool next_is_value = false;
    if (a.compare(0, 2, "--") == 0) {
      next_is_value = takes_value.count(a) > 0;  // "--x=v" is never in the set
    } else if (a.size() > 1 && a[0] == '-') {
      for (std::size_t k = 1; k < a.size(); ++k)
        if (takes_value.count(std::string("-") + a[k])) {
          next_is_value = k + 1 == a.size();
          break;
        }
    }
    if (next_is_value && i + 1 < args.size()) out.push_back(args[++i]);
  }
  return out;
}

// Turn a file's entries into option tokens, checking each value on its own so
// an error can name the file and line.
// A file's `chunk = K` becomes `steal = chunk:K`, so the later of a file's
// and the command line's steal settings wins as for any other key; a file
// that sets both must have them agree.
void append_file_tokens(cxxopts::Options& options, const std::string& path, std::vector<std::string>& tokens) {
  const std::vector<ConfigEntry> entries = read_config_file(path);
  const ConfigEntry* chunk_entry = nullptr;
  const ConfigEntry* steal_entry = nullptr;
  std::optional<StealPolicy> chunk, steal;
  for (const ConfigEntry& e : entries) {
    if (e.key == "description") continue;
    const std::string where = e.file + ":" + std::to_string(e.line) + ": ";
    const std::string key = long_name(e.key);
    if (!allowed_in_file(key)) throw UsageError(where + "unknown key '" + e.key + "'");
    RunConfig scratch;
    try {
      fill_config(parse_tokens(options, {"uts", "--" + key, e.value}), scratch);
    } catch (const UsageError& err) {
      throw UsageError(where + err.what());
    }
    if (key == "chunk") {
      chunk_entry = &e;
      chunk = scratch.engine.steal;
      tokens.push_back("--steal");
      tokens.push_back("chunk:" + std::to_string(chunk->chunk));
      continue;
    }
    if (key == "steal") {
      steal_entry = &e;
      steal = scratch.engine.steal;
    }
    tokens.push_back("--" + key);
    tokens.push_back(e.value);
  }
  if (chunk && steal && !same_policy(*chunk, *steal)) {
    const ConfigEntry& later = chunk_entry->line > steal_entry->line ? *chunk_entry : *steal_entry;
    const ConfigEntry& earlier = &later == chunk_entry ? *steal_entry : *chunk_entry;
    throw UsageError(later.file + ":" + std::to_string(later.line) + ": '" + later.key + " = " + later.value +
                     "' disagrees with '" + earlier.key + " = " + earlier.value + "' on line " +
                     std::to_string(earlier.line) + " (chunk = K means steal = chunk:K)");
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
  command_line = join_verbose_levels(options, command_line);

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
  check_spellings_agree(first);

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
  check_locality(r, cfg.engine);
  fill_pool(r, cfg);
  try {
    validate(cfg.tree, cfg.stop.max_nodes != 0);
  } catch (const std::invalid_argument& err) {
    throw UsageError(err.what());
  }
  return cfg;
}

}  // namespace uts::cli
