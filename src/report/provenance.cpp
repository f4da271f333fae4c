// Provenance and placement as text and JSON (provenance.hpp): the command
// line, the build, hosts, topology and each thread's place.
#include "report/provenance.hpp"

#include <sstream>

#include "report/text_util.hpp"

namespace uts {

namespace {

std::string shell_word(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") ==
                        std::string::npos)
    return w;
  std::string out = "'";
  for (char c : w) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  out += '\'';
  return out;
}

std::string known(int v) { return v >= 0 ? std::to_string(v) : std::string("null"); }

const char* host_of(const PlacementView& v, std::size_t thread) {
  const auto per_rank = static_cast<std::size_t>(v.threads_per_rank > 0 ? v.threads_per_rank : 1);
  return thread / per_rank < v.ranks.size() ? v.ranks[thread / per_rank].host : "";
}

}  // namespace

std::string shell_quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += shell_word(w);
  }
  return out;
}

std::string hosts_list(const PlacementView& v) {
  std::string out;
  for (const RankPlace& r : v.ranks) {
    if (!out.empty()) out += ';';
    out += r.host;
  }
  return out;
}

std::string placement_list(const PlacementView& v) {
  std::string out;
  const auto per_rank = static_cast<std::size_t>(v.threads_per_rank > 0 ? v.threads_per_rank : 1);
  for (std::size_t i = 0; i < v.places.size(); ++i) {
    if (!out.empty()) out += ' ';
    if (v.under_mpi) {
      out += 'r';
      out += std::to_string(i / per_rank);
      out += '.';
      out += std::to_string(i % per_rank);
    } else {
      out += std::to_string(i);
    }
    out += ':';
    out += v.places[i].pu >= 0 ? std::to_string(v.places[i].pu) : std::string("?");
  }
  return out;
}

std::string topology_json(const TopologySummary& t) {
  if (!t.loaded) return "null";
  std::ostringstream s;
  s << "{\"packages\":" << t.packages << ",\"numa_nodes\":" << t.numa_nodes << ",\"cores\":" << t.cores
    << ",\"pus\":" << t.pus << ",\"summary\":" << fmt::json_string(t.text()) << ",\"caches\":[";
  for (std::size_t i = 0; i < t.caches.size(); ++i) {
    const CacheLevel& c = t.caches[i];
    s << (i ? "," : "") << "{\"level\":" << c.level << ",\"type\":" << fmt::json_string(c.type)
      << ",\"size\":" << c.size << ",\"count\":" << c.count << "}";
  }
  s << "]}";
  return s.str();
}

std::string hosts_json(const PlacementView& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.ranks.size(); ++i) {
    if (i) out += ',';
    out += fmt::json_string(v.ranks[i].host);
  }
  out += ']';
  return out;
}

std::string placement_threads_json(const PlacementView& v) {
  std::ostringstream s;
  const auto per_rank = static_cast<std::size_t>(v.threads_per_rank > 0 ? v.threads_per_rank : 1);
  s << "[";
  for (std::size_t i = 0; i < v.places.size(); ++i) {
    const ThreadPlace& p = v.places[i];
    s << (i ? "," : "") << "{\"thread\":" << i;
    if (v.under_mpi) s << ",\"rank\":" << i / per_rank << ",\"rank_thread\":" << i % per_rank;
    s << ",\"host\":" << fmt::json_string(host_of(v, i)) << ",\"pu\":" << known(p.pu) << ",\"core\":" << known(p.core)
      << ",\"numa\":" << known(p.numa) << ",\"package\":" << known(p.package)
      << ",\"bound_to\":" << (p.bound_pus > 0 ? fmt::json_string(p.bound_to) : std::string("null")) << "}";
  }
  s << "]";
  return s.str();
}

std::string placement_text(const PlacementView& v) {
  std::ostringstream s;
  s << "Topology: " << v.topology.text();
  if (!v.ranks.empty()) {
    s << "; host" << (v.ranks.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < v.ranks.size(); ++i) s << (i ? ", " : "") << v.ranks[i].host;
  }
  s << "\n";
  bool any_known = false;
  for (const ThreadPlace& p : v.places) any_known = any_known || p.pu >= 0;
  const PlacementSummary sum = v.summary();
  s << "Placement: "
    << (v.bind.policy == BindPolicy::omp ? std::string("by the OpenMP runtime (OMP_PLACES/OMP_PROC_BIND)")
                                         : std::string("--bind ") + to_string(v.bind.policy) + (v.bind.smt ? " --smt" : ""))
    << (any_known || v.places.empty() ? "" : " (not applied: no topology)") << ", " << sum.pus_used << " of "
    << sum.pus_available << " PUs used" << (sum.oversubscribed ? ", oversubscribed" : "") << "\n";
  const auto per_rank = static_cast<std::size_t>(v.threads_per_rank > 0 ? v.threads_per_rank : 1);
  for (std::size_t i = 0; i < v.places.size(); ++i) {
    const ThreadPlace& p = v.places[i];
    s << "  thread " << i;
    if (v.under_mpi) s << " (rank " << i / per_rank << " thread " << i % per_rank << ")";
    if (p.pu < 0)
      s << ": PU unknown";
    else
      s << ": PU " << p.pu << " (core " << p.core << ", NUMA node " << p.numa << ", package " << p.package << ")";
    s << (p.bound_pus > 0 ? std::string(", bound to PU ") + p.bound_to : std::string(", unbound")) << "\n";
  }
  return s.str();
}

std::string build_text(const MachineInfo& m, const std::vector<std::string>& command_line) {
  std::ostringstream s;
  s << "CPU: " << m.cpu_model << " (" << m.cpu_signature << ")\n";
  s << "Build: uts " << m.uts_version << ", commit " << m.commit << (m.commit_dirty ? " (dirty)" : "") << ", "
    << m.build_type << ", " << m.compiler << " " << m.compiler_flags << ", " << m.openmp_runtime
    << (m.openmp_library.empty() ? "" : " (" + m.openmp_library + ")") << "\n";
  if (!m.mpi_library.empty()) s << "MPI library: " << m.mpi_library << "\n";
  s << "Command line: " << shell_quoted(command_line) << "\n";
  s << batch_text(m.environment);
  return s.str();
}

}  // namespace uts
