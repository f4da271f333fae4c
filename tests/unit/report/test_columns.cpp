// report/columns.hpp: the one table behind CSV and JSON. The CSV header is a
// contract (scripts parse it): it must stay exactly as published; every
// column is named once; a field that does not apply is empty or null.
#include <doctest/doctest.h>

#include <cstdio>
#include <set>
#include <string>

#include "report/columns.hpp"
#include "report/format.hpp"

using namespace uts;

namespace {

MachineInfo machine() {
  MachineInfo m;
  m.hostname = "host, with a comma";
  m.uts_version = "test";
  return m;
}

}  // namespace

TEST_CASE("the CSV header keeps the published columns, in order; new ones only come at the end") {
  // The header as first published with every protocol, locality and rank
  // column (when MPI ranks came in): scripts index these columns by name or
  // by position.
  const std::string published =
      "uts_version,timestamp_utc,preset,tree,shape,b0,depth,q,m,shift,seed,granularity,rng,root_id,"
      "engine,threads,steal,victim,init,status,size,tree_depth,leaves,checksum,truncations,seconds,"
      "nodes_per_sec,steal_attempts,steals,nodes_stolen,deques_examined,shares,reclaims,nodes_shared,"
      "nodes_reclaimed,sleeps,stealing,sha1,"
      "steal_success_rate,nodes_per_steal,deques_examined_per_attempt,node_share_variance,"
      "node_share_relative_variance,idle_seconds,verified,openmp_runtime,hostname,"
      "protocol,poll_interval,requests_sent,requests_answered,requests_refused,requests_withdrawn,"
      "mean_request_wait_seconds,domains,domain_count,remote_delay_ns,steal_local,steal_remote,"
      "local_steal_attempts,local_steals,local_steal_nodes,remote_steal_attempts,remote_steals,"
      "remote_steal_nodes,domain_node_share_variance,ranks,global_requests_sent,global_steals,global_nodes_stolen";
  const std::string header = csv_header();
  REQUIRE(header.size() > published.size());
  CHECK(header.compare(0, published.size(), published) == 0);
  CHECK(header[published.size()] == ',');  // more columns follow, appended
  CHECK(header.back() == '\n');
}

TEST_CASE("every column has a name, each CSV name and each JSON name within its object once") {
  std::set<std::string> csv, json;
  for (const Column& c : run_columns()) {
    CHECK((c.csv || c.group));
    CHECK((c.value != nullptr));
    if (c.csv) CHECK(csv.insert(c.csv).second);
    if (c.group) {
      REQUIRE(c.json);
      CHECK(json.insert(std::string(c.group) + "." + c.json).second);
    }
  }
  for (auto table : {thread_columns(), domain_columns(), rank_columns()}) {
    std::set<std::string> names;
    for (const RowColumn& c : table) CHECK(names.insert(c.json).second);
  }
}

TEST_CASE("fields that do not apply: empty in CSV, null or absent in JSON, never zero") {
  TreeParams tree;
  EngineSettings engine;
  engine.threads = 1;
  engine.protocol = "chaselev";
  RunResult result;
  result.threads.resize(1);
  const ExpectedResults expected;
  const MachineInfo m = machine();
  const RunReport report{tree, engine, "", result, expected, std::nullopt, m};
  const std::string json = render_json(report);
  CHECK(json.find("\"shares\":null") != std::string::npos);      // Chase-Lev keeps no shares
  CHECK(json.find("\"preset\":null") != std::string::npos);
  CHECK(json.find("\"verified\":null") != std::string::npos);
  CHECK(json.find("requests_sent") == std::string::npos);        // not a polling protocol: absent
  CHECK(json.find("\"ranks\":[") == std::string::npos);          // not under mpirun
  CHECK(json.find("\"domains\":{") == std::string::npos);
  CHECK(json.find("\"hostname\":\"host, with a comma\"") != std::string::npos);
  const std::string row = render_csv_row(report);
  CHECK(row.find("\"host, with a comma\"") != std::string::npos);  // quoted in CSV
  CHECK(row.find(",chaselev,,") != std::string::npos);            // protocol, then no poll interval
}

TEST_CASE("memory: a figure not read is null (empty in CSV), never 0; under MPI the ranks' largest, sum and hosts") {
  TreeParams tree;
  EngineSettings engine;
  engine.threads = 1;
  engine.protocol = "chaselev";
  RunResult result;
  result.threads.resize(1);
  const ExpectedResults expected;
  const MachineInfo m = machine();
  {
    const RunReport report{tree, engine, "", result, expected, std::nullopt, m};
    const std::string json = render_json(report);
    CHECK(json.find("\"memory\":{\"peak_rss_bytes\":null,\"start_peak_rss_bytes\":null,\"start_rss_bytes\":null,"
                    "\"peak_rss_source\":null,\"peak_rss_bytes_sum\":null}") != std::string::npos);
    const std::string row = render_csv_row(report);
    CHECK(row.size() >= 6);
    CHECK(row.compare(row.size() - 6, 6, ",,,,,\n") == 0);  // the five memory columns, last and empty
  }
  result.memory = ProcessMemory{3 << 20, 2 << 20, 1 << 20, true};
  {
    const RunReport report{tree, engine, "", result, expected, std::nullopt, m};
    CHECK(render_json(report).find("\"memory\":{\"peak_rss_bytes\":3145728,\"start_peak_rss_bytes\":2097152,"
                                   "\"start_rss_bytes\":1048576,\"peak_rss_source\":\"VmHWM\","
                                   "\"peak_rss_bytes_sum\":null}") != std::string::npos);
    const std::string row = render_csv_row(report);
    CHECK(row.find(",3145728,2097152,1048576,VmHWM,\n") != std::string::npos);
  }
  // Three ranks on two hosts: the record holds the largest of each figure,
  // the sum of the peaks, and the peaks summed per host.
  engine.ranks.under_mpi = true;
  engine.ranks.count = 3;
  result.threads.resize(3);
  result.ranks.resize(3);
  result.rank_places.resize(3);
  const std::uint64_t peaks[3] = {5 << 20, 9 << 20, 7 << 20};
  const char* hosts[3] = {"a", "b", "a"};
  for (int i = 0; i < 3; ++i) {
    result.ranks[i].memory = ProcessMemory{peaks[i], 4 << 20, std::uint64_t(i + 1) << 20, true};
    std::snprintf(result.rank_places[i].host, sizeof result.rank_places[i].host, "%s", hosts[i]);
  }
  const RunReport report{tree, engine, "", result, expected, std::nullopt, m};
  const std::string json = render_json(report);
  CHECK(json.find("\"memory\":{\"peak_rss_bytes\":9437184,\"start_peak_rss_bytes\":4194304,\"start_rss_bytes\":3145728,"
                  "\"peak_rss_source\":\"VmHWM\",\"peak_rss_bytes_sum\":22020096,\"hosts\":["
                  "{\"host\":\"a\",\"ranks\":2,\"peak_rss_bytes_sum\":12582912},"
                  "{\"host\":\"b\",\"ranks\":1,\"peak_rss_bytes_sum\":9437184}]}") != std::string::npos);
  CHECK(json.find("\"peak_rss_bytes\":7340032,\"start_peak_rss_bytes\":4194304,\"start_rss_bytes\":3145728}") !=
        std::string::npos);  // rank 2's row
  const MemoryFigures f = memory_figures(RecordView(report));
  CHECK(f.peak == (9u << 20));
  CHECK(f.peak_sum == (21u << 20));
  CHECK(f.from_proc);
}
