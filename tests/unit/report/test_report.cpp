// Counts above 2^32 (T1XXL, T2XXL and the WL trees) must print, go to JSON and
// CSV, and verify without being cut to 32 bits anywhere.
#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "report/format.hpp"
#include "support/t2xxl.hpp"

using namespace uts;

namespace {

constexpr std::uint64_t kRecordSize = test::kT2xxlSize;
constexpr std::uint32_t kRecordDepth = test::kT2xxlDepth;
constexpr std::uint64_t kRecordLeaves = test::kT2xxlLeaves;
using test::t2xxl_result;

MachineInfo plain_machine() {
  MachineInfo m;
  m.hostname = "host";
  m.cpu_model = "cpu";
  m.openmp_runtime = "libgomp";
  m.uts_version = "test";
  m.timestamp_utc = "2024-01-01T00:00:00Z";
  return m;
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::string strip_newline(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

TEST_CASE("text, JSON and CSV carry counts above 2^32 exactly") {
  TreeParams tree;
  tree.type = TreeType::binomial;
  tree.b0 = 2000;
  tree.q = 0.499999995;
  tree.m = 2;
  EngineSettings engine;
  engine.threads = 2;
  const RunResult result = t2xxl_result();
  ExpectedResults expected;
  expected.size = kRecordSize;
  expected.depth = kRecordDepth;
  expected.leaves = kRecordLeaves;
  const MachineInfo machine = plain_machine();
  const RunReport report{tree, engine, "T2XXL", result, expected, true, machine};

  const std::string text = render_text(report, 1);
  CHECK(text.find("Tree size = 10612052303, tree depth = 216370, num leaves = 5306027151 (50.00%)\n") !=
        std::string::npos);
  CHECK(text.find("Wallclock time = 100.000 sec, performance = 106120523 nodes/sec (53060262 nodes/sec per PE)") !=
        std::string::npos);
  CHECK(text.find("Verify: OK (expected size 10612052303 depth 216370 leaves 5306027151)") != std::string::npos);
  CHECK(text.find(" 6000000000 ") != std::string::npos);  // the per-thread table

  const std::string json = render_json(report);
  CHECK(json.find("\"results\":{\"size\":10612052303,\"depth\":216370,\"leaves\":5306027151,") != std::string::npos);
  CHECK(json.find("\"expected\":{\"size\":10612052303,\"depth\":216370,\"leaves\":5306027151}") != std::string::npos);
  CHECK(json.find("{\"thread\":0,\"nodes\":6000000000,\"steal_attempts\":5000000000,") != std::string::npos);
  CHECK(json.find("{\"thread\":1,\"nodes\":4612052303,") != std::string::npos);
  CHECK(json.find("\"nodes_stolen\":8600000000") != std::string::npos);  // the aggregate

  const std::vector<std::string> header = split_commas(strip_newline(csv_header()));
  const std::vector<std::string> row = split_commas(strip_newline(render_csv_row(report)));
  REQUIRE(row.size() == header.size());
  auto field = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return row[i];
    FAIL("no CSV column " << name);
    return std::string();
  };
  CHECK(field("size") == "10612052303");
  CHECK(field("tree_depth") == "216370");
  CHECK(field("leaves") == "5306027151");
  CHECK(field("preset") == "T2XXL");
  CHECK(field("steal_attempts") == "10000000000");
  CHECK(field("nodes_stolen") == "8600000000");
  CHECK(field("verified") == "true");
}
