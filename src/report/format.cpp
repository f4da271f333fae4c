#include "report/format.hpp"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace uts {

namespace {

std::string num(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string hex64(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

double nodes_per_sec(const RunResult& r) {
  return r.seconds > 0 ? double(r.counts.nodes) / r.seconds : 0.0;
}

int thread_count(const RunReport& r) { return r.engine.sequential ? 1 : r.engine.threads; }

std::string tree_summary(const TreeParams& t) {
  std::ostringstream s;
  s << "Tree: " << to_string(t.type);
  const bool geo = t.type == TreeType::geometric || t.type == TreeType::hybrid;
  const bool bin = t.type == TreeType::binomial || t.type == TreeType::hybrid;
  if (geo) s << " (shape " << to_string(t.shape) << ")";
  s << ", b0 = " << num(t.b0);
  if (t.type != TreeType::binomial) s << ", depth = " << t.depth;
  if (bin) s << ", q = " << num(t.q) << ", m = " << t.m;
  if (t.type == TreeType::hybrid) s << ", shift = " << num(t.shift);
  if (t.rng == RngConvention::uts) s << ", seed = " << t.seed;
  else s << ", rng = paper2003, root id = " << sha1::to_hex(*t.root_id);
  if (t.granularity != 1) s << ", granularity = " << t.granularity;
  return s.str();
}

std::string engine_summary(const EngineSettings& e) {
  const std::string hash = std::string(", SHA-1 ") + sha1::to_string(e.sha1);
  if (e.sequential) return "Engine: sequential depth-first baseline" + hash;
  std::ostringstream s;
  s << "Engine: split deques, " << e.threads << (e.threads == 1 ? " thread" : " threads");
  if (e.stealing) s << ", steal " << to_string(e.steal) << ", victim " << to_string(e.victim);
  else s << ", work stealing off (-s 0)";
  s << ", init " << to_string(e.init) << hash;
  return s.str();
}

}  // namespace

bool matches_expected(const RunResult& result, const ExpectedResults& expected) {
  if (result.status != RunStatus::complete) return false;
  if (expected.size && *expected.size != result.counts.nodes) return false;
  if (expected.depth && *expected.depth != result.counts.max_depth) return false;
  if (expected.leaves && *expected.leaves != result.counts.leaves) return false;
  return true;
}

std::string render_text(const RunReport& r, int verbose) {
  const RunResult& res = r.result;
  const Counts& c = res.counts;
  std::ostringstream s;
  s << "UTS " << r.machine.uts_version << " - Unbalanced Tree Search"
    << (r.preset.empty() ? "" : " (preset " + r.preset + ")") << "\n";
  s << tree_summary(r.tree) << "\n" << engine_summary(r.engine) << "\n";
  if (res.status != RunStatus::complete)
    s << "*** PARTIAL RESULTS: run " << (res.status == RunStatus::interrupted ? "interrupted by SIGINT" : "stopped at --max-nodes")
      << "; the numbers below cover only the nodes visited so far\n";
  const double leaf_pct = c.nodes ? 100.0 * double(c.leaves) / double(c.nodes) : 0.0;
  s << "Tree size = " << c.nodes << ", tree depth = " << c.max_depth << ", num leaves = " << c.leaves
    << " (" << fixed(leaf_pct, 2) << "%)\n";
  const double rate = nodes_per_sec(res);
  s << "Wallclock time = " << fixed(res.seconds, 3) << " sec, performance = " << fixed(rate, 0)
    << " nodes/sec (" << fixed(rate / thread_count(r), 0) << " nodes/sec per PE)\n";
  s << "Checksum = " << hex64(c.checksum) << "\n";
  if (r.verified) {
    s << "Verify: " << (*r.verified ? "OK" : "MISMATCH") << " (expected";
    if (r.expected.size) s << " size " << *r.expected.size;
    if (r.expected.depth) s << " depth " << *r.expected.depth;
    if (r.expected.leaves) s << " leaves " << *r.expected.leaves;
    s << ")\n";
  }
  if (verbose > 0 && !res.threads.empty()) {
    const Aggregates a = aggregate(res);
    s << "thread        nodes   share  attempts   steals   stolen  examined  shares   shared reclaims reclaimed"
         "  sleeps  idle(s)\n";
    for (std::size_t i = 0; i < res.threads.size(); ++i) {
      const ThreadStats& t = res.threads[i];
      char line[256];
      std::snprintf(line, sizeof line,
                    "%6zu %12" PRIu64 " %6.2f%% %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64
                    " %7" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %7" PRIu64 " %8.3f\n",
                    i, t.nodes, c.nodes ? 100.0 * double(t.nodes) / double(c.nodes) : 0.0,
                    t.steal_attempts, t.steals, t.nodes_stolen, t.deques_examined, t.shares,
                    t.nodes_shared, t.reclaims, t.nodes_reclaimed, t.sleeps, t.idle_seconds);
      s << line;
    }
    s << "Steal success rate = " << fixed(100 * a.steal_success_rate, 2)
      << "%, nodes per steal = " << fixed(a.nodes_per_steal, 2)
      << ", deques examined per attempt = " << fixed(a.deques_per_attempt, 2)
      << ", node share variance = " << a.share_variance
      << " (relative " << a.share_relative_variance << ")\n";
  }
  if (verbose > 0) {
    const ReferenceFlags& ref = r.engine.reference;
    if (ref.barrier_interval)
      s << "-i " << *ref.barrier_interval << " (barrier polling interval): not applicable, no barrier here\n";
    if (ref.poll_interval)
      s << "-I " << *ref.poll_interval << " (work-request poll interval): not applicable to split deques\n";
    if (ref.debug_level) s << "-x " << *ref.debug_level << " (debug level): not applicable, no debug output\n";
  }
  return s.str();
}

std::string render_json(const RunReport& r) {
  const RunResult& res = r.result;
  const TreeParams& t = r.tree;
  const Counts& c = res.counts;
  const MachineInfo& m = r.machine;
  const double rate = nodes_per_sec(res);
  std::ostringstream s;
  s << "{\"uts_version\":" << json_string(m.uts_version) << ",\"status\":" << json_string(to_string(res.status));
  s << ",\"parameters\":{\"preset\":" << (r.preset.empty() ? "null" : json_string(r.preset))
    << ",\"tree\":" << json_string(to_string(t.type)) << ",\"tree_code\":" << static_cast<int>(t.type)
    << ",\"shape\":" << json_string(to_string(t.shape)) << ",\"b0\":" << num(t.b0)
    << ",\"depth\":" << t.depth << ",\"q\":" << num(t.q) << ",\"m\":" << t.m
    << ",\"shift\":" << num(t.shift) << ",\"seed\":" << t.seed
    << ",\"granularity\":" << t.granularity << ",\"rng\":" << json_string(to_string(t.rng))
    << ",\"root_id\":" << (t.root_id ? json_string(sha1::to_hex(*t.root_id)) : "null") << "}";
  const EngineSettings& e = r.engine;
  s << ",\"engine\":{\"kind\":" << json_string(e.sequential ? "sequential" : "parallel")
    << ",\"threads\":" << thread_count(r) << ",\"steal\":" << json_string(to_string(e.steal))
    << ",\"victim\":" << json_string(to_string(e.victim)) << ",\"init\":" << json_string(to_string(e.init))
    << ",\"stealing\":" << (e.stealing ? "true" : "false") << ",\"sha1\":" << json_string(sha1::to_string(e.sha1));
  auto opt_int = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("null"); };
  s << ",\"not_applicable\":{\"barrier_interval\":" << opt_int(e.reference.barrier_interval)
    << ",\"poll_interval\":" << opt_int(e.reference.poll_interval)
    << ",\"debug_level\":" << opt_int(e.reference.debug_level) << "}}";
  s << ",\"results\":{\"size\":" << c.nodes << ",\"depth\":" << c.max_depth << ",\"leaves\":" << c.leaves
    << ",\"checksum\":" << json_string(hex64(c.checksum)) << ",\"truncations\":" << res.truncations << "}";
  auto opt = [](const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : std::string("null"); };
  s << ",\"expected\":{\"size\":" << opt(r.expected.size) << ",\"depth\":" << opt(r.expected.depth)
    << ",\"leaves\":" << opt(r.expected.leaves) << "}";
  s << ",\"verified\":" << (r.verified ? (*r.verified ? "true" : "false") : "null");
  s << ",\"timing\":{\"seconds\":" << num(res.seconds) << ",\"nodes_per_sec\":" << num(rate)
    << ",\"nodes_per_sec_per_thread\":" << num(rate / thread_count(r)) << "}";
  s << ",\"threads\":[";
  for (std::size_t i = 0; i < res.threads.size(); ++i) {
    const ThreadStats& th = res.threads[i];
    s << (i ? "," : "") << "{\"thread\":" << i << ",\"nodes\":" << th.nodes
      << ",\"steal_attempts\":" << th.steal_attempts << ",\"steals\":" << th.steals
      << ",\"nodes_stolen\":" << th.nodes_stolen << ",\"deques_examined\":" << th.deques_examined
      << ",\"shares\":" << th.shares << ",\"nodes_shared\":" << th.nodes_shared
      << ",\"reclaims\":" << th.reclaims << ",\"nodes_reclaimed\":" << th.nodes_reclaimed
      << ",\"sleeps\":" << th.sleeps << ",\"idle_seconds\":" << num(th.idle_seconds) << "}";
  }
  s << "]";
  const Aggregates a = aggregate(res);
  s << ",\"aggregates\":{\"steal_attempts\":" << a.steal_attempts << ",\"steals\":" << a.steals
    << ",\"nodes_stolen\":" << a.nodes_stolen << ",\"deques_examined\":" << a.deques_examined
    << ",\"shares\":" << a.shares << ",\"nodes_shared\":" << a.nodes_shared
    << ",\"reclaims\":" << a.reclaims << ",\"nodes_reclaimed\":" << a.nodes_reclaimed
    << ",\"sleeps\":" << a.sleeps << ",\"steal_success_rate\":" << num(a.steal_success_rate)
    << ",\"nodes_per_steal\":" << num(a.nodes_per_steal)
    << ",\"deques_examined_per_attempt\":" << num(a.deques_per_attempt)
    << ",\"deques_examined_per_steal\":" << num(a.deques_per_steal)
    << ",\"node_share_mean\":" << num(a.share_mean) << ",\"node_share_variance\":" << num(a.share_variance)
    << ",\"node_share_relative_variance\":" << num(a.share_relative_variance)
    << ",\"idle_seconds\":" << num(a.idle_seconds) << "}";
  s << ",\"machine\":{\"hostname\":" << json_string(m.hostname) << ",\"cpu_model\":" << json_string(m.cpu_model)
    << ",\"logical_cpus\":" << m.logical_cpus << ",\"sha_ni\":" << (m.sha_ni ? "true" : "false")
    << ",\"openmp_runtime\":" << json_string(m.openmp_runtime) << ",\"openmp_version\":" << m.openmp_version
    << ",\"omp_places\":" << json_string(m.omp_places) << ",\"omp_proc_bind\":" << json_string(m.omp_proc_bind)
    << ",\"compiler\":" << json_string(m.compiler) << ",\"build_type\":" << json_string(m.build_type)
    << ",\"cryptopp_version\":" << json_string(m.cryptopp_version)
    << ",\"timestamp_utc\":" << json_string(m.timestamp_utc) << "}";
  s << "}\n";
  return s.str();
}

std::string csv_header() {
  return "uts_version,timestamp_utc,preset,tree,shape,b0,depth,q,m,shift,seed,granularity,rng,root_id,"
         "engine,threads,steal,victim,init,status,size,tree_depth,leaves,checksum,truncations,seconds,"
         "nodes_per_sec,steal_attempts,steals,nodes_stolen,deques_examined,shares,reclaims,nodes_shared,"
         "nodes_reclaimed,sleeps,stealing,sha1,"
         "steal_success_rate,nodes_per_steal,deques_examined_per_attempt,node_share_variance,"
         "node_share_relative_variance,idle_seconds,verified,openmp_runtime,hostname\n";
}

std::string render_csv_row(const RunReport& r) {
  const RunResult& res = r.result;
  const TreeParams& t = r.tree;
  const Counts& c = res.counts;
  const Aggregates a = aggregate(res);
  std::ostringstream s;
  s << csv_field(r.machine.uts_version) << "," << r.machine.timestamp_utc << "," << csv_field(r.preset) << ","
    << to_string(t.type) << "," << to_string(t.shape) << "," << num(t.b0) << "," << t.depth << ","
    << num(t.q) << "," << t.m << "," << num(t.shift) << "," << t.seed << "," << t.granularity << ","
    << to_string(t.rng) << "," << (t.root_id ? sha1::to_hex(*t.root_id) : "") << ","
    << (r.engine.sequential ? "sequential" : "parallel") << "," << thread_count(r) << ","
    << to_string(r.engine.steal) << "," << to_string(r.engine.victim) << "," << to_string(r.engine.init)
    << "," << to_string(res.status) << "," << c.nodes << "," << c.max_depth << "," << c.leaves << ","
    << hex64(c.checksum) << "," << res.truncations << "," << num(res.seconds) << ","
    << num(nodes_per_sec(res)) << "," << a.steal_attempts << "," << a.steals << "," << a.nodes_stolen
    << "," << a.deques_examined << "," << a.shares << "," << a.reclaims << "," << a.nodes_shared << ","
    << a.nodes_reclaimed << "," << a.sleeps << "," << (r.engine.stealing ? "true" : "false") << ","
    << sha1::to_string(r.engine.sha1) << ","
    << num(a.steal_success_rate) << "," << num(a.nodes_per_steal) << "," << num(a.deques_per_attempt)
    << "," << num(a.share_variance) << "," << num(a.share_relative_variance) << ","
    << num(a.idle_seconds) << "," << (r.verified ? (*r.verified ? "true" : "false") : "") << ","
    << r.machine.openmp_runtime << "," << csv_field(r.machine.hostname) << "\n";
  return s.str();
}

}  // namespace uts
