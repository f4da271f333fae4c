// The text rendering of a run (format.hpp): the tree and engine lines, the
// reference's result lines, and with -v the per-thread, domain and rank
// tables, the time breakdown and where the run's settings came from.
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "base/interrupt.hpp"
#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/provenance.hpp"
#include "report/text_util.hpp"
#include "run/trace.hpp"
#include "schedulers/registry.hpp"
#include "sha1/words.hpp"
#include "steal/registry.hpp"

namespace uts {

namespace {

using fmt::hex64;
using fmt::num;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

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

std::string engine_summary(const EngineSettings& e, const ProtocolTraits& protocol) {
  const std::string hash = std::string(", SHA-1 ") + sha1::to_string(e.sha1);
  if (e.sequential) return "Engine: sequential depth-first baseline" + hash;
  std::ostringstream s;
  if (e.scheduler.foreign()) {  // a runtime's own scheduler (docs/schedulers.md)
    const SchedulerEntry* entry = find_scheduler(e.scheduler.name);
    s << "Engine: --scheduler " << e.scheduler.name << " (" << (entry ? entry->runtime() : std::string("?"))
      << "), form " << (e.scheduler.form == SchedulerForm::literature ? "literature" : "tuned");
    if (e.scheduler.form == SchedulerForm::tuned) s << ", task grain " << e.scheduler.grain << " nodes";
    s << ", " << e.threads << (e.threads == 1 ? " thread" : " threads") << hash;
    return s.str();
  }
  s << "Engine: " << protocol.engine_line << " (--protocol " << protocol.name << "), " << e.threads
    << (e.threads == 1 ? " thread" : " threads");
  if (e.ranks.under_mpi)
    s << " per rank x " << e.ranks.count << (e.ranks.count == 1 ? " MPI rank" : " MPI ranks") << " = "
      << e.threads * e.ranks.count << " PEs (answers of at most " << e.ranks.chunk << " nodes, split "
      << to_string(e.ranks.split) << ", polled every " << e.ranks.poll;
  if (e.ranks.under_mpi && e.ranks.poll_max > e.ranks.poll) s << " to " << e.ranks.poll_max;
  if (e.ranks.under_mpi) s << " expansions)";
  if (e.ranks.model_rate > 0)
    s << ", computation modelled at " << fixed(e.ranks.model_rate / 1e6, 3) << " M nodes/s per rank (--model-rate)";
  if (e.stealing) {
    s << ", steal " << to_string(e.steal) << ", victim " << to_string(e.victim);
    if (e.victim == VictimOrder::hier)
      s << " (local " << to_string(e.locality.steal_local) << ", remote " << to_string(e.locality.steal_remote)
        << ")";
    if (protocol.polls) s << ", poll every " << e.poll_interval << " expansions";
  } else {
    s << ", work stealing off (-s 0)";
  }
  if (e.uses_domains()) {
    s << ", domains " << to_string(e.locality.domains);
    if (e.locality.remote_delay_ns) s << ", remote delay " << e.locality.remote_delay_ns << " ns";
  }
  s << ", init " << to_string(e.init) << hash;
  return s.str();
}

std::string text_count(bool applies, std::uint64_t v, int width) {
  char buf[32];
  if (applies) std::snprintf(buf, sizeof buf, "%*" PRIu64, width, v);
  else std::snprintf(buf, sizeof buf, "%*s", width, "-");
  return buf;
}


// The --counters table, one row per thread (docs/trace.md).
void counters_table(std::ostream& s, const RunReport& r, const RunResult& res) {
  const CounterResults& cr = res.counters;
  if (r.counters_asked && !cr.names.empty() && !cr.per_thread.empty()) {
    s << "thread";
    for (const std::string& n : cr.names) s << " " << std::string(n.size() < 16 ? 16 - n.size() : 0, ' ') << n;
    s << "\n";
    for (std::size_t i = 0; i < cr.per_thread.size(); ++i) {
      char line[32];
      std::snprintf(line, sizeof line, "%6zu", i);
      s << line;
      for (std::size_t k = 0; k < cr.names.size(); ++k) {
        const std::int64_t v = k < cr.per_thread[i].size() ? cr.per_thread[i][k] : -1;
        std::snprintf(line, sizeof line, " %16s", v >= 0 ? std::to_string(v).c_str() : "-");
        s << line;
      }
      s << "\n";
    }
    if (cr.scaled) s << "Counters: multiplexed by the kernel, values scaled by time enabled / time running\n";
  }
}

}  // namespace

std::string render_text(const RunReport& r, int verbose) {
  const RecordView x(r);
  const RunResult& res = r.result;
  const Counts& c = res.counts;
  std::ostringstream s;
  s << "UTS " << r.machine.uts_version << " - Unbalanced Tree Search"
    << (r.preset.empty() ? "" : " (preset " + r.preset + ")")
    << (r.preset_base.empty() ? "" : " (from preset " + r.preset_base + ", tree changed: not its tree, its expected values dropped)")
    << "\n";
  s << tree_summary(r.tree) << "\n" << engine_summary(r.engine, x.protocol) << "\n";
  for (const std::string& i : r.ignored) s << "Ignored (set by a file, does not apply): " << i << "\n";
  if (res.status != RunStatus::complete)
    s << "*** PARTIAL RESULTS: run "
      << (res.status == RunStatus::interrupted ? "interrupted by " + interrupt::name_of(res.stop_signal)
                                               : std::string("stopped at --max-nodes"))
      << "; the numbers below cover only the nodes visited so far\n";
  const double leaf_pct = c.nodes ? 100.0 * double(c.leaves) / double(c.nodes) : 0.0;
  s << "Tree size = " << c.nodes << ", tree depth = " << c.max_depth << ", num leaves = " << c.leaves
    << " (" << fixed(leaf_pct, 2) << "%)\n";
  const double rate = x.nodes_per_sec;
  s << "Wallclock time = " << fixed(res.seconds, 3) << " sec, performance = " << fixed(rate, 0)
    << " nodes/sec (" << fixed(rate / x.pes, 0) << " nodes/sec per PE)\n";
  s << "Checksum = " << hex64(c.checksum) << "\n";
  // Resident memory (docs/output.md, section 4d), in the reference lines'
  // "Name = value" style; the peak before the run tells the traversal's
  // memory from what start-up took.
  if (const MemoryFigures m = memory_figures(x); m.peak > 0) {
    s << "Peak memory = " << fixed(double(m.peak) / 1048576.0, 1) << " MiB resident";
    if (r.engine.ranks.under_mpi && res.ranks.size() > 1)
      s << " (the most of " << res.ranks.size() << " ranks; " << fixed(double(m.peak_sum) / 1048576.0, 1)
        << " MiB summed over them)";
    if (m.start_peak > 0) s << ", " << fixed(double(m.start_peak) / 1048576.0, 1) << " MiB before the run";
    s << "\n";
    if (verbose > 0 && r.engine.ranks.under_mpi && res.ranks.size() > 1) {
      s << "Peak memory per rank (MiB):";
      for (std::size_t i = 0; i < res.ranks.size(); ++i)
        s << " " << i << ":" << fixed(double(res.ranks[i].memory.peak_rss_bytes) / 1048576.0, 1);
      s << "\n";
    }
  }
  if (x.placement.oversubscribed)
    s << "Oversubscribed: " << res.places.size() << (res.places.size() == 1 ? " thread" : " threads") << " on "
      << x.placement.pus_available << (x.placement.pus_available == 1 ? " PU" : " PUs")
      << " (threads share PUs: times are not per-core figures)\n";
  if (r.counters_asked && !r.counters_unavailable.empty())
    s << "Counters unavailable: " << r.counters_unavailable << "\n";
  if (r.verify_skipped) s << "Verify: not verified: partial run\n";
  if (r.verified) {
    s << "Verify: " << (*r.verified ? "OK" : "MISMATCH") << " (expected";
    if (r.expected.size) s << " size " << *r.expected.size;
    if (r.expected.depth) s << " depth " << *r.expected.depth;
    if (r.expected.leaves) s << " leaves " << *r.expected.leaves;
    s << ")\n";
  }
  const bool foreign = r.engine.scheduler.foreign() && !r.engine.sequential;
  if (verbose > 0 && !res.threads.empty() && foreign) {
    // A runtime's own scheduler gives nodes and the work time per thread
    // and nothing of steals, idling or the other phases (docs/schedulers.md):
    // those are left out here, as they are null in JSON and CSV, rather than
    // printed as zeros.
    const Aggregates& a = x.agg;
    s << "thread        nodes   share  time(s)     work        tasks\n";
    for (std::size_t i = 0; i < res.threads.size(); ++i) {
      const ThreadStats& t = res.threads[i];
      char line[160];
      std::snprintf(line, sizeof line, "%6zu %12" PRIu64 " %6.2f%% %8.3f %7.1f%% %12" PRIu64 "\n", i, t.nodes,
                    c.nodes ? 100.0 * double(t.nodes) / double(c.nodes) : 0.0, t.time_total,
                    t.time_total > 0 ? 100.0 * t.time_phase[0] / t.time_total : 0.0, t.tasks);
      s << line;
    }
    s << "Work time (all threads) = " << fixed(a.time_phase[0], 3) << " s";
    if (r.work_baseline && *r.work_baseline > 0)
      s << ", work inflation = " << fixed(a.time_phase[0] / *r.work_baseline, 3) << " (over the sequential run's "
        << fixed(*r.work_baseline, 3) << " s)";
    s << "\nNot measured by " << res.runtime
      << ": steals, idle time, the search, claim and termination phases (null in JSON and CSV)\n";
    counters_table(s, r, res);
  }
  if (verbose > 0 && !res.threads.empty() && !foreign) {
    const Aggregates& a = x.agg;
    const bool shares = x.has(kShareCounters), reclaims = x.has(kReclaimCounters);
    const bool requests = x.has(kRequestCounters);
    s << "thread        nodes   share  attempts   steals   stolen  examined  shares   shared reclaims reclaimed"
         "  sleeps  idle(s)";
    if (requests) s << "     sent answered  refused withdrawn  wait(s)";
    s << "\n";
    for (std::size_t i = 0; i < res.threads.size(); ++i) {
      const ThreadStats& t = res.threads[i];
      char line[256];
      std::snprintf(line, sizeof line, "%6zu %12" PRIu64 " %6.2f%% %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64,
                    i, t.nodes, c.nodes ? 100.0 * double(t.nodes) / double(c.nodes) : 0.0, t.steal_attempts,
                    t.steals, t.nodes_stolen, t.deques_examined);
      s << line << " " << text_count(shares, t.shares, 7) << " " << text_count(shares, t.nodes_shared, 8) << " "
        << text_count(reclaims, t.reclaims, 8) << " " << text_count(reclaims, t.nodes_reclaimed, 9);
      std::snprintf(line, sizeof line, " %7" PRIu64 " %8.3f", t.sleeps, t.idle_seconds);
      s << line;
      if (requests) {
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
    // Where the time went (docs/trace.md): seconds per phase, and percent of
    // the thread's time.
    const bool agent = a.time_phase[static_cast<int>(Phase::agent)] > 0;
    s << "thread  time(s)     work   search    claim     idle  termination" << (agent ? "    agent" : "") << "\n";
    auto row = [&](const char* name, const double* phase, double total) {
      char line[200];
      std::snprintf(line, sizeof line, "%6s %8.3f", name, total);
      s << line;
      for (int p = 0; p < kPhases; ++p) {
        if (p == static_cast<int>(Phase::agent) && !agent) continue;
        std::snprintf(line, sizeof line, p == static_cast<int>(Phase::termination) ? " %11.1f%%" : " %7.1f%%",
                      total > 0 ? 100.0 * phase[p] / total : 0.0);
        s << line;
      }
      s << "\n";
    };
    for (std::size_t i = 0; i < res.threads.size(); ++i)
      row(std::to_string(i).c_str(), res.threads[i].time_phase, res.threads[i].time_total);
    row("all", a.time_phase, a.time_total);
    s << "Work time (all threads) = " << fixed(a.time_phase[0], 3) << " s";
    if (r.work_baseline && *r.work_baseline > 0)
      s << ", work inflation = " << fixed(a.time_phase[0] / *r.work_baseline, 3) << " (over the sequential run's "
        << fixed(*r.work_baseline, 3) << " s)";
    else
      s << " (work inflation: give --work-baseline sequential or SECONDS)";
    s << "\n";
    counters_table(s, r, res);
    if (res.domains) {
      const DomainMap& m = *res.domains;
      const DomainAggregates& da = x.domains;
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
    if (requests)
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
      const RankSettings& rs = r.engine.ranks;
      const bool lifelines = rs.steal == RankSteal::lifeline;
      if (lifelines) {
        s << "rank  lifeline: requests sent  received  pushes: sent received  nodes: sent received  dormant(s)\n";
        for (std::size_t i = 0; i < res.ranks.size(); ++i) {
          const RankStats& k = res.ranks[i];
          char line[256];
          std::snprintf(line, sizeof line,
                        "%4zu  %23" PRIu64 " %9" PRIu64 "  %12" PRIu64 " %8" PRIu64 "  %11" PRIu64 " %8" PRIu64
                        "  %10.3f\n",
                        i, k.lifeline_requests_sent, k.lifeline_requests_received, k.pushes_sent, k.pushes_received,
                        k.push_nodes_sent, k.push_nodes_received, k.dormant_seconds);
          s << line;
        }
      }
      const RankTotals& t = x.ranks;
      s << "Global stealing (--rank-steal " << to_string(rs.steal);
      if (lifelines) s << ", w " << rs.w << ", l " << rs.l;
      s << "): " << t.requests_sent << " random requests, " << t.steals << " answered with work";
      if (lifelines) s << "; " << t.lifeline_requests_sent << " lifeline requests, " << t.pushes_received << " pushes";
      s << "; " << fixed(t.messages_per_steal, 2) << " messages per successful steal";
      if (lifelines && res.seconds > 0)
        s << "; dormant " << fixed(100.0 * t.dormant_seconds / (double(res.ranks.size()) * res.seconds), 1)
          << "% of rank time";
      s << "\nTermination (--rank-termination " << to_string(rs.termination) << "): ";
      if (rs.termination == RankTermination::tree) s << res.ranks[0].waves << " waves";
      else s << res.ranks[0].tokens_passed << " rounds";
      if (res.status == RunStatus::complete)
        s << ", detected " << fixed(1e3 * t.termination_latency, 3) << " ms after the last work ended";
      s << "\n";
    }
  }
  if (verbose > 0) {
    if (!r.threads_from.empty() && !r.engine.sequential) s << "Threads: " << r.engine.threads << " (" << r.threads_from << ")\n";
    if (const auto& c = r.engine.sha1_calibration) {
      s << "SHA-1: " << sha1::to_string(r.engine.sha1) << ", chosen by --sha1 auto";
      if (c->avx512_rate > 0 && c->shani_rate > 0) {
        char line[160];
        std::snprintf(line, sizeof line,
                      " (measured at start-up: AVX-512 %.1f, SHA-NI %.1f M blocks/s; SHA-NI only if >10%% faster)",
                      c->avx512_rate / 1e6, c->shani_rate / 1e6);
        s << line;
      } else {
        s << " (the fastest kernel this CPU has)";
      }
      s << "\n";
    } else {
      s << "SHA-1: " << sha1::to_string(r.engine.sha1) << ", named by --sha1\n";
    }
    s << placement_text(x.places_view()) << build_text(r.machine, r.command_line);
    const ReferenceFlags& ref = r.engine.reference;
    if (ref.barrier_interval)
      s << "-i " << *ref.barrier_interval << " (barrier polling interval): not applicable, no barrier here\n";
    if (ref.poll_interval)
      s << "-I " << *ref.poll_interval << " (work-request poll interval): not applicable to --protocol "
        << x.protocol.name << " (only request polls)\n";
    if (ref.debug_level) s << "-x " << *ref.debug_level << " (debug level): not applicable, no debug output\n";
  }
  return s.str();
}

}  // namespace uts
