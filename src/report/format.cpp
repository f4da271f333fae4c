#include "report/format.hpp"

#include "report/text_util.hpp"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace uts {

namespace {

using fmt::json_string;
using fmt::num;

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
// Processing elements: ranks x threads (spec section 6).
int pe_count(const RunReport& r) { return thread_count(r) * (r.engine.sequential ? 1 : r.engine.ranks); }

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
  static const char* const kNames[] = {"split deques", "locked chunk stacks", "request/response (private deques)",
                                       "Chase-Lev deques"};
  std::ostringstream s;
  s << "Engine: " << kNames[static_cast<int>(e.protocol)] << " (--protocol " << to_string(e.protocol) << "), "
    << e.threads << (e.threads == 1 ? " thread" : " threads");
  if (e.mpi)
    s << " per rank x " << e.ranks << (e.ranks == 1 ? " MPI rank" : " MPI ranks") << " = " << e.threads * e.ranks
      << " PEs (answers of at most " << e.rank_chunk << " nodes, polled every " << e.rank_poll << " expansions)";
  if (e.stealing) {
    s << ", steal " << to_string(e.steal) << ", victim " << to_string(e.victim);
    if (e.victim == VictimOrder::hier)
      s << " (local " << to_string(e.steal_local) << ", remote " << to_string(e.steal_remote) << ")";
    if (e.protocol == Protocol::request) s << ", poll every " << e.poll_interval << " expansions";
  } else {
    s << ", work stealing off (-s 0)";
  }
  if (e.uses_domains()) {
    s << ", domains " << to_string(e.domains);
    if (e.remote_delay_ns) s << ", remote delay " << e.remote_delay_ns << " ns";
  }
  s << ", init " << to_string(e.init) << hash;
  return s.str();
}

// Which counters a protocol has (the others are printed as "-" / null / empty,
// never as a zero that would look measured).
bool has_shares(Protocol p) { return p != Protocol::chaselev; }
bool has_reclaims(Protocol p) { return p == Protocol::split || p == Protocol::locked; }
bool has_requests(Protocol p) { return p == Protocol::request; }

std::string text_count(bool applies, std::uint64_t v, int width) {
  char buf[32];
  if (applies) std::snprintf(buf, sizeof buf, "%*" PRIu64, width, v);
  else std::snprintf(buf, sizeof buf, "%*s", width, "-");
  return buf;
}

std::string json_count(bool applies, std::uint64_t v) { return applies ? std::to_string(v) : "null"; }
std::string csv_count(bool applies, std::uint64_t v) { return applies ? std::to_string(v) : ""; }

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
    << " nodes/sec (" << fixed(rate / pe_count(r), 0) << " nodes/sec per PE)\n";
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
    const Protocol p = r.engine.protocol;
    s << "thread        nodes   share  attempts   steals   stolen  examined  shares   shared reclaims reclaimed"
         "  sleeps  idle(s)";
    if (has_requests(p)) s << "     sent answered  refused withdrawn  wait(s)";
    s << "\n";
    for (std::size_t i = 0; i < res.threads.size(); ++i) {
      const ThreadStats& t = res.threads[i];
      char line[256];
      std::snprintf(line, sizeof line, "%6zu %12" PRIu64 " %6.2f%% %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64,
                    i, t.nodes, c.nodes ? 100.0 * double(t.nodes) / double(c.nodes) : 0.0, t.steal_attempts,
                    t.steals, t.nodes_stolen, t.deques_examined);
      s << line << " " << text_count(has_shares(p), t.shares, 7) << " " << text_count(has_shares(p), t.nodes_shared, 8)
        << " " << text_count(has_reclaims(p), t.reclaims, 8) << " " << text_count(has_reclaims(p), t.nodes_reclaimed, 9);
      std::snprintf(line, sizeof line, " %7" PRIu64 " %8.3f", t.sleeps, t.idle_seconds);
      s << line;
      if (has_requests(p)) {
        std::snprintf(line, sizeof line, " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8.3f", t.requests_sent,
                      t.requests_answered, t.requests_refused, t.requests_withdrawn, t.request_wait_seconds);
        s << line;
      }
      s << "\n";
    }
    s << "Steal success rate = " << fixed(100 * a.steal_success_rate, 2)
      << "%, nodes per steal = " << fixed(a.nodes_per_steal, 2)
      << ", deques examined per attempt = " << fixed(a.deques_per_attempt, 2)
      << ", node share variance = " << a.share_variance
      << " (relative " << a.share_relative_variance << ")\n";
    if (res.domains) {
      const DomainMap& m = *res.domains;
      const DomainAggregates da = aggregate_domains(res);
      s << "Domains: " << m.count << " (" << m.source << ")\n";
      s << "thread domain  local: attempts   steals    nodes  remote: attempts   steals    nodes\n";
      for (std::size_t i = 0; i < res.threads.size(); ++i) {
        const ThreadStats& t = res.threads[i];
        char line[200];
        std::snprintf(line, sizeof line,
                      "%6zu %6d  %16" PRIu64 " %8" PRIu64 " %8" PRIu64 "  %17" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n", i,
                      m.of_thread[i], t.local_steal_attempts, t.local_steals, t.local_steal_nodes,
                      t.remote_steal_attempts, t.remote_steals, t.remote_steal_nodes);
        s << line;
      }
      s << "domain threads        nodes   share  local steals remote steals\n";
      for (std::size_t d = 0; d < da.domains.size(); ++d) {
        const DomainStats& x = da.domains[d];
        char line[160];
        std::snprintf(line, sizeof line, "%6zu %7d %12" PRIu64 " %6.2f%% %13" PRIu64 " %13" PRIu64 "\n", d,
                      x.threads, x.nodes, 100.0 * x.share, x.local_steals, x.remote_steals);
        s << line;
      }
      s << "Domain node share variance = " << da.share_variance << " (relative " << da.share_relative_variance
        << ")\n";
    }
    if (has_requests(p))
      s << "Requests: " << a.requests_sent << " sent, " << a.requests_answered << " answered with work, "
        << a.requests_refused << " refused, " << a.requests_withdrawn << " withdrawn; mean wait for an answer = "
        << fixed(1e6 * a.mean_request_wait_seconds, 2) << " us\n";
    if (!res.ranks.empty()) {
      s << "rank threads  thief: requests   steals  refused    nodes  victim: requests answered  refused    nodes"
           "  tokens  wait(s)\n";
      for (std::size_t i = 0; i < res.ranks.size(); ++i) {
        const RankStats& k = res.ranks[i];
        char line[256];
        std::snprintf(line, sizeof line,
                      "%4zu %7d  %15" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "  %16" PRIu64 " %8" PRIu64
                      " %8" PRIu64 " %8" PRIu64 " %7" PRIu64 " %8.3f\n",
                      i, k.threads, k.requests_sent, k.steals, k.refusals, k.nodes_received, k.requests_received,
                      k.requests_answered, k.requests_refused, k.nodes_sent, k.tokens_passed, k.request_wait_seconds);
        s << line;
      }
    }
  }
  if (verbose > 0) {
    const ReferenceFlags& ref = r.engine.reference;
    if (ref.barrier_interval)
      s << "-i " << *ref.barrier_interval << " (barrier polling interval): not applicable, no barrier here\n";
    if (ref.poll_interval)
      s << "-I " << *ref.poll_interval << " (work-request poll interval): not applicable to --protocol "
        << to_string(r.engine.protocol) << " (only request polls)\n";
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
    << ",\"protocol\":" << (e.sequential ? "null" : json_string(to_string(e.protocol)))
    << ",\"poll_interval\":" << (!e.sequential && e.protocol == Protocol::request ? std::to_string(e.poll_interval) : "null")
    << ",\"threads\":" << thread_count(r) << ",\"ranks\":" << (e.sequential ? 1 : e.ranks)
    << ",\"pes\":" << pe_count(r) << ",\"mpi\":" << (e.mpi ? "true" : "false")
    << ",\"rank_chunk\":" << (e.mpi ? std::to_string(e.rank_chunk) : "null")
    << ",\"rank_poll\":" << (e.mpi ? std::to_string(e.rank_poll) : "null") << ",\"steal\":" << json_string(to_string(e.steal))
    << ",\"victim\":" << json_string(to_string(e.victim)) << ",\"init\":" << json_string(to_string(e.init))
    << ",\"stealing\":" << (e.stealing ? "true" : "false") << ",\"sha1\":" << json_string(sha1::to_string(e.sha1))
    << ",\"domains\":" << (e.uses_domains() ? json_string(to_string(e.domains)) : "null")
    << ",\"steal_local\":" << (e.victim == VictimOrder::hier ? json_string(to_string(e.steal_local)) : "null")
    << ",\"steal_remote\":" << (e.victim == VictimOrder::hier ? json_string(to_string(e.steal_remote)) : "null")
    << ",\"remote_delay_ns\":" << e.remote_delay_ns;
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
    << ",\"nodes_per_sec_per_thread\":" << num(rate / pe_count(r)) << ",\"nodes_per_sec_per_pe\":"
    << num(rate / pe_count(r)) << "}";
  const Protocol p = e.protocol;
  s << ",\"threads\":[";
  for (std::size_t i = 0; i < res.threads.size(); ++i) {
    const ThreadStats& th = res.threads[i];
    s << (i ? "," : "") << "{\"thread\":" << i;
    if (e.mpi) s << ",\"rank\":" << i / static_cast<std::size_t>(e.threads) << ",\"rank_thread\":" << i % static_cast<std::size_t>(e.threads);
    s << ",\"nodes\":" << th.nodes
      << ",\"steal_attempts\":" << th.steal_attempts << ",\"steals\":" << th.steals
      << ",\"nodes_stolen\":" << th.nodes_stolen << ",\"deques_examined\":" << th.deques_examined
      << ",\"shares\":" << json_count(has_shares(p), th.shares)
      << ",\"nodes_shared\":" << json_count(has_shares(p), th.nodes_shared)
      << ",\"reclaims\":" << json_count(has_reclaims(p), th.reclaims)
      << ",\"nodes_reclaimed\":" << json_count(has_reclaims(p), th.nodes_reclaimed)
      << ",\"sleeps\":" << th.sleeps << ",\"idle_seconds\":" << num(th.idle_seconds);
    if (has_requests(p))
      s << ",\"requests_sent\":" << th.requests_sent << ",\"requests_answered\":" << th.requests_answered
        << ",\"requests_refused\":" << th.requests_refused << ",\"requests_withdrawn\":" << th.requests_withdrawn
        << ",\"request_wait_seconds\":" << num(th.request_wait_seconds);
    if (res.domains)
      s << ",\"domain\":" << res.domains->of_thread[i] << ",\"local_steal_attempts\":" << th.local_steal_attempts
        << ",\"local_steals\":" << th.local_steals << ",\"local_steal_nodes\":" << th.local_steal_nodes
        << ",\"remote_steal_attempts\":" << th.remote_steal_attempts << ",\"remote_steals\":" << th.remote_steals
        << ",\"remote_steal_nodes\":" << th.remote_steal_nodes;
    s << "}";
  }
  s << "]";
  const Aggregates a = aggregate(res);
  s << ",\"aggregates\":{\"steal_attempts\":" << a.steal_attempts << ",\"steals\":" << a.steals
    << ",\"nodes_stolen\":" << a.nodes_stolen << ",\"deques_examined\":" << a.deques_examined
    << ",\"shares\":" << json_count(has_shares(p), a.shares)
    << ",\"nodes_shared\":" << json_count(has_shares(p), a.nodes_shared)
    << ",\"reclaims\":" << json_count(has_reclaims(p), a.reclaims)
    << ",\"nodes_reclaimed\":" << json_count(has_reclaims(p), a.nodes_reclaimed)
    << ",\"sleeps\":" << a.sleeps << ",\"steal_success_rate\":" << num(a.steal_success_rate)
    << ",\"nodes_per_steal\":" << num(a.nodes_per_steal)
    << ",\"deques_examined_per_attempt\":" << num(a.deques_per_attempt)
    << ",\"deques_examined_per_steal\":" << num(a.deques_per_steal)
    << ",\"node_share_mean\":" << num(a.share_mean) << ",\"node_share_variance\":" << num(a.share_variance)
    << ",\"node_share_relative_variance\":" << num(a.share_relative_variance)
    << ",\"idle_seconds\":" << num(a.idle_seconds);
  if (has_requests(p))
    s << ",\"requests_sent\":" << a.requests_sent << ",\"requests_answered\":" << a.requests_answered
      << ",\"requests_refused\":" << a.requests_refused << ",\"requests_withdrawn\":" << a.requests_withdrawn
      << ",\"request_wait_seconds\":" << num(a.request_wait_seconds)
      << ",\"mean_request_wait_seconds\":" << num(a.mean_request_wait_seconds);
  if (res.domains)
    s << ",\"local_steal_attempts\":" << a.local_steal_attempts << ",\"local_steals\":" << a.local_steals
      << ",\"local_steal_nodes\":" << a.local_steal_nodes << ",\"remote_steal_attempts\":" << a.remote_steal_attempts
      << ",\"remote_steals\":" << a.remote_steals << ",\"remote_steal_nodes\":" << a.remote_steal_nodes;
  s << "}";
  if (res.domains) {
    const DomainMap& m = *res.domains;
    const DomainAggregates da = aggregate_domains(res);
    s << ",\"domains\":{\"count\":" << m.count << ",\"source\":" << json_string(m.source)
      << ",\"node_share_mean\":" << num(da.share_mean) << ",\"node_share_variance\":" << num(da.share_variance)
      << ",\"node_share_relative_variance\":" << num(da.share_relative_variance) << ",\"per_domain\":[";
    for (std::size_t d = 0; d < da.domains.size(); ++d) {
      const DomainStats& x = da.domains[d];
      s << (d ? "," : "") << "{\"domain\":" << d << ",\"threads\":" << x.threads << ",\"nodes\":" << x.nodes
        << ",\"node_share\":" << num(x.share) << ",\"local_steal_attempts\":" << x.local_steal_attempts
        << ",\"local_steals\":" << x.local_steals << ",\"local_steal_nodes\":" << x.local_steal_nodes
        << ",\"remote_steal_attempts\":" << x.remote_steal_attempts << ",\"remote_steals\":" << x.remote_steals
        << ",\"remote_steal_nodes\":" << x.remote_steal_nodes << "}";
    }
    s << "]}";
  }
  if (e.mpi) {
    s << ",\"ranks\":[";
    for (std::size_t i = 0; i < res.ranks.size(); ++i) {
      const RankStats& k = res.ranks[i];
      s << (i ? "," : "") << "{\"rank\":" << i << ",\"threads\":" << k.threads
        << ",\"requests_sent\":" << k.requests_sent << ",\"steals\":" << k.steals << ",\"refusals\":" << k.refusals
        << ",\"nodes_received\":" << k.nodes_received << ",\"requests_received\":" << k.requests_received
        << ",\"requests_answered\":" << k.requests_answered << ",\"requests_refused\":" << k.requests_refused
        << ",\"nodes_sent\":" << k.nodes_sent << ",\"tokens_passed\":" << k.tokens_passed
        << ",\"request_wait_seconds\":" << num(k.request_wait_seconds) << "}";
    }
    s << "]";
  }
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
         "node_share_relative_variance,idle_seconds,verified,openmp_runtime,hostname,"
         "protocol,poll_interval,requests_sent,requests_answered,requests_refused,requests_withdrawn,"
         "mean_request_wait_seconds,domains,domain_count,remote_delay_ns,steal_local,steal_remote,"
         "local_steal_attempts,local_steals,local_steal_nodes,remote_steal_attempts,remote_steals,"
         "remote_steal_nodes,domain_node_share_variance,ranks,global_requests_sent,global_steals,global_nodes_stolen\n";
}

std::string render_csv_row(const RunReport& r) {
  const RunResult& res = r.result;
  const TreeParams& t = r.tree;
  const Counts& c = res.counts;
  const Aggregates a = aggregate(res);
  const Protocol p = r.engine.protocol;
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
    << "," << a.deques_examined << "," << csv_count(has_shares(p), a.shares) << ","
    << csv_count(has_reclaims(p), a.reclaims) << "," << csv_count(has_shares(p), a.nodes_shared) << ","
    << csv_count(has_reclaims(p), a.nodes_reclaimed) << "," << a.sleeps << "," << (r.engine.stealing ? "true" : "false") << ","
    << sha1::to_string(r.engine.sha1) << ","
    << num(a.steal_success_rate) << "," << num(a.nodes_per_steal) << "," << num(a.deques_per_attempt)
    << "," << num(a.share_variance) << "," << num(a.share_relative_variance) << ","
    << num(a.idle_seconds) << "," << (r.verified ? (*r.verified ? "true" : "false") : "") << ","
    << r.machine.openmp_runtime << "," << csv_field(r.machine.hostname) << ",";
  const bool req = !r.engine.sequential && has_requests(p);
  s << (r.engine.sequential ? "" : to_string(p)) << "," << (req ? std::to_string(r.engine.poll_interval) : "") << ","
    << csv_count(req, a.requests_sent) << "," << csv_count(req, a.requests_answered) << ","
    << csv_count(req, a.requests_refused) << "," << csv_count(req, a.requests_withdrawn) << ","
    << (req ? num(a.mean_request_wait_seconds) : "") << ",";
  const bool dom = res.domains.has_value();
  const bool hier = r.engine.victim == VictimOrder::hier;
  s << (dom ? to_string(r.engine.domains) : "") << "," << (dom ? std::to_string(res.domains->count) : "") << ","
    << r.engine.remote_delay_ns << "," << (hier ? to_string(r.engine.steal_local) : "") << ","
    << (hier ? to_string(r.engine.steal_remote) : "") << "," << csv_count(dom, a.local_steal_attempts) << ","
    << csv_count(dom, a.local_steals) << "," << csv_count(dom, a.local_steal_nodes) << ","
    << csv_count(dom, a.remote_steal_attempts) << "," << csv_count(dom, a.remote_steals) << ","
    << csv_count(dom, a.remote_steal_nodes) << "," << (dom ? num(aggregate_domains(res).share_variance) : "") << ",";
  // MPI: ranks and the ranks' global stealing (empty without mpirun).
  std::uint64_t g_sent = 0, g_steals = 0, g_nodes = 0;
  for (const RankStats& k : res.ranks) {
    g_sent += k.requests_sent;
    g_steals += k.steals;
    g_nodes += k.nodes_received;
  }
  const bool mpi = r.engine.mpi && !r.engine.sequential;
  s << (r.engine.sequential ? 1 : r.engine.ranks) << "," << csv_count(mpi, g_sent) << "," << csv_count(mpi, g_steals)
    << "," << csv_count(mpi, g_nodes) << "\n";
  return s.str();
}

}  // namespace uts
