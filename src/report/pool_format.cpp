// Text, JSON and CSV renderings of a --workload pool run, and its segment
// sizes over time as CSV (pool_format.hpp).
#include "report/pool_format.hpp"

#include "base/interrupt.hpp"
#include "report/provenance.hpp"
#include "report/text_util.hpp"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace uts {

namespace {

PlacementView view_of(const PoolSettings& s, const PoolResult& r) {
  return PlacementView{r.places, r.rank_places, r.topology, s.bind, s.threads, false};
}

}  // namespace

namespace {

using fmt::json_string;
using fmt::num;

std::string model(const PoolSettings& s) {
  std::ostringstream o;
  if (s.producers) o << "producer/consumer, " << *s.producers << " producers " << to_string(s.arrangement);
  else o << "random, " << s.mix << "% adds";
  return o.str();
}

struct Totals {
  std::uint64_t initial = 0, added = 0, removed = 0, remaining = 0, aborted = 0, lost = 0, duplicated = 0;
};
Totals totals(const PoolResult& r) {
  Totals t;
  for (const PoolTrial& x : r.trials) {
    t.initial += x.initial;
    t.added += x.added;
    t.removed += x.removed;
    t.remaining += x.remaining;
    t.aborted += x.aborted;
    t.lost += x.lost;
    t.duplicated += x.duplicated;
  }
  return t;
}

}  // namespace

namespace {
// A memory figure (docs/output.md, section 4d): 0 was not read, so `absent`.
std::string bytes_or(std::uint64_t v, const char* absent) { return v > 0 ? std::to_string(v) : std::string(absent); }
std::string fixed_mib(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(v) / 1048576.0);
  return buf;
}
}  // namespace

std::string render_pool_text(const PoolSettings& s, const PoolResult& r, int verbose, const MachineInfo& m,
                             const std::vector<std::string>& command_line) {
  std::ostringstream o;
  o << "UTS pool workload - concurrent pool of split-deque segments\n";
  if (!r.complete())
    o << "*** PARTIAL RESULTS: interrupted by " << interrupt::name_of(r.stop_signal) << " after " << r.trials.size() << " of "
      << s.trials << " trials (the last one stopped early); the numbers below cover what ran\n";
  o << "Pool: " << s.threads << " threads, " << s.ops << " operations per trial, " << s.fill << " initial items, "
    << s.trials << " trials; " << model(s) << "; steal " << to_string(s.steal) << ", victim " << to_string(s.victim);
  if (s.remote_delay_ns) o << ", remote delay " << s.remote_delay_ns << " ns";
  o << "\n";
  o << "trial  initial    added  removed  remaining  aborted  add(us) remove(us)  stole(%)  segs/steal  items/steal"
       "  conserved\n";
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const PoolTrial& t = r.trials[i];
    char line[256];
    std::snprintf(line, sizeof line,
                  "%5zu %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8.3f %10.3f %9.2f %11.2f %12.2f  %s\n",
                  i, t.initial, t.added, t.removed, t.remaining, t.aborted, t.mean_add_us, t.mean_remove_us,
                  t.removes_stole_pct, t.segments_per_steal, t.elements_per_steal, t.conserved ? "yes" : "NO");
    o << line;
  }
  const Totals tot = totals(r);
  char line[512];
  std::snprintf(line, sizeof line,
                "Means over trials: add %.3f us, remove %.3f us, removes that stole %.2f%%; over all steals: "
                "segments examined per steal %.2f, items per steal %.2f\n",
                r.mean_add_us(), r.mean_remove_us(), r.removes_stole_pct(), r.segments_per_steal(),
                r.elements_per_steal());
  o << line;
  o << "Items: initial " << tot.initial << " + added " << tot.added << " - removed " << tot.removed << " = remaining "
    << tot.remaining << (tot.initial + tot.added - tot.removed == tot.remaining ? " (holds)" : " (DOES NOT HOLD)")
    << "; aborted removes " << tot.aborted << "; lost " << tot.lost << ", duplicated " << tot.duplicated << "\n";
  if (r.memory.peak_rss_bytes > 0)
    o << "Peak memory = " << fixed_mib(r.memory.peak_rss_bytes) << " MiB resident, " << fixed_mib(r.memory.start_peak_rss_bytes)
      << " MiB before the trials\n";
  if (verbose > 0) {
    o << "trial thread role      adds  removes  aborted    stole   steals  items  examined  add(us) remove(us)\n";
    for (std::size_t i = 0; i < r.trials.size(); ++i) {
      for (std::size_t t = 0; t < r.trials[i].threads.size(); ++t) {
        const PoolThreadStats& x = r.trials[i].threads[t];
        std::snprintf(line, sizeof line,
                      "%5zu %6zu %-8s %6" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %6" PRIu64
                      " %9" PRIu64 " %8.3f %10.3f\n",
                      i, t, s.producers ? (x.producer ? "producer" : "consumer") : "both", x.adds, x.removes,
                      x.aborted, x.removes_stole, x.steals, x.elements_stolen, x.segments_examined,
                      x.adds ? 1e6 * x.add_seconds / double(x.adds) : 0.0,
                      x.removes ? 1e6 * x.remove_seconds / double(x.removes) : 0.0);
        o << line;
      }
    }
    o << placement_text(view_of(s, r)) << build_text(m, command_line);
  } else if (view_of(s, r).summary().oversubscribed) {
    const PlacementSummary ps = view_of(s, r).summary();
    o << "Oversubscribed: " << s.threads << " threads on " << ps.pus_available << " PUs\n";
  }
  return o.str();
}

namespace {

std::string csv_text(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// batch_system ... runtime_env: empty outside a batch job (runtime_env
// empty when no OMP_*, GOMP_*, KMP_* variable is set).
std::string batch_cells(const RunEnvironment& e) {
  const BatchJob* j = e.batch ? &*e.batch : nullptr;
  const auto count = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); };
  return (j ? csv_text(j->system) : "") + "," + (j ? csv_text(j->job_id) : "") + "," + (j ? count(j->nodes) : "") +
         "," + (j ? count(j->tasks) : "") + "," + (j ? count(j->cpus_per_task) : "") + "," +
         (j && j->cpu_bind ? csv_text(*j->cpu_bind) : "") + "," + csv_text(runtime_env_list(e));
}

}  // namespace

std::string render_pool_json(const PoolSettings& s, const PoolResult& r, const MachineInfo& m,
                             const std::vector<std::string>& command_line) {
  std::ostringstream o;
  const Totals tot = totals(r);
  o << "{\"uts_version\":\"" << m.uts_version << "\",\"workload\":\"pool\"";
  o << ",\"status\":\"" << (r.complete() ? "complete" : "interrupted") << "\",\"stop_signal\":";
  if (r.complete()) o << "null";
  else o << '"' << interrupt::name_of(r.stop_signal) << '"';
  o << ",\"parameters\":{\"threads\":" << s.threads << ",\"ops\":" << s.ops << ",\"fill\":" << s.fill
    << ",\"trials\":" << s.trials << ",\"model\":\"" << (s.producers ? "producer-consumer" : "random") << "\""
    << ",\"mix\":";
  if (s.producers) o << "null,\"producers\":" << *s.producers << ",\"arrangement\":\"" << to_string(s.arrangement) << "\"";
  else o << s.mix << ",\"producers\":null,\"arrangement\":null";
  o
    << ",\"steal\":\"" << to_string(s.steal) << "\",\"victim\":\"" << to_string(s.victim)
    << "\",\"remote_delay_ns\":" << s.remote_delay_ns << ",\"seed\":" << s.seed << "}";
  o << ",\"results\":{\"initial\":" << tot.initial << ",\"added\":" << tot.added << ",\"removed\":" << tot.removed
    << ",\"remaining\":" << tot.remaining << ",\"aborted\":" << tot.aborted << ",\"lost\":" << tot.lost
    << ",\"duplicated\":" << tot.duplicated << ",\"conserved\":" << (r.conserved() ? "true" : "false")
    << ",\"mean_add_us\":" << num(r.mean_add_us()) << ",\"mean_remove_us\":" << num(r.mean_remove_us())
    << ",\"removes_stole_pct\":" << num(r.removes_stole_pct())
    << ",\"segments_examined_per_steal\":" << num(r.segments_per_steal())
    << ",\"elements_per_steal\":" << num(r.elements_per_steal()) << "}";
  o << ",\"trials\":[";
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const PoolTrial& t = r.trials[i];
    o << (i ? "," : "") << "{\"trial\":" << i << ",\"complete\":" << (t.complete ? "true" : "false")
      << ",\"initial\":" << t.initial << ",\"added\":" << t.added
      << ",\"removed\":" << t.removed << ",\"remaining\":" << t.remaining << ",\"aborted\":" << t.aborted
      << ",\"lost\":" << t.lost << ",\"duplicated\":" << t.duplicated
      << ",\"conserved\":" << (t.conserved ? "true" : "false") << ",\"seconds\":" << num(t.seconds)
      << ",\"mean_add_us\":" << num(t.mean_add_us) << ",\"mean_remove_us\":" << num(t.mean_remove_us)
      << ",\"removes_stole_pct\":" << num(t.removes_stole_pct)
      << ",\"segments_examined_per_steal\":" << num(t.segments_per_steal)
      << ",\"elements_per_steal\":" << num(t.elements_per_steal) << ",\"steals\":" << t.steals
      << ",\"threads\":[";
    for (std::size_t k = 0; k < t.threads.size(); ++k) {
      const PoolThreadStats& x = t.threads[k];
      o << (k ? "," : "") << "{\"thread\":" << k << ",\"producer\":" << (x.producer ? "true" : "false")
        << ",\"adds\":" << x.adds << ",\"removes\":" << x.removes << ",\"aborted\":" << x.aborted
        << ",\"removes_stole\":" << x.removes_stole << ",\"steals\":" << x.steals
        << ",\"elements_stolen\":" << x.elements_stolen << ",\"segments_examined\":" << x.segments_examined
        << ",\"segments_examined_stealing\":" << x.segments_examined_stealing
        << ",\"add_seconds\":" << num(x.add_seconds) << ",\"remove_seconds\":" << num(x.remove_seconds) << "}";
    }
    o << "]}";
  }
  o << "],\"machine\":{\"hostname\":" << json_string(m.hostname) << ",\"logical_cpus\":" << m.logical_cpus
    << ",\"openmp_runtime\":\"" << m.openmp_runtime << "\",\"timestamp_utc\":\"" << m.timestamp_utc << "\""
    << ",\"hosts\":" << hosts_json(view_of(s, r)) << ",\"topology\":" << topology_json(r.topology) << "}";
  o << ",\"build\":{\"version\":" << json_string(m.uts_version) << ",\"commit\":" << json_string(m.commit)
    << ",\"commit_dirty\":" << (m.commit_dirty ? "true" : "false") << ",\"build_type\":" << json_string(m.build_type)
    << ",\"compiler\":" << json_string(m.compiler) << ",\"compiler_flags\":" << json_string(m.compiler_flags)
    << ",\"openmp_runtime\":" << json_string(m.openmp_runtime) << ",\"openmp_version\":" << m.openmp_version
    << ",\"openmp_library\":" << json_string(m.openmp_library) << ",\"cryptopp_version\":" << json_string(m.cryptopp_version)
    << "},\"command_line\":[";
  for (std::size_t i = 0; i < command_line.size(); ++i) o << (i ? "," : "") << json_string(command_line[i]);
  const PlacementSummary ps = summarize_placement(r.places, r.rank_places, s.threads);
  o << "],\"placement\":{\"bind\":" << json_string(to_string(s.bind.policy))
    << ",\"smt\":" << (s.bind.smt ? "true" : "false") << ",\"oversubscribed\":" << (ps.oversubscribed ? "true" : "false")
    << ",\"pus_available\":" << ps.pus_available << ",\"pus_used\":" << ps.pus_used
    << ",\"threads\":" << placement_threads_json(view_of(s, r));
  o << "},\"batch\":" << batch_json(m.environment) << ",\"runtime_env\":" << runtime_env_json(m.environment);
  const ProcessMemory& mem = r.memory;
  o << ",\"memory\":{\"peak_rss_bytes\":" << bytes_or(mem.peak_rss_bytes, "null")
    << ",\"start_peak_rss_bytes\":" << bytes_or(mem.start_peak_rss_bytes, "null")
    << ",\"start_rss_bytes\":" << bytes_or(mem.start_rss_bytes, "null") << ",\"peak_rss_source\":"
    << (mem.peak_rss_bytes == 0 ? "null" : mem.from_proc ? "\"VmHWM\"" : "\"ru_maxrss\"") << "}";
  o << "}\n";
  return o.str();
}

std::string pool_csv_header() {
  return "uts_version,timestamp_utc,workload,threads,ops,fill,model,mix,producers,arrangement,steal,victim,"
         "remote_delay_ns,seed,trial,initial,added,removed,remaining,aborted,lost,duplicated,conserved,seconds,"
         "mean_add_us,mean_remove_us,removes_stole_pct,segments_examined_per_steal,elements_per_steal,"
         "openmp_runtime,hostname,complete,commit,commit_dirty,compiler,compiler_flags,command_line,bind,"
         "oversubscribed,pus_used,placement,smt,pus_available,hosts,topology,build_type,openmp_library,"
         // The batch job and the OpenMP environment (batch.hpp), appended.
         "batch_system,batch_job_id,batch_nodes,batch_tasks,batch_cpus_per_task,batch_cpu_bind,runtime_env,"
         // Resident memory (docs/output.md, section 4d), appended: the process's, the same on every trial's row.
         "peak_rss_bytes,start_peak_rss_bytes,start_rss_bytes,peak_rss_source\n";
}

std::string render_pool_csv_rows(const PoolSettings& s, const PoolResult& r, const MachineInfo& m,
                                 const std::vector<std::string>& command_line) {
  std::ostringstream o;
  const PlacementSummary ps = summarize_placement(r.places, r.rank_places, s.threads);
  const std::string batch_csv = batch_cells(m.environment);
  const ProcessMemory& mem = r.memory;
  const std::string memory_csv = bytes_or(mem.peak_rss_bytes, "") + "," + bytes_or(mem.start_peak_rss_bytes, "") + "," +
                                 bytes_or(mem.start_rss_bytes, "") + "," +
                                 (mem.peak_rss_bytes == 0 ? "" : mem.from_proc ? "VmHWM" : "ru_maxrss");
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    const PoolTrial& t = r.trials[i];
    o << m.uts_version << "," << m.timestamp_utc << ",pool," << s.threads << "," << s.ops << "," << s.fill << ","
      << (s.producers ? "producer-consumer" : "random") << "," << (s.producers ? "" : std::to_string(s.mix)) << ","
      << (s.producers ? std::to_string(*s.producers) : "") << ","
      << (s.producers ? to_string(s.arrangement) : "") << "," << to_string(s.steal) << "," << to_string(s.victim)
      << "," << s.remote_delay_ns << "," << s.seed << "," << i << "," << t.initial << "," << t.added << ","
      << t.removed << "," << t.remaining << "," << t.aborted << "," << t.lost << "," << t.duplicated << ","
      << (t.conserved ? "true" : "false") << "," << num(t.seconds) << "," << num(t.mean_add_us) << ","
      << num(t.mean_remove_us) << "," << num(t.removes_stole_pct) << "," << num(t.segments_per_steal) << ","
      << num(t.elements_per_steal) << "," << m.openmp_runtime << "," << m.hostname << ","
      << (t.complete ? "true" : "false") << "," << m.commit << "," << (m.commit_dirty ? "true" : "false") << ","
      << csv_text(m.compiler) << "," << csv_text(m.compiler_flags) << "," << csv_text(shell_quoted(command_line))
      << "," << to_string(s.bind.policy) << "," << (ps.oversubscribed ? "true" : "false") << "," << ps.pus_used << ","
      << placement_list(view_of(s, r)) << "," << (s.bind.smt ? "true" : "false") << "," << ps.pus_available << ","
      << csv_text(hosts_list(view_of(s, r))) << "," << csv_text(r.topology.text()) << "," << m.build_type << ","
      << csv_text(m.openmp_library) << "," << batch_csv << "," << memory_csv << "\n";
  }
  return o.str();
}

std::string render_pool_trace_csv(const PoolResult& r) {
  std::ostringstream o;
  o << "trial,seconds,thread,size\n";
  for (std::size_t i = 0; i < r.trials.size(); ++i)
    for (const SegmentSample& x : r.trials[i].trace) o << i << "," << num(x.seconds) << "," << x.thread << "," << x.size << "\n";
  return o.str();
}

}  // namespace uts
