#include <doctest/doctest.h>

#include <cstdio>
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
