// The one column table behind CSV and JSON (columns.hpp): each field's
// names, JSON group and value, read once for both renderings.
#include "report/columns.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "base/interrupt.hpp"
#include "report/provenance.hpp"
#include "report/text_util.hpp"
#include "sha1/words.hpp"
#include "schedulers/registry.hpp"
#include "steal/registry.hpp"

namespace uts {

RecordView::RecordView(const RunReport& report)
    : r(report),
      protocol(*find_protocol(report.engine.protocol)),
      agg(aggregate(report.result)),
      domains(aggregate_domains(report.result)),
      ranks(rank_totals(report.result)),
      nodes_per_sec(report.result.seconds > 0 ? double(report.result.counts.nodes) / report.result.seconds : 0.0),
      threads(report.engine.sequential ? 1 : report.engine.threads),
      pes(report.engine.pes()),
      placement(places_view().summary()) {}

PlacementView RecordView::places_view() const {
  return PlacementView{r.result.places, r.result.rank_places, r.result.topology, r.engine.bind, threads,
                       r.engine.ranks.under_mpi && !r.engine.sequential};
}

namespace {

using V = const RecordView&;
const Cell kAbsent{};

Cell text(const std::string& s) { return s; }
Cell count(std::uint64_t v) { return v; }
Cell integer(std::int64_t v) { return v; }
Cell real(double v) { return v; }
template <class T>
Cell opt(const std::optional<T>& v) {
  return v ? Cell(*v) : kAbsent;
}
Cell when(bool applies, Cell c) { return applies ? std::move(c) : kAbsent; }
const BatchJob* job(const RecordView& x) {
  return x.r.machine.environment.batch ? &*x.r.machine.environment.batch : nullptr;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out += "; ";
    out += i;
  }
  return out;
}

// --counters in CSV: "name=total;..." over threads ("name=?" where a thread
// could not read it); empty when not asked for.
std::string counter_totals(const RecordView& x) {
  const CounterResults& c = x.r.result.counters;
  std::string out;
  for (std::size_t k = 0; k < c.names.size(); ++k) {
    std::int64_t total = 0;
    bool complete = !c.per_thread.empty();
    for (const auto& t : c.per_thread) {
      if (k < t.size() && t[k] >= 0) total += t[k];
      else complete = false;
    }
    if (!out.empty()) out += ';';
    out += c.names[k];
    out += '=';
    out += complete ? std::to_string(total) : std::string("?");
  }
  return out;
}

// The record's own conditions.
bool seq(V x) { return x.r.engine.sequential; }
// A runtime's own scheduler (docs/schedulers.md): no steal counters, no
// protocol, and of the time breakdown only work and total (when measured).
bool foreign(V x) { return !seq(x) && x.r.engine.scheduler.foreign(); }
bool own(V x) { return !foreign(x); }
bool split_time(V x) {
  if (!foreign(x)) return true;
  const SchedulerEntry* e = find_scheduler(x.r.engine.scheduler.name);
  return e && e->reports_time_split;
}
bool requests(V x) { return !seq(x) && x.has(kRequestCounters); }
bool hier(V x) { return x.r.engine.victim == VictimOrder::hier; }
bool with_domains(V x) { return x.r.result.domains.has_value(); }
bool mpi(V x) { return x.r.engine.ranks.under_mpi; }
bool multi(V x) { return mpi(x) && !seq(x) && x.r.engine.ranks.count > 1; }  // ranks with agents
bool lifeline(V x) { return x.r.engine.ranks.steal == RankSteal::lifeline; }
// Binomial trees have no shape and no depth parameter; balanced trees no shape.
bool uses_shape(V x) { return x.r.tree.type == TreeType::geometric || x.r.tree.type == TreeType::hybrid; }
bool uses_depth(V x) { return x.r.tree.type != TreeType::binomial; }

MemoryFigures memory_of(V x) { return memory_figures(x); }
// A memory figure of 0 was not read: absent, not a measured zero.
Cell bytes(std::uint64_t v) { return v > 0 ? Cell(v) : Cell{}; }

const Column kRun[] = {
    // clang-format off
    {"uts_version", "", "uts_version", false, [](V x) { return text(x.r.machine.uts_version); }},
    {"timestamp_utc", "machine", "timestamp_utc", false, [](V x) { return text(x.r.machine.timestamp_utc); }},
    {"preset", "parameters", "preset", false, [](V x) { return when(!x.r.preset.empty(), text(x.r.preset)); }},
    {"tree", "parameters", "tree", false, [](V x) { return text(to_string(x.r.tree.type)); }},
    {nullptr, "parameters", "tree_code", false, [](V x) { return integer(static_cast<int>(x.r.tree.type)); }},
    {"shape", "parameters", "shape", false, [](V x) { return when(uses_shape(x), text(to_string(x.r.tree.shape))); }},
    {"b0", "parameters", "b0", false, [](V x) { return real(x.r.tree.b0); }},
    {"depth", "parameters", "depth", false, [](V x) { return when(uses_depth(x), integer(x.r.tree.depth)); }},
    {"q", "parameters", "q", false, [](V x) { return real(x.r.tree.q); }},
    {"m", "parameters", "m", false, [](V x) { return integer(x.r.tree.m); }},
    {"shift", "parameters", "shift", false, [](V x) { return real(x.r.tree.shift); }},
    {"seed", "parameters", "seed", false, [](V x) { return integer(x.r.tree.seed); }},
    {"granularity", "parameters", "granularity", false, [](V x) { return integer(x.r.tree.granularity); }},
    {"rng", "parameters", "rng", false, [](V x) { return text(to_string(x.r.tree.rng)); }},
    {"root_id", "parameters", "root_id", false,
     [](V x) { return x.r.tree.root_id ? text(sha1::to_hex(*x.r.tree.root_id)) : kAbsent; }},
    {"engine", "engine", "kind", false, [](V x) { return text(seq(x) ? "sequential" : "parallel"); }},
    {"threads", "engine", "threads", false, [](V x) { return integer(x.threads); }},
    {"steal", "engine", "steal", false, [](V x) { return when(own(x) && !seq(x), text(to_string(x.r.engine.steal))); }},
    {"victim", "engine", "victim", false, [](V x) { return when(own(x) && !seq(x), text(to_string(x.r.engine.victim))); }},
    {"init", "engine", "init", false, [](V x) { return when(own(x) && !seq(x), text(to_string(x.r.engine.init))); }},
    {"status", "", "status", false, [](V x) { return text(to_string(x.r.result.status)); }},
    {"size", "results", "size", false, [](V x) { return count(x.r.result.counts.nodes); }},
    {"tree_depth", "results", "depth", false, [](V x) { return count(x.r.result.counts.max_depth); }},
    {"leaves", "results", "leaves", false, [](V x) { return count(x.r.result.counts.leaves); }},
    {"checksum", "results", "checksum", false, [](V x) { return text(fmt::hex64(x.r.result.counts.checksum)); }},
    {"truncations", "results", "truncations", false, [](V x) { return count(x.r.result.truncations); }},
    {nullptr, "expected", "size", false, [](V x) { return opt(x.r.expected.size); }},
    {nullptr, "expected", "depth", false, [](V x) { return opt(x.r.expected.depth); }},
    {nullptr, "expected", "leaves", false, [](V x) { return opt(x.r.expected.leaves); }},
    {"seconds", "timing", "seconds", false, [](V x) { return real(x.r.result.seconds); }},
    {"nodes_per_sec", "timing", "nodes_per_sec", false, [](V x) { return real(x.nodes_per_sec); }},
    {nullptr, "timing", "nodes_per_sec_per_thread", false, [](V x) { return real(x.nodes_per_sec / x.pes); }},
    {nullptr, "timing", "nodes_per_sec_per_pe", false, [](V x) { return real(x.nodes_per_sec / x.pes); }},
    {"steal_attempts", "aggregates", "steal_attempts", false, [](V x) { return when(own(x), count(x.agg.steal_attempts)); }},
    {"steals", "aggregates", "steals", false, [](V x) { return when(own(x), count(x.agg.steals)); }},
    {"nodes_stolen", "aggregates", "nodes_stolen", false, [](V x) { return when(own(x), count(x.agg.nodes_stolen)); }},
    {"deques_examined", "aggregates", "deques_examined", false, [](V x) { return when(own(x), count(x.agg.deques_examined)); }},
    {"shares", "aggregates", "shares", false, [](V x) { return when(x.has(kShareCounters), count(x.agg.shares)); }},
    {"reclaims", "aggregates", "reclaims", false,
     [](V x) { return when(x.has(kReclaimCounters), count(x.agg.reclaims)); }},
    {"nodes_shared", "aggregates", "nodes_shared", false,
     [](V x) { return when(x.has(kShareCounters), count(x.agg.nodes_shared)); }},
    {"nodes_reclaimed", "aggregates", "nodes_reclaimed", false,
     [](V x) { return when(x.has(kReclaimCounters), count(x.agg.nodes_reclaimed)); }},
    {"sleeps", "aggregates", "sleeps", false, [](V x) { return when(own(x), count(x.agg.sleeps)); }},
    {"stealing", "engine", "stealing", false, [](V x) -> Cell { return x.r.engine.stealing; }},
    {"sha1", "engine", "sha1", false, [](V x) { return text(sha1::to_string(x.r.engine.sha1)); }},
    // --sha1 auto's start-up measurement (blocks/s; absent for a named path
    // or a kernel this CPU lacks): why auto chose what it chose.
    {nullptr, "engine", "sha1_auto_avx512_rate", true,
     [](V x) {
       const auto& c = x.r.engine.sha1_calibration;
       return when(c && c->avx512_rate > 0, real(c ? c->avx512_rate : 0));
     }},
    {nullptr, "engine", "sha1_auto_shani_rate", true,
     [](V x) {
       const auto& c = x.r.engine.sha1_calibration;
       return when(c && c->shani_rate > 0, real(c ? c->shani_rate : 0));
     }},
    {"steal_success_rate", "aggregates", "steal_success_rate", false, [](V x) { return when(own(x), real(x.agg.steal_success_rate)); }},
    {"nodes_per_steal", "aggregates", "nodes_per_steal", false, [](V x) { return when(own(x), real(x.agg.nodes_per_steal)); }},
    {"deques_examined_per_attempt", "aggregates", "deques_examined_per_attempt", false,
     [](V x) { return when(own(x), real(x.agg.deques_per_attempt)); }},
    {nullptr, "aggregates", "deques_examined_per_steal", false, [](V x) { return when(own(x), real(x.agg.deques_per_steal)); }},
    {nullptr, "aggregates", "node_share_mean", false, [](V x) { return real(x.agg.share_mean); }},
    {"node_share_variance", "aggregates", "node_share_variance", false, [](V x) { return real(x.agg.share_variance); }},
    {"node_share_relative_variance", "aggregates", "node_share_relative_variance", false,
     [](V x) { return real(x.agg.share_relative_variance); }},
    {"idle_seconds", "aggregates", "idle_seconds", false, [](V x) { return when(own(x), real(x.agg.idle_seconds)); }},
    {"verified", "", "verified", false, [](V x) { return opt(x.r.verified); }},
    {nullptr, "", "verify_skipped", true, [](V x) { return when(x.r.verify_skipped, text("partial run")); }},
    {"openmp_runtime", "build", "openmp_runtime", false, [](V x) { return text(x.r.machine.openmp_runtime); }},
    {"hostname", "machine", "hostname", false, [](V x) { return text(x.r.machine.hostname); }},
    {"protocol", "engine", "protocol", false, [](V x) { return when(own(x) && !seq(x), text(std::string(x.protocol.name))); }},
    {"poll_interval", "engine", "poll_interval", false,
     [](V x) { return when(!seq(x) && x.protocol.polls, count(x.r.engine.poll_interval)); }},
    {"requests_sent", "aggregates", "requests_sent", true, [](V x) { return when(requests(x), count(x.agg.requests_sent)); }},
    {"requests_answered", "aggregates", "requests_answered", true,
     [](V x) { return when(requests(x), count(x.agg.requests_answered)); }},
    {"requests_refused", "aggregates", "requests_refused", true,
     [](V x) { return when(requests(x), count(x.agg.requests_refused)); }},
    {"requests_withdrawn", "aggregates", "requests_withdrawn", true,
     [](V x) { return when(requests(x), count(x.agg.requests_withdrawn)); }},
    {nullptr, "aggregates", "request_wait_seconds", true,
     [](V x) { return when(requests(x), real(x.agg.request_wait_seconds)); }},
    {"mean_request_wait_seconds", "aggregates", "mean_request_wait_seconds", true,
     [](V x) { return when(requests(x), real(x.agg.mean_request_wait_seconds)); }},
    {"domains", nullptr, nullptr, false,
     [](V x) { return when(with_domains(x), text(to_string(x.r.engine.locality.domains))); }},
    {nullptr, "engine", "domains", false,
     [](V x) { return when(x.r.engine.uses_domains(), text(to_string(x.r.engine.locality.domains))); }},
    {"domain_count", nullptr, nullptr, false,
     [](V x) { return with_domains(x) ? integer(x.r.result.domains->count) : kAbsent; }},
    {"remote_delay_ns", "engine", "remote_delay_ns", false, [](V x) { return count(x.r.engine.locality.remote_delay_ns); }},
    {"steal_local", "engine", "steal_local", false,
     [](V x) { return when(hier(x), text(to_string(x.r.engine.locality.steal_local))); }},
    {"steal_remote", "engine", "steal_remote", false,
     [](V x) { return when(hier(x), text(to_string(x.r.engine.locality.steal_remote))); }},
    {"local_steal_attempts", "aggregates", "local_steal_attempts", true,
     [](V x) { return when(with_domains(x), count(x.agg.local_steal_attempts)); }},
    {"local_steals", "aggregates", "local_steals", true, [](V x) { return when(with_domains(x), count(x.agg.local_steals)); }},
    {"local_steal_nodes", "aggregates", "local_steal_nodes", true,
     [](V x) { return when(with_domains(x), count(x.agg.local_steal_nodes)); }},
    {"remote_steal_attempts", "aggregates", "remote_steal_attempts", true,
     [](V x) { return when(with_domains(x), count(x.agg.remote_steal_attempts)); }},
    {"remote_steals", "aggregates", "remote_steals", true,
     [](V x) { return when(with_domains(x), count(x.agg.remote_steals)); }},
    {"remote_steal_nodes", "aggregates", "remote_steal_nodes", true,
     [](V x) { return when(with_domains(x), count(x.agg.remote_steal_nodes)); }},
    {"domain_node_share_variance", nullptr, nullptr, false,
     [](V x) { return when(with_domains(x), real(x.domains.share_variance)); }},
    {"ranks", "engine", "ranks", false, [](V x) { return integer(seq(x) ? 1 : x.r.engine.ranks.count); }},
    {nullptr, "engine", "pes", false, [](V x) { return integer(x.pes); }},
    {nullptr, "engine", "mpi", false, [](V x) -> Cell { return mpi(x); }},
    {nullptr, "engine", "rank_chunk", false, [](V x) { return when(mpi(x), count(x.r.engine.ranks.chunk)); }},
    {nullptr, "engine", "rank_poll", false, [](V x) { return when(mpi(x), count(x.r.engine.ranks.poll)); }},
    {nullptr, "engine", "rank_poll_max", false, [](V x) { return when(mpi(x), count(x.r.engine.ranks.poll_max)); }},
    {nullptr, "engine", "rank_split", false, [](V x) { return when(mpi(x), text(to_string(x.r.engine.ranks.split))); }},
    {"global_requests_sent", nullptr, nullptr, false,
     [](V x) { return when(mpi(x) && !seq(x), count(x.ranks.requests_sent)); }},
    {"global_steals", nullptr, nullptr, false, [](V x) { return when(mpi(x) && !seq(x), count(x.ranks.steals)); }},
    {"global_nodes_stolen", nullptr, nullptr, false,
     [](V x) { return when(mpi(x) && !seq(x), count(x.ranks.nodes_received)); }},
    {"ignored_options", "", "ignored_options", false, [](V x) { return when(!x.r.ignored.empty(), text(joined(x.r.ignored))); }},
    {"threads_from", "engine", "threads_from", false,
     [](V x) { return when(!seq(x) && !x.r.threads_from.empty(), text(x.r.threads_from)); }},
    {"stop_signal", "", "stop_signal", false,
     [](V x) { return when(x.r.result.stop_signal != 0, text(interrupt::name_of(x.r.result.stop_signal))); }},
    {nullptr, "engine.not_applicable", "barrier_interval", false,
     [](V x) { return opt(x.r.engine.reference.barrier_interval); }},
    {nullptr, "engine.not_applicable", "poll_interval", false, [](V x) { return opt(x.r.engine.reference.poll_interval); }},
    {nullptr, "engine.not_applicable", "debug_level", false, [](V x) { return opt(x.r.engine.reference.debug_level); }},
    {nullptr, "machine", "cpu_model", false, [](V x) { return text(x.r.machine.cpu_model); }},
    {nullptr, "machine", "cpu_signature", false, [](V x) { return text(x.r.machine.cpu_signature); }},
    {nullptr, "machine", "logical_cpus", false, [](V x) { return integer(x.r.machine.logical_cpus); }},
    {nullptr, "machine", "sha_ni", false, [](V x) -> Cell { return x.r.machine.sha_ni; }},
    {nullptr, "build", "openmp_version", false, [](V x) { return integer(x.r.machine.openmp_version); }},
    {nullptr, "machine", "omp_places", false, [](V x) { return text(x.r.machine.omp_places); }},
    {nullptr, "machine", "omp_proc_bind", false, [](V x) { return text(x.r.machine.omp_proc_bind); }},
    {nullptr, "build", "cryptopp_version", false, [](V x) { return text(x.r.machine.cryptopp_version); }},
    // Provenance (docs/output.md, section 4a), appended: CSV columns keep their order.
    {nullptr, "build", "version", false, [](V x) { return text(x.r.machine.uts_version); }},
    {"commit", "build", "commit", false, [](V x) { return text(x.r.machine.commit); }},
    {"commit_dirty", "build", "commit_dirty", false, [](V x) -> Cell { return x.r.machine.commit_dirty; }},
    {"build_type", "build", "build_type", false, [](V x) { return text(x.r.machine.build_type); }},
    {"compiler", "build", "compiler", false, [](V x) { return text(x.r.machine.compiler); }},
    {"compiler_flags", "build", "compiler_flags", false, [](V x) { return text(x.r.machine.compiler_flags); }},
    {"openmp_library", "build", "openmp_library", false,
     [](V x) { return when(!x.r.machine.openmp_library.empty(), text(x.r.machine.openmp_library)); }},
    {"mpi_library", "build", "mpi_library", false,
     [](V x) { return when(!x.r.machine.mpi_library.empty(), text(x.r.machine.mpi_library)); }},
    {nullptr, "build", "tbb_version", false,
     [](V x) { return when(!x.r.machine.tbb_version.empty(), text(x.r.machine.tbb_version)); }},
    {"command_line", nullptr, nullptr, false, [](V x) { return text(shell_quoted(x.r.command_line)); }},
    {"hosts", nullptr, nullptr, false, [](V x) { return text(hosts_list(x.places_view())); }},
    {"topology", nullptr, nullptr, false, [](V x) { return text(x.r.result.topology.text()); }},
    {"bind", "placement", "bind", false, [](V x) { return text(to_string(x.r.engine.bind.policy)); }},
    {"smt", "placement", "smt", false, [](V x) -> Cell { return x.r.engine.bind.smt; }},
    {"oversubscribed", "placement", "oversubscribed", false, [](V x) -> Cell { return x.placement.oversubscribed; }},
    {"pus_available", "placement", "pus_available", false, [](V x) { return integer(x.placement.pus_available); }},
    {"pus_used", "placement", "pus_used", false, [](V x) { return integer(x.placement.pus_used); }},
    {"placement", nullptr, nullptr, false, [](V x) { return text(placement_list(x.places_view())); }},
    {"preset_base", "parameters", "preset_base", false,
     [](V x) { return when(!x.r.preset_base.empty(), text(x.r.preset_base)); }},
    // Where the threads' time went (docs/trace.md), summed over threads.
    {"time_work", "aggregates", "time_work", false, [](V x) { return when(split_time(x), real(x.agg.time_phase[0])); }},
    {"time_search", "aggregates", "time_search", false, [](V x) { return when(own(x), real(x.agg.time_phase[1])); }},
    {"time_claim", "aggregates", "time_claim", false, [](V x) { return when(own(x), real(x.agg.time_phase[2])); }},
    {"time_idle", "aggregates", "time_idle", false, [](V x) { return when(own(x), real(x.agg.time_phase[3])); }},
    {"time_termination", "aggregates", "time_termination", false, [](V x) { return when(own(x), real(x.agg.time_phase[4])); }},
    {"time_agent", "aggregates", "time_agent", false, [](V x) { return when(own(x), real(x.agg.time_phase[5])); }},
    {"time_total", "aggregates", "time_total", false, [](V x) { return when(split_time(x), real(x.agg.time_total)); }},
    {"work_baseline_seconds", "aggregates", "work_baseline_seconds", false, [](V x) { return opt(x.r.work_baseline); }},
    {"counters", nullptr, nullptr, false, [](V x) { return when(x.r.counters_asked, text(counter_totals(x))); }},
    {"work_inflation", "aggregates", "work_inflation", false,
     [](V x) {
       return x.r.work_baseline && *x.r.work_baseline > 0 ? real(x.agg.time_phase[0] / *x.r.work_baseline) : kAbsent;
     }},
    // Across ranks (distrib/README.md), appended.
    {"rank_steal", "engine", "rank_steal", false, [](V x) { return when(mpi(x), text(to_string(x.r.engine.ranks.steal))); }},
    {"rank_w", "engine", "rank_w", false, [](V x) { return when(mpi(x) && lifeline(x), count(x.r.engine.ranks.w)); }},
    {"rank_l", "engine", "rank_l", false, [](V x) { return when(mpi(x) && lifeline(x), count(x.r.engine.ranks.l)); }},
    {"rank_termination", "engine", "rank_termination", false,
     [](V x) { return when(mpi(x), text(to_string(x.r.engine.ranks.termination))); }},
    {nullptr, "engine", "model_rate", false,
     [](V x) { return when(x.r.engine.ranks.model_rate > 0, real(x.r.engine.ranks.model_rate)); }},
    {"global_lifeline_requests", nullptr, nullptr, false,
     [](V x) { return when(multi(x) && lifeline(x), count(x.ranks.lifeline_requests_sent)); }},
    {"global_pushes", nullptr, nullptr, false, [](V x) { return when(multi(x) && lifeline(x), count(x.ranks.pushes_received)); }},
    {"global_push_nodes", nullptr, nullptr, false,
     [](V x) { return when(multi(x) && lifeline(x), count(x.ranks.push_nodes_received)); }},
    {"global_lifeline_requests_received", nullptr, nullptr, false,
     [](V x) { return when(multi(x) && lifeline(x), count(x.ranks.lifeline_requests_received)); }},
    {"global_pushes_sent", nullptr, nullptr, false, [](V x) { return when(multi(x) && lifeline(x), count(x.ranks.pushes_sent)); }},
    {"global_push_nodes_sent", nullptr, nullptr, false,
     [](V x) { return when(multi(x) && lifeline(x), count(x.ranks.push_nodes_sent)); }},
    {"global_dormant_seconds", nullptr, nullptr, false,
     [](V x) { return when(multi(x) && lifeline(x), real(x.ranks.dormant_seconds)); }},
    {"global_messages_per_steal", "aggregates", "global_messages_per_steal", false,
     [](V x) { return when(multi(x) && x.ranks.steals + x.ranks.pushes_received > 0, real(x.ranks.messages_per_steal)); }},
    {"dormant_fraction", "aggregates", "dormant_fraction", false,
     [](V x) {
       return when(multi(x) && lifeline(x) && x.r.result.seconds > 0,
                   real(x.ranks.dormant_seconds / (double(x.r.result.ranks.size()) * x.r.result.seconds)));
     }},
    {"termination_waves", "aggregates", "termination_waves", false,
     [](V x) {
       const RankStats& r0 = x.r.result.ranks.empty() ? RankStats{} : x.r.result.ranks[0];
       return when(multi(x) && !x.r.result.ranks.empty(),
                   count(x.r.engine.ranks.termination == RankTermination::tree ? r0.waves : r0.tokens_passed));
     }},
    {"termination_latency_seconds", "aggregates", "termination_latency_seconds", false,
     [](V x) { return when(multi(x) && x.r.result.status == RunStatus::complete, real(x.ranks.termination_latency)); }},
    // The batch job and the OpenMP environment (batch.hpp), appended; JSON
    // has them as the objects batch and runtime_env (json.cpp).
    {"batch_system", nullptr, nullptr, false, [](V x) { return job(x) ? text(job(x)->system) : kAbsent; }},
    {"batch_job_id", nullptr, nullptr, false, [](V x) { return job(x) ? text(job(x)->job_id) : kAbsent; }},
    {"batch_nodes", nullptr, nullptr, false, [](V x) { return job(x) ? opt(job(x)->nodes) : kAbsent; }},
    {"batch_tasks", nullptr, nullptr, false, [](V x) { return job(x) ? opt(job(x)->tasks) : kAbsent; }},
    {"batch_cpus_per_task", nullptr, nullptr, false, [](V x) { return job(x) ? opt(job(x)->cpus_per_task) : kAbsent; }},
    {"batch_cpu_bind", nullptr, nullptr, false, [](V x) { return job(x) ? opt(job(x)->cpu_bind) : kAbsent; }},
    {"runtime_env", nullptr, nullptr, false, [](V x) { return text(runtime_env_list(x.r.machine.environment)); }},
    // Who scheduled the traversal (docs/schedulers.md), appended.
    {"scheduler", "engine", "scheduler", false, [](V x) { return when(!seq(x), text(x.r.engine.scheduler.name)); }},
    {"scheduler_form", "engine", "scheduler_form", false,
     [](V x) {
       return when(foreign(x), text(x.r.engine.scheduler.form == SchedulerForm::literature ? "literature" : "tuned"));
     }},
    {"task_grain", "engine", "task_grain", false,
     [](V x) { return when(foreign(x) && x.r.engine.scheduler.form == SchedulerForm::tuned, count(x.r.engine.scheduler.grain)); }},
    {"scheduler_runtime", "engine", "scheduler_runtime", false, [](V x) { return text(x.r.result.runtime); }},
    {"tasks", "aggregates", "tasks", false, [](V x) { return when(foreign(x), count(x.agg.tasks)); }},
    // Resident memory (docs/output.md, section 4d), appended; JSON has them
    // as the object memory, with memory.hosts under MPI (json.cpp).
    {"peak_rss_bytes", "memory", "peak_rss_bytes", false, [](V x) { return bytes(memory_of(x).peak); }},
    {"start_peak_rss_bytes", "memory", "start_peak_rss_bytes", false, [](V x) { return bytes(memory_of(x).start_peak); }},
    {"start_rss_bytes", "memory", "start_rss_bytes", false, [](V x) { return bytes(memory_of(x).start_rss); }},
    {"peak_rss_source", "memory", "peak_rss_source", false,
     [](V x) { return when(memory_of(x).peak > 0, text(memory_of(x).from_proc ? "VmHWM" : "ru_maxrss")); }},
    {"peak_rss_bytes_sum", "memory", "peak_rss_bytes_sum", false,
     [](V x) { return when(mpi(x) && !x.r.result.ranks.empty(), bytes(memory_of(x).peak_sum)); }},
    // clang-format on
};

using I = std::size_t;
const ThreadStats& th(V x, I i) { return x.r.result.threads[i]; }

const RowColumn kThread[] = {
    // clang-format off
    {"thread", false, [](V, I i) { return count(i); }},
    {"rank", true, [](V x, I i) { return when(mpi(x), count(i / static_cast<I>(x.r.engine.threads))); }},
    {"rank_thread", true, [](V x, I i) { return when(mpi(x), count(i % static_cast<I>(x.r.engine.threads))); }},
    {"nodes", false, [](V x, I i) { return count(th(x, i).nodes); }},
    {"steal_attempts", false, [](V x, I i) { return when(own(x), count(th(x, i).steal_attempts)); }},
    {"steals", false, [](V x, I i) { return when(own(x), count(th(x, i).steals)); }},
    {"nodes_stolen", false, [](V x, I i) { return when(own(x), count(th(x, i).nodes_stolen)); }},
    {"deques_examined", false, [](V x, I i) { return when(own(x), count(th(x, i).deques_examined)); }},
    {"shares", false, [](V x, I i) { return when(x.has(kShareCounters), count(th(x, i).shares)); }},
    {"nodes_shared", false, [](V x, I i) { return when(x.has(kShareCounters), count(th(x, i).nodes_shared)); }},
    {"reclaims", false, [](V x, I i) { return when(x.has(kReclaimCounters), count(th(x, i).reclaims)); }},
    {"nodes_reclaimed", false, [](V x, I i) { return when(x.has(kReclaimCounters), count(th(x, i).nodes_reclaimed)); }},
    {"sleeps", false, [](V x, I i) { return when(own(x), count(th(x, i).sleeps)); }},
    {"idle_seconds", false, [](V x, I i) { return when(own(x), real(th(x, i).idle_seconds)); }},
    {"time_work", false, [](V x, I i) { return when(split_time(x), real(th(x, i).time_phase[0])); }},
    {"time_search", false, [](V x, I i) { return when(own(x), real(th(x, i).time_phase[1])); }},
    {"time_claim", false, [](V x, I i) { return when(own(x), real(th(x, i).time_phase[2])); }},
    {"time_idle", false, [](V x, I i) { return when(own(x), real(th(x, i).time_phase[3])); }},
    {"time_termination", false, [](V x, I i) { return when(own(x), real(th(x, i).time_phase[4])); }},
    {"time_agent", false, [](V x, I i) { return when(own(x), real(th(x, i).time_phase[5])); }},
    {"time_total", false, [](V x, I i) { return when(split_time(x), real(th(x, i).time_total)); }},
    {"tasks", false, [](V x, I i) { return when(foreign(x), count(th(x, i).tasks)); }},
    {"requests_sent", true, [](V x, I i) { return when(requests(x), count(th(x, i).requests_sent)); }},
    {"requests_answered", true, [](V x, I i) { return when(requests(x), count(th(x, i).requests_answered)); }},
    {"requests_refused", true, [](V x, I i) { return when(requests(x), count(th(x, i).requests_refused)); }},
    {"requests_withdrawn", true, [](V x, I i) { return when(requests(x), count(th(x, i).requests_withdrawn)); }},
    {"request_wait_seconds", true, [](V x, I i) { return when(requests(x), real(th(x, i).request_wait_seconds)); }},
    {"domain", true, [](V x, I i) { return with_domains(x) ? integer(x.r.result.domains->of_thread[i]) : kAbsent; }},
    {"local_steal_attempts", true, [](V x, I i) { return when(with_domains(x), count(th(x, i).local_steal_attempts)); }},
    {"local_steals", true, [](V x, I i) { return when(with_domains(x), count(th(x, i).local_steals)); }},
    {"local_steal_nodes", true, [](V x, I i) { return when(with_domains(x), count(th(x, i).local_steal_nodes)); }},
    {"remote_steal_attempts", true, [](V x, I i) { return when(with_domains(x), count(th(x, i).remote_steal_attempts)); }},
    {"remote_steals", true, [](V x, I i) { return when(with_domains(x), count(th(x, i).remote_steals)); }},
    {"remote_steal_nodes", true, [](V x, I i) { return when(with_domains(x), count(th(x, i).remote_steal_nodes)); }},
    // clang-format on
};

const DomainStats& dm(V x, I i) { return x.domains.domains[i]; }

const RowColumn kDomain[] = {
    // clang-format off
    {"domain", false, [](V, I i) { return count(i); }},
    {"threads", false, [](V x, I i) { return integer(dm(x, i).threads); }},
    {"nodes", false, [](V x, I i) { return count(dm(x, i).nodes); }},
    {"node_share", false, [](V x, I i) { return real(dm(x, i).share); }},
    {"local_steal_attempts", false, [](V x, I i) { return count(dm(x, i).local_steal_attempts); }},
    {"local_steals", false, [](V x, I i) { return count(dm(x, i).local_steals); }},
    {"local_steal_nodes", false, [](V x, I i) { return count(dm(x, i).local_steal_nodes); }},
    {"remote_steal_attempts", false, [](V x, I i) { return count(dm(x, i).remote_steal_attempts); }},
    {"remote_steals", false, [](V x, I i) { return count(dm(x, i).remote_steals); }},
    {"remote_steal_nodes", false, [](V x, I i) { return count(dm(x, i).remote_steal_nodes); }},
    // clang-format on
};

const RankStats& rk(V x, I i) { return x.r.result.ranks[i]; }

const RowColumn kRank[] = {
    // clang-format off
    {"rank", false, [](V, I i) { return count(i); }},
    {"threads", false, [](V x, I i) { return integer(rk(x, i).threads); }},
    {"requests_sent", false, [](V x, I i) { return count(rk(x, i).requests_sent); }},
    {"steals", false, [](V x, I i) { return count(rk(x, i).steals); }},
    {"refusals", false, [](V x, I i) { return count(rk(x, i).refusals); }},
    {"nodes_received", false, [](V x, I i) { return count(rk(x, i).nodes_received); }},
    {"requests_received", false, [](V x, I i) { return count(rk(x, i).requests_received); }},
    {"requests_answered", false, [](V x, I i) { return count(rk(x, i).requests_answered); }},
    {"requests_refused", false, [](V x, I i) { return count(rk(x, i).requests_refused); }},
    {"nodes_sent", false, [](V x, I i) { return count(rk(x, i).nodes_sent); }},
    {"tokens_passed", false, [](V x, I i) { return count(rk(x, i).tokens_passed); }},
    {"request_wait_seconds", false, [](V x, I i) { return real(rk(x, i).request_wait_seconds); }},
    {"lifeline_requests_sent", false, [](V x, I i) { return count(rk(x, i).lifeline_requests_sent); }},
    {"lifeline_requests_received", false, [](V x, I i) { return count(rk(x, i).lifeline_requests_received); }},
    {"pushes_sent", false, [](V x, I i) { return count(rk(x, i).pushes_sent); }},
    {"pushes_received", false, [](V x, I i) { return count(rk(x, i).pushes_received); }},
    {"push_nodes_sent", false, [](V x, I i) { return count(rk(x, i).push_nodes_sent); }},
    {"push_nodes_received", false, [](V x, I i) { return count(rk(x, i).push_nodes_received); }},
    {"dormant_seconds", false, [](V x, I i) { return real(rk(x, i).dormant_seconds); }},
    {"waves", false, [](V x, I i) { return count(rk(x, i).waves); }},
    {"last_work_seconds", false, [](V x, I i) { return real(rk(x, i).last_work_seconds); }},
    {"finish_known_seconds", false, [](V x, I i) { return real(rk(x, i).finish_known_seconds); }},
    {"closing_seconds", false, [](V x, I i) { return real(rk(x, i).closing_seconds); }},
    {"first_nodes_seconds", false,
     [](V x, I i) { return when(rk(x, i).first_nodes_tick != 0, real(rk(x, i).first_nodes_seconds)); }},
    {"peak_rss_bytes", false, [](V x, I i) { return bytes(rk(x, i).memory.peak_rss_bytes); }},
    {"start_peak_rss_bytes", false, [](V x, I i) { return bytes(rk(x, i).memory.start_peak_rss_bytes); }},
    {"start_rss_bytes", false, [](V x, I i) { return bytes(rk(x, i).memory.start_rss_bytes); }},
    // clang-format on
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

template <class Quote>
std::string render_cell(const Cell& c, const char* absent, Quote quote) {
  struct Visitor {
    const char* absent;
    Quote quote;
    std::string operator()(std::monostate) const { return absent; }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fmt::num(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return quote(v); }
  };
  return std::visit(Visitor{absent, quote}, c);
}

}  // namespace

// The memory fields (columns.hpp).
MemoryFigures memory_figures(const RecordView& x) {
  MemoryFigures m;
  const auto& ranks = x.r.result.ranks;
  if (!x.r.engine.ranks.under_mpi || ranks.empty()) {
    const ProcessMemory& p = x.r.result.memory;
    return {p.peak_rss_bytes, p.start_peak_rss_bytes, p.start_rss_bytes, p.peak_rss_bytes, p.from_proc};
  }
  m.from_proc = true;
  for (const RankStats& r : ranks) {
    m.peak = std::max(m.peak, r.memory.peak_rss_bytes);
    m.start_peak = std::max(m.start_peak, r.memory.start_peak_rss_bytes);
    m.start_rss = std::max(m.start_rss, r.memory.start_rss_bytes);
    m.peak_sum += r.memory.peak_rss_bytes;
    m.from_proc = m.from_proc && r.memory.from_proc;
  }
  return m;
}

std::span<const Column> run_columns() { return kRun; }
std::span<const RowColumn> thread_columns() { return kThread; }
std::span<const RowColumn> domain_columns() { return kDomain; }
std::span<const RowColumn> rank_columns() { return kRank; }

std::string csv_cell(const Cell& c) { return render_cell(c, "", csv_field); }
std::string json_cell(const Cell& c) { return render_cell(c, "null", fmt::json_string); }

}  // namespace uts
