// cli/: the command line, presets and config files, the reference's flags,
// and every bad input refused with a message that names it.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "cli/usage_error.hpp"

using namespace uts;
using uts::cli::UsageError;

namespace {
cli::RunConfig parse(std::vector<std::string> args) {
  args.insert(args.begin(), "uts");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return cli::parse_command_line(static_cast<int>(argv.size()), argv.data(), 2);
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("reference single-letter flags keep their meaning") {
  const auto c = parse({"-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"});
  CHECK(c.tree.type == TreeType::geometric);
  CHECK(c.tree.shape == GeoShape::fixed);
  CHECK(c.tree.depth == 10);
  CHECK(c.tree.b0 == 4.0);
  CHECK(c.tree.seed == 19);
  const auto b = parse({"-t", "0", "-b", "2000", "-q", "0.124875", "-m", "8", "-r", "42", "-g", "3"});
  CHECK(b.tree.type == TreeType::binomial);
  CHECK(b.tree.q == 0.124875);
  CHECK(b.tree.m == 8);
  CHECK(b.tree.granularity == 3);
}

TEST_CASE("names for tree types and shapes, long options") {
  CHECK(parse({"-t", "geo", "-a", "fixed"}).tree.shape == GeoShape::fixed);
  CHECK(parse({"--tree", "hybrid", "--shift", "0.25"}).tree.type == TreeType::hybrid);
  CHECK(parse({"-t", "balanced"}).tree.type == TreeType::balanced);
  CHECK(parse({"-t", "BIN"}).tree.type == TreeType::binomial);
  CHECK(parse({"-a", "expdec"}).tree.shape == GeoShape::expdec);
  CHECK(parse({"-a", "2"}).tree.shape == GeoShape::cyclic);
}

TEST_CASE("engine, output and stop options") {
  const auto c = parse({"--threads", "8", "--steal", "chunk:16", "--victim", "tree", "--init", "balanced",
                        "--format", "json", "--max-nodes", "1000", "--output", "/tmp/x.json", "-v"});
  CHECK(c.engine.threads == 8);
  CHECK(c.engine.steal.amount == StealAmount::chunk);
  CHECK(c.engine.steal.chunk == 16);
  CHECK(c.engine.victim == VictimOrder::tree);
  CHECK(c.engine.init == InitSpread::balanced);
  CHECK(c.format == cli::Format::json);
  CHECK(c.stop.max_nodes == 1000);
  CHECK(c.output_file == "/tmp/x.json");
  CHECK(c.verbose == 1);
  CHECK(parse({}).engine.threads == 2);  // the default passed in (omp_get_max_threads)
  CHECK_FALSE(parse({}).engine.sequential);
  CHECK(parse({"--sequential"}).engine.sequential);
}

TEST_CASE("presets load, the command line overrides them") {
  const auto c = parse({"--preset", "T3"});
  CHECK(c.tree.type == TreeType::binomial);
  CHECK(c.tree.m == 8);
  CHECK(c.expected.size == 4112897u);
  CHECK(c.expected.depth == 1572u);
  CHECK(parse({"--preset", "T3", "-m", "5"}).tree.m == 5);
  CHECK(parse({"--preset", "T1", "--verify"}).verify);
}

TEST_CASE("the reference's largest sample trees load, expected values above 2^32") {
  // No --max-nodes needed: these binomial trees are near-critical but finite.
  struct Want {
    const char* name;
    std::uint64_t size, depth, leaves;
  };
  for (const Want& w : {Want{"T2XXL", 10612052303u, 216370u, 5306027151u},
                        Want{"T1WL", 270751679750u, 18u, 216601257283u},
                        Want{"T2WL", 295393891003u, 1021239u, 147696946501u},
                        Want{"T3WL", 157063495159u, 758577u, 78531748579u}}) {
    CAPTURE(w.name);
    CHECK(error_of({"--preset", w.name}).empty());
    const auto c = parse({"--preset", w.name, "--verify"});
    CHECK(c.verify);
    CHECK(c.expected.size == w.size);
    CHECK(c.expected.depth == w.depth);
    CHECK(c.expected.leaves == w.leaves);
  }
  CHECK(parse({"--preset", "T1WL"}).tree.depth == 18);
  CHECK(parse({"--preset", "T2WL"}).tree.q == 0.4999999995);
  CHECK(parse({"--preset", "T3WL"}).tree.seed == 559);
}

TEST_CASE("config files: key = value, comments, one-letter keys") {
  const std::string path = "uts_test_config.conf";
  {
    std::ofstream f(path);
    f << "# my tree\n\ntree = binomial   # inline comment\nb0 = 50\nq = 0.2\nm = 3\nseed = 5\n";
  }
  const auto c = parse({"--config", path});
  CHECK(c.tree.type == TreeType::binomial);
  CHECK(c.tree.b0 == 50.0);
  CHECK(c.tree.q == 0.2);
  CHECK(c.tree.m == 3);
  CHECK(c.tree.seed == 5);
  {
    std::ofstream f(path);
    f << "tree = geo\n\ndepth = ten\n";
  }
  CHECK(error_of({"--config", path}).find(path + ":3:") == 0);
  std::remove(path.c_str());
}

TEST_CASE("each bad input is refused with a message naming it") {
  CHECK(error_of({"--nope"}).find("nope") != std::string::npos);
  CHECK(error_of({"-d"}).find("d") != std::string::npos);
  CHECK(error_of({"-b", "x1"}).find("-b/--b0") != std::string::npos);
  CHECK(error_of({"-d", "2.5"}).find("-d/--depth") != std::string::npos);
  CHECK(error_of({"-t", "0", "-q", "1.01"}).find("-q") != std::string::npos);
  CHECK(error_of({"-t", "0", "-q", "-0.5"}).find("-q") != std::string::npos);
  CHECK(error_of({"-t", "0", "-m", "0"}).find("-m") != std::string::npos);
  CHECK(error_of({"-t", "0", "-q", "0.5", "-m", "3"}).find("--max-nodes") != std::string::npos);
  CHECK(error_of({"-t", "0", "-q", "0.5", "-m", "3", "--max-nodes", "100"}).empty());
  CHECK(error_of({"-t", "9"}).find("tree type") != std::string::npos);
  CHECK(error_of({"-a", "round"}).find("shape") != std::string::npos);
  CHECK(error_of({"-d", "-2"}).find("depth") != std::string::npos);
  CHECK(error_of({"-b", "0"}).find("b0") != std::string::npos);
  CHECK(error_of({"-b", "-1"}).find("b0") != std::string::npos);
  CHECK(error_of({"-g", "0"}).find("granularity") != std::string::npos);
  CHECK(error_of({"--threads", "0"}).find("threads") != std::string::npos);
  CHECK(error_of({"--rng", "paper2003", "--root-id", "12g4"}).find("root-id") != std::string::npos);
  CHECK(error_of({"--preset", "T99"}).find("T99") != std::string::npos);
  CHECK(error_of({"--config", "/nonexistent/uts.conf"}).find("/nonexistent/uts.conf") == 0);
  CHECK(error_of({"--steal", "chunk:"}).find("steal") != std::string::npos);
  CHECK(error_of({"--verify"}).find("verify") != std::string::npos);
}

TEST_CASE("protocols: each has its own steal and victim defaults; -I applies to request only") {
  const auto split = parse({});
  CHECK(split.engine.protocol == "split");
  CHECK(split.engine.steal.amount == StealAmount::half);
  CHECK(split.engine.victim == VictimOrder::random);
  const auto locked = parse({"--protocol", "locked"});
  CHECK(locked.engine.protocol == "locked");
  CHECK(locked.engine.steal.amount == StealAmount::chunk);
  CHECK(locked.engine.steal.chunk == 20);  // the reference's default chunk
  CHECK(locked.engine.victim == VictimOrder::linear);
  CHECK(parse({"--protocol", "locked", "-c", "7"}).engine.steal.chunk == 7);
  CHECK(parse({"--protocol", "locked", "--victim", "tree"}).engine.victim == VictimOrder::tree);
  const auto chaselev = parse({"--protocol", "chaselev"});
  CHECK(chaselev.engine.steal.amount == StealAmount::one);
  CHECK(chaselev.engine.victim == VictimOrder::random);
  const auto request = parse({"--protocol", "request", "-I", "16", "--steal", "chunk:3"});
  CHECK(request.engine.protocol == "request");
  CHECK(request.engine.poll_interval == 16);
  CHECK_FALSE(request.engine.reference.poll_interval);  // applies: not a not-applicable flag
  CHECK(request.engine.steal.chunk == 3);
  CHECK(parse({"--protocol", "request"}).engine.poll_interval == 1);
  CHECK(error_of({"--protocol", "chaselev", "--steal", "half"}).find("--protocol chaselev and --steal half") == 0);
  CHECK(error_of({"--protocol", "locked", "--steal", "one"}).find("--protocol locked and --steal one") == 0);
  CHECK(error_of({"--protocol", "request", "-I", "0"}).find("-I/--poll-interval") == 0);
  CHECK(error_of({"--protocol", "nope"}).find("--protocol") == 0);
}

TEST_CASE("reference parallel flags: -c, -s, -T, -v N, -i, -I, -x") {
  const auto c = parse({"-c", "20", "-T", "3", "-v", "2", "-x", "0", "-i", "8", "-I", "16", "-s", "1"});
  CHECK(c.engine.steal.amount == StealAmount::chunk);
  CHECK(c.engine.steal.chunk == 20);
  CHECK(c.engine.threads == 3);
  CHECK(c.verbose == 2);
  CHECK(c.engine.stealing);
  CHECK(c.engine.reference.debug_level == 0);
  CHECK(c.engine.reference.barrier_interval == 8);
  CHECK(c.engine.reference.poll_interval == 16);
  // Long names and glued values.
  const auto l = parse({"--chunk=5", "--stealing", "0", "--barrier-interval", "2147483647", "--poll-interval=0",
                        "--debug", "7", "-T4"});
  CHECK(l.engine.steal.chunk == 5);
  CHECK_FALSE(l.engine.stealing);
  CHECK(l.engine.reference.barrier_interval == 2147483647);
  CHECK(l.engine.reference.poll_interval == 0);
  CHECK(l.engine.reference.debug_level == 7);
  CHECK(l.engine.threads == 4);
  CHECK(parse({"-s", "0"}).engine.stealing == false);
  // Not given: defaults, nothing recorded.
  const auto d = parse({});
  CHECK(d.engine.stealing);
  CHECK(d.engine.steal.amount == StealAmount::half);
  CHECK_FALSE(d.engine.reference.barrier_interval);
  CHECK_FALSE(d.engine.reference.poll_interval);
  CHECK_FALSE(d.engine.reference.debug_level);
  CHECK(d.verbose == 0);
}

TEST_CASE("-v: alone 1, -v N a level, repeats add up, never eats an option") {
  CHECK(parse({"-v"}).verbose == 1);
  CHECK(parse({"-v", "2"}).verbose == 2);
  CHECK(parse({"-v", "0"}).verbose == 0);
  CHECK(parse({"-v3"}).verbose == 3);
  CHECK(parse({"--verbose", "4"}).verbose == 4);
  CHECK(parse({"--verbose=5"}).verbose == 5);
  CHECK(parse({"-v", "-v"}).verbose == 2);
  CHECK(parse({"-vv"}).verbose == 2);
  CHECK(parse({"-v", "2", "-v"}).verbose == 3);
  // -v followed by an option, or last: level 1, the option still parsed.
  const auto before = parse({"-v", "--preset", "T1"});
  CHECK(before.verbose == 1);
  CHECK(before.expected.size == 4130071u);
  const auto after = parse({"--preset", "T1", "-v"});
  CHECK(after.verbose == 1);
  CHECK(after.expected.size == 4130071u);
  CHECK(parse({"-v", "-d", "3"}).tree.depth == 3);
  // A number that is another option's value stays that option's value.
  const auto d = parse({"-d", "7", "-v"});
  CHECK(d.tree.depth == 7);
  CHECK(d.verbose == 1);
  CHECK(parse({"-v", "-t", "1"}).tree.type == TreeType::geometric);
  CHECK(parse({"--output", "-v", "-v", "1"}).output_file == "-v");
  CHECK(parse({"--output", "-v", "-v", "1"}).verbose == 1);
}

TEST_CASE("-c and --steal, -T and --threads: one setting, must agree") {
  CHECK(parse({"-c", "20", "--steal", "chunk:20"}).engine.steal.chunk == 20);
  CHECK(parse({"-T", "2", "--threads", "2"}).engine.threads == 2);
  CHECK(parse({"-T", "2", "--threads", "02"}).engine.threads == 2);
  const std::string steal = error_of({"-c", "20", "--steal", "one"});
  CHECK(steal.find("-c/--chunk 20") != std::string::npos);
  CHECK(steal.find("--steal one") != std::string::npos);
  CHECK(error_of({"--steal", "chunk:8", "--chunk", "20"}).find("--steal chunk:8") != std::string::npos);
  CHECK(error_of({"-c", "4", "--steal", "half"}).find("disagree") != std::string::npos);
  const std::string threads = error_of({"-T", "2", "--threads", "3"});
  CHECK(threads.find("-T 2") != std::string::npos);
  CHECK(threads.find("--threads 3") != std::string::npos);
  // The command line wins over a file: no conflict with a preset's or a config's steal.
  const std::string path = "uts_test_chunk.conf";
  {
    std::ofstream f(path);
    f << "tree = geo\ndepth = 4\nsteal = one\nthreads = 3\n";
  }
  CHECK(parse({"--config", path, "-c", "6"}).engine.steal.chunk == 6);
  CHECK(parse({"--config", path, "-T", "5"}).engine.threads == 5);
  {
    std::ofstream f(path);
    f << "tree = geo\ndepth = 4\nchunk = 9\n";
  }
  CHECK(parse({"--config", path}).engine.steal.chunk == 9);
  CHECK(parse({"--config", path, "--steal", "one"}).engine.steal.amount == StealAmount::one);
  {
    std::ofstream f(path);
    f << "steal = half\nchunk = 9\n";
  }
  CHECK(error_of({"--config", path}).find(path + ":2:") == 0);
  std::remove(path.c_str());
}

TEST_CASE("reference flags in config files: long names and one-letter keys") {
  const std::string path = "uts_test_reference.conf";
  {
    std::ofstream f(path);
    f << "tree = geo\ndepth = 4\nchunk = 3\nstealing = 0\nbarrier-interval = 8\npoll-interval = 16\ndebug = 1\n";
  }
  const auto c = parse({"--config", path});
  CHECK(c.engine.steal.chunk == 3);
  CHECK_FALSE(c.engine.stealing);
  CHECK(c.engine.reference.barrier_interval == 8);
  CHECK(c.engine.reference.poll_interval == 16);
  CHECK(c.engine.reference.debug_level == 1);
  CHECK(parse({"--config", path, "-s", "1"}).engine.stealing);
  {
    std::ofstream f(path);
    f << "c = 2\ns = 1\ni = 4\nx = 5\n";
  }
  const auto l = parse({"--config", path});
  CHECK(l.engine.steal.chunk == 2);
  CHECK(l.engine.stealing);
  CHECK(l.engine.reference.barrier_interval == 4);
  CHECK(l.engine.reference.debug_level == 5);
  {
    std::ofstream f(path);
    f << "tree = geo\nstealing = 2\n";
  }
  CHECK(error_of({"--config", path}).find(path + ":2:") == 0);
  std::remove(path.c_str());
}

TEST_CASE("bad values of the reference flags name the flag") {
  CHECK(error_of({"-c", "0"}).find("-c/--chunk") == 0);
  CHECK(error_of({"-c", "-3"}).find("-c/--chunk") == 0);
  CHECK(error_of({"-c", "1000000000"}).find("-c/--chunk") == 0);
  CHECK(error_of({"-c", "x"}).find("-c/--chunk") == 0);
  CHECK(error_of({"-c"}).find("c") != std::string::npos);
  CHECK(error_of({"-s", "2"}).find("-s/--stealing") == 0);
  CHECK(error_of({"-s", "on"}).find("-s/--stealing") == 0);
  CHECK(error_of({"-s", "-1"}).find("-s/--stealing") == 0);
  CHECK(error_of({"-T", "0"}).find("-T") == 0);
  CHECK(error_of({"-T", "5000"}).find("-T") == 0);
  CHECK(error_of({"-T", "two"}).find("-T") == 0);
  CHECK(error_of({"-i", "-1"}).find("-i/--barrier-interval") == 0);
  CHECK(error_of({"-i", "2147483648"}).find("-i/--barrier-interval") == 0);
  CHECK(error_of({"-I", "1.5"}).find("-I/--poll-interval") == 0);
  CHECK(error_of({"-x", "abc"}).find("-x/--debug") == 0);
  CHECK(error_of({"-v", "2.5"}).find("-v/--verbose") == 0);
  CHECK(error_of({"-v", "-1"}).find("-v/--verbose") == 0);
  CHECK(error_of({"-v", "3x"}).find("-v/--verbose") == 0);
  CHECK(error_of({"-v", "2147483648"}).find("-v/--verbose") == 0);
  CHECK(error_of({"--verbose="}).find("-v/--verbose") == 0);
}

TEST_CASE("near-critical binomial trees such as T3L run without --max-nodes") {
  // T3L has q*m = 1.00007 but dies out with probability ~0.93.
  CHECK(error_of({"--preset", "T3L"}).empty());
  CHECK(probability_finite(parse({"--preset", "T3L"}).tree) > 0.9);
  CHECK(binomial_extinction_probability(0.5, 2) > 0.9999);  // critical: finite almost surely
  CHECK(binomial_extinction_probability(0.3, 5) < 0.8);
}

TEST_CASE("hex root ids are right-aligned") {
  CHECK(parse_root_id("101") == sha1::Words{0, 0, 0, 0, 0x101});
  CHECK(parse_root_id("0x1") == sha1::Words{0, 0, 0, 0, 1});
  CHECK(parse_root_id("ffffffff00000000") == sha1::Words{0, 0, 0, 0xffffffffu, 0});
  CHECK(parse_root_id(std::string(40, 'F')) == sha1::Words{~0u, ~0u, ~0u, ~0u, ~0u});
  CHECK(parse_root_id(std::string(40, 'a')) == sha1::Words{0xaaaaaaaau, 0xaaaaaaaau, 0xaaaaaaaau, 0xaaaaaaaau, 0xaaaaaaaau});
  CHECK_FALSE(parse_root_id(std::string(41, '1')));
  CHECK_FALSE(parse_root_id(""));
  CHECK_FALSE(parse_root_id("12 4"));
}

namespace {
// A config file for one test, removed when the test ends.
struct TempConfig {
  std::string path;
  TempConfig(std::string name, const std::string& text) : path(std::move(name)) {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  ~TempConfig() { std::remove(path.c_str()); }
};

bool has_control_char(const std::string& s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') return true;
  return false;
}
}  // namespace

TEST_CASE("flags take =true/=false (and 1/0, any case) as written; other values are refused") {
  CHECK(parse({"--sequential"}).engine.sequential);
  CHECK_FALSE(parse({"--sequential=false"}).engine.sequential);
  CHECK_FALSE(parse({"--sequential=0"}).engine.sequential);
  CHECK_FALSE(parse({"--sequential=FALSE"}).engine.sequential);
  CHECK(parse({"--sequential=True"}).engine.sequential);
  CHECK(parse({"--sequential=1"}).engine.sequential);
  CHECK_FALSE(parse({"--sequential", "--sequential=false"}).engine.sequential);  // the last one wins
  CHECK(parse({"--sequential=false", "--sequential"}).engine.sequential);
  // Read as a value, not a count: a false flag is as good as absent.
  const auto verify = parse({"--verify=false", "--expect-size", "5"});
  CHECK_FALSE(verify.verify);
  CHECK(verify.expected.size == 5u);
  CHECK(error_of({"--verify=false"}).empty());  // no expected values needed to not verify
  CHECK(parse({"--preset", "T1", "--verify=1"}).verify);
  CHECK(parse({"--bind", "compact", "--smt"}).engine.bind.smt);
  CHECK_FALSE(parse({"--bind", "compact", "--smt=false"}).engine.bind.smt);
  CHECK(error_of({"--bind", "none", "--smt=false"}).empty());  // off: nothing that does not apply
  CHECK(error_of({"--bind", "none", "--smt"}).find("--smt does not apply") == 0);
  CHECK(error_of({"--sequential=false", "--threads", "3"}).empty());
  CHECK(error_of({"--workload", "pool", "--verify=false"}).empty());
  // --progress and its negation.
  CHECK(parse({"--progress"}).progress == cli::Progress::on);
  CHECK(parse({"--no-progress"}).progress == cli::Progress::off);
  CHECK(parse({"--progress=false"}).progress == cli::Progress::automatic);
  CHECK(parse({"--no-progress=false"}).progress == cli::Progress::automatic);
  CHECK(parse({"--progress=0", "--no-progress"}).progress == cli::Progress::off);
  CHECK(parse({"--progress", "--no-progress=0"}).progress == cli::Progress::on);
  CHECK(error_of({"--progress=1", "--no-progress"}).find("contradict") != std::string::npos);
  // --help, --version, --list-presets: false means not asked.
  CHECK(parse({"--help"}).show_help);
  CHECK(parse({"-h"}).show_help);
  CHECK_FALSE(parse({"--help=false"}).show_help);
  CHECK_FALSE(parse({"--version=false"}).show_version);
  CHECK(parse({"--version=true"}).show_version);
  CHECK_FALSE(parse({"--list-presets=0"}).show_presets);
  // Anything else is refused, naming the flag (cxxopts alone took "t").
  for (const char* bad : {"--sequential=yes", "--sequential=t", "--sequential=", "--sequential=2",
                          "--sequential=false\n"}) {
    CAPTURE(bad);
    CHECK(error_of({bad}).find("--sequential: '") == 0);
  }
  CHECK(error_of({"--help=no"}).find("-h/--help: 'no' is not true, false, 1 or 0") == 0);
  CHECK(error_of({"--verify=on"}).find("--verify") == 0);
  // The value of another option is left alone, even when it looks like a flag.
  CHECK(parse({"--output", "--verify=maybe"}).output_file == "--verify=maybe");
  // -v levels are not flags.
  CHECK(parse({"-vv"}).verbose == 2);
  CHECK(parse({"-v", "-v", "2"}).verbose == 3);
}

TEST_CASE("a flag in a config file is refused naming file:line and the command-line option") {
  const TempConfig cfg("uts_test_flag.conf", "tree = geo\nverify = false\n");
  const std::string e = error_of({"--config", cfg.path});
  CHECK(e.find(cfg.path + ":2: 'verify' cannot be set in a file") == 0);
  CHECK(e.find("--verify") != std::string::npos);
}

TEST_CASE("messages echo control characters escaped: one line, never a forged one") {
  const std::string victim = error_of({"--victim", "hier\nuts: fake"});
  CHECK(victim == "--victim: 'hier\\nuts: fake' is not random, linear, tree or hier");
  for (const std::string& value : {std::string("a\rb"), std::string("\x1b[2J"), std::string("x\x7f"),
                                  std::string("\xc2\x9b" "1m"), std::string("tab\there")}) {
    CAPTURE(value);
    const std::string e = error_of({"--format", value});
    CHECK(e.find("--format: '") == 0);
    CHECK_FALSE(has_control_char(e));
    CHECK(e.find("\xc2\x9b") == std::string::npos);
  }
  CHECK(error_of({"--bogus\x1b"}).find("\\x1b") != std::string::npos);
  // A huge value becomes a line of about 1 KiB that says what it left out.
  const std::string huge = error_of({"--victim", std::string(1 << 20, 'x')});
  CHECK(huge.size() <= 1024);
  CHECK(huge.find("--victim: 'xxx") == 0);
  CHECK(huge.find("bytes left out") != std::string::npos);
  CHECK(huge.find("is not random, linear, tree or hier") != std::string::npos);
}

TEST_CASE("config files: LF, CRLF and lone CR end lines alike; other control characters are refused") {
  for (const char* eol : {"\n", "\r\n", "\r"}) {
    CAPTURE(std::string(eol) == "\r" ? "CR" : std::string(eol) == "\n" ? "LF" : "CRLF");
    const std::string e(eol);
    {
      const TempConfig cfg("uts_test_eol.conf", "# a tree" + e + "tree = geo" + e + e + "depth = 4" + e + "seed = 7");
      const auto c = parse({"--config", cfg.path});
      CHECK(c.tree.depth == 4);
      CHECK(c.tree.seed == 7);
    }
    const TempConfig bad("uts_test_eol.conf", "tree = geo" + e + e + "depth = ten" + e);
    const std::string msg = error_of({"--config", bad.path});
    CHECK(msg.find(bad.path + ":3: -d/--depth: 'ten'") == 0);
    CHECK_FALSE(has_control_char(msg));
  }
  const TempConfig esc("uts_test_esc.conf", "tree = geo\nvictim = hier\x1b[2J\n");
  CHECK(error_of({"--config", esc.path}) == esc.path + ":2: a control character \\x1b (not a text file?)");
  const TempConfig tab("uts_test_tab.conf", "tree\t=\tgeo\ndepth =\t5\t# tabs are blanks\n");
  CHECK(parse({"--config", tab.path}).tree.depth == 5);
}

TEST_CASE("every value a file sets that is refused names the file:line, alone or beside others") {
  struct Case {
    const char* text;
    std::vector<std::string> args;  // besides --config
    const char* where;              // ":N: " expected after the path
    const char* says;
  };
  const Case cases[] = {
      {"tree = geo\n# comment\ndepth = -4\n", {}, ":3: ", "-d/--depth must not be negative"},
      {"seed = 4294967296\n", {}, ":1: ", "-r/--seed must fit in a signed 32-bit integer"},
      {"b0 = 0\n", {}, ":1: ", "-b/--b0 must be a positive number"},
      {"tree = bin\nq = 1.5\n", {}, ":2: ", "-q/--q must lie in [0,1]"},
      {"tree = bin\nq = 0.3\nm = 5\n", {}, ":3: ", "-q * -m >= 1"},
      {"granularity = 0\n", {}, ":1: ", "-g/--granularity"},
      {"rng = paper2003\n", {}, ":1: ", "--rng paper2003 needs --root-id"},
      {"counters = cycles,bogus\n", {}, ":1: ", "--counters: 'bogus' is not one of"},
      {"counters = cycles,cycles\n", {}, ":1: ", "--counters: 'cycles' named twice"},
      {"counters = -d\ndepth = 5\n", {}, ":1: ", "--counters: '-d' is not one of"},  // a quoted value names no option
      {"ops = 5\n", {}, ":1: ", "--ops applies only to --workload pool"},
      {"workload = pool\nops = 0\n", {}, ":2: ", "--ops: 0 is out of range"},
      {"workload = pool\ntrials = 0\n", {}, ":2: ", "--trials: 0 is out of range"},
      {"workload = pool\nmix = 101\n", {}, ":2: ", "--mix: 101 is out of range"},
      {"workload = pool\nmix = 5\nproducers = 1\n", {}, ":3: ", "--mix and --producers do not go together"},
      {"workload = pool\nproducers = 9\n", {"--threads", "2"}, ":2: ", "--producers 9"},
      {"workload = pool\narrangement = spread\n", {}, ":2: ", "--arrangement applies only with --producers"},
      {"workload = pool\nprotocol = locked\n", {}, ":2: ", "--workload pool and --protocol locked"},
      {"victim = tree\nsteal-local = one\n", {}, ":2: ", "--steal-local applies only to --victim hier"},
      {"domains = 8\n", {"--threads", "2"}, ":1: ", "--domains 8: more domains than threads"},
      {"protocol = chaselev\nsteal = half\n", {}, ":2: ", "--protocol chaselev and --steal half"},
      {"trace-events = 5\n", {}, ":1: ", "--trace-events applies only with --trace"},
      {"work-baseline = sequential\nmax-nodes = 10\n", {}, ":2: ", "--work-baseline sequential and --max-nodes"},
      {"threads = 3\n", {"--protocol", "chaselev", "--steal", "half"}, "", "--protocol chaselev and --steal half"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const TempConfig cfg("uts_test_where.conf", c.text);
    std::vector<std::string> args{"--config", cfg.path};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const std::string e = error_of(args);
    CAPTURE(e);
    const std::string prefix = *c.where ? cfg.path + c.where : std::string();
    CHECK(e.find(prefix + c.says) == 0);
  }
  // The same values on the command line keep their messages, without a file.
  CHECK(error_of({"-d", "-4"}) == "-d/--depth must not be negative");
  CHECK(error_of({"--counters", "bogus"}).find("--counters: 'bogus'") == 0);
  // The command line's value wins, so an error about it names no file.
  const TempConfig cfg("uts_test_where.conf", "depth = 3\n");
  CHECK(error_of({"--config", cfg.path, "-d", "-4"}) == "-d/--depth must not be negative");
  const TempConfig ok("uts_test_where2.conf", "depth = -4\n");
  CHECK(error_of({"--config", ok.path, "-d", "3"}).empty());
}

TEST_CASE("a preset file's refused values name the preset's file:line") {
  const std::string dir = "uts_test_presets";
  std::filesystem::create_directory(dir);
  const std::string path = dir + "/Broken.conf";
  {
    std::ofstream f(path);
    f << "description = a broken preset\ntree = geo\ndepth = -4\n";
  }
  const char* old = std::getenv("UTS_PRESET_DIR");
  const std::string saved = old ? old : "";
  ::setenv("UTS_PRESET_DIR", dir.c_str(), 1);
  const std::string e = error_of({"--preset", "broken"});
  CHECK(e == path + ":3: -d/--depth must not be negative");
  // A config file on top sets depth: its line is the one named.
  const TempConfig cfg("uts_test_over.conf", "depth = -5\n");
  CHECK(error_of({"--preset", "broken", "--config", cfg.path}) == cfg.path + ":1: -d/--depth must not be negative");
  CHECK(error_of({"--preset", "broken", "-d", "4"}).empty());
  if (old) ::setenv("UTS_PRESET_DIR", saved.c_str(), 1);
  else ::unsetenv("UTS_PRESET_DIR");
  std::filesystem::remove_all(dir);
}

TEST_CASE("ranks: --rank-split and --rank-poll-max, their defaults and their bad values") {
  const auto d = parse({});
  CHECK(d.engine.ranks.split == RankSplit::levels);
  CHECK(d.engine.ranks.poll == 256);
  CHECK(d.engine.ranks.poll_max == 4096);  // adaptive by default
  CHECK(d.engine.ranks.w == 1);
  CHECK(parse({"--rank-split", "shallowest"}).engine.ranks.split == RankSplit::shallowest);
  const auto a = parse({"--rank-poll", "64", "--rank-poll-max", "4096"});
  CHECK(a.engine.ranks.poll == 64);
  CHECK(a.engine.ranks.poll_max == 4096);
  CHECK(parse({"--rank-poll", "300"}).engine.ranks.poll_max == 4096);
  CHECK(parse({"--rank-poll", "8192"}).engine.ranks.poll_max == 8192);  // fixed: no longer than the shortest
  CHECK(parse({"--rank-poll", "300", "--rank-poll-max", "300"}).engine.ranks.poll_max == 300);
  CHECK(error_of({"--rank-split", "half"}).find("--rank-split") != std::string::npos);
  CHECK(error_of({"--rank-poll-max", "0"}).find("--rank-poll-max") != std::string::npos);
  CHECK(error_of({"--rank-poll-max", "16777217"}).find("--rank-poll-max") != std::string::npos);
  CHECK(error_of({"--rank-poll", "512", "--rank-poll-max", "256"}).find("below --rank-poll 512") != std::string::npos);
}
