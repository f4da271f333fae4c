// The JSON rendering of a run (format.hpp): one JSON Lines record, the
// column table's groups plus the per-thread, domain and rank arrays.
#include <optional>
#include <sstream>
#include <string_view>

#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/text_util.hpp"

namespace uts {

namespace {

// "key":value pairs of the columns in `group`, each preceded by a comma
// unless it is the first of the object (`first` tracks that).
void members(std::ostringstream& s, const RecordView& x, std::string_view group, bool& first) {
  for (const Column& c : run_columns()) {
    if (c.group == nullptr || group != c.group) continue;
    const Cell v = c.value(x);
    if (c.omit_absent && std::holds_alternative<std::monostate>(v)) continue;
    s << (first ? "" : ",") << fmt::json_string(c.json) << ":" << json_cell(v);
    first = false;
  }
}

void object(std::ostringstream& s, const RecordView& x, std::string_view group, bool& first,
            std::string_view nested = "", const std::string& extra = "") {
  s << (first ? "" : ",") << fmt::json_string(std::string(group)) << ":{";
  bool inner = true;
  members(s, x, group, inner);
  if (!nested.empty()) {
    const std::string sub = std::string(group) + "." + std::string(nested);
    s << (inner ? "" : ",") << fmt::json_string(std::string(nested)) << ":{";
    bool deepest = true;
    members(s, x, sub, deepest);
    s << "}";
  }
  if (!extra.empty()) s << (inner ? "" : ",") << extra;
  s << "}";
  first = false;
}

std::string string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += fmt::json_string(items[i]);
  }
  out += ']';
  return out;
}

// --counters (docs/trace.md): null when not asked for.
std::string counters_json(const RecordView& x) {
  if (!x.r.counters_asked) return "null";
  const CounterResults& c = x.r.result.counters;
  std::ostringstream s;
  std::vector<std::string> names = c.names;
  std::string unavailable = x.r.counters_unavailable;
  if (!c.unavailable.empty()) unavailable += (unavailable.empty() ? "" : "; ") + c.unavailable;
  s << "{\"names\":" << string_array(names) << ",\"unavailable\":"
    << (unavailable.empty() ? std::string("null") : fmt::json_string(unavailable))
    << ",\"scaled\":" << (c.scaled ? "true" : "false") << ",\"per_thread\":[";
  std::vector<std::int64_t> totals(names.size(), 0);
  std::vector<bool> complete(names.size(), true);
  for (std::size_t i = 0; i < c.per_thread.size(); ++i) {
    s << (i ? "," : "") << "{\"thread\":" << i;
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::int64_t v = k < c.per_thread[i].size() ? c.per_thread[i][k] : -1;
      s << "," << fmt::json_string(names[k]) << ":" << (v >= 0 ? std::to_string(v) : std::string("null"));
      if (v >= 0) totals[k] += v;
      else complete[k] = false;
    }
    s << "}";
  }
  s << "],\"totals\":{";
  for (std::size_t k = 0; k < names.size(); ++k)
    s << (k ? "," : "") << fmt::json_string(names[k]) << ":"
      << (complete[k] && !c.per_thread.empty() ? std::to_string(totals[k]) : std::string("null"));
  s << "},\"derived\":{";
  auto total_of = [&](const char* n) -> std::optional<double> {
    for (std::size_t k = 0; k < names.size(); ++k)
      if (names[k] == n && complete[k] && !c.per_thread.empty()) return double(totals[k]);
    return std::nullopt;
  };
  bool first = true;
  auto derived = [&](const char* name, std::optional<double> num, double den) {
    s << (first ? "" : ",") << "\"" << name << "\":" << (num && den > 0 ? fmt::num(*num / den) : std::string("null"));
    first = false;
  };
  derived("cycles_per_node", total_of("cycles"), double(x.r.result.counts.nodes));
  derived("instructions_per_node", total_of("instructions"), double(x.r.result.counts.nodes));
  derived("instructions_per_cycle", total_of("instructions"), total_of("cycles").value_or(0));
  derived("llc_misses_per_steal", total_of("llc-misses"), double(x.agg.steals));
  derived("llc_misses_per_node", total_of("llc-misses"), double(x.r.result.counts.nodes));
  derived("branch_misses_per_node", total_of("branch-misses"), double(x.r.result.counts.nodes));
  s << "}}";
  return s.str();
}

// machine.hosts and machine.topology.
std::string machine_extra(const RecordView& x) {
  return "\"hosts\":" + hosts_json(x.places_view()) + ",\"topology\":" + topology_json(x.r.result.topology);
}

// memory.hosts under MPI: per host, its ranks and the sum of their peaks
// (an upper bound on what the host held at once: the peaks need not have
// coincided), hosts in the order of their first rank.
std::string memory_hosts(const RecordView& x) {
  const RunResult& res = x.r.result;
  if (!x.r.engine.ranks.under_mpi || res.ranks.empty() || res.rank_places.size() != res.ranks.size()) return "";
  std::vector<std::string> hosts;
  std::vector<std::uint64_t> ranks, sums;
  for (std::size_t i = 0; i < res.ranks.size(); ++i) {
    const std::string host = res.rank_places[i].host;
    std::size_t k = 0;
    while (k < hosts.size() && hosts[k] != host) ++k;
    if (k == hosts.size()) {
      hosts.push_back(host);
      ranks.push_back(0);
      sums.push_back(0);
    }
    ++ranks[k];
    sums[k] += res.ranks[i].memory.peak_rss_bytes;
  }
  std::string out = "\"hosts\":[";
  for (std::size_t k = 0; k < hosts.size(); ++k)
    out += (k ? ",{" : "{") + std::string("\"host\":") + fmt::json_string(hosts[k]) +
           ",\"ranks\":" + std::to_string(ranks[k]) + ",\"peak_rss_bytes_sum\":" + std::to_string(sums[k]) + "}";
  return out + "]";
}

void rows(std::ostringstream& s, const RecordView& x, std::span<const RowColumn> columns, std::size_t n) {
  s << "[";
  for (std::size_t i = 0; i < n; ++i) {
    s << (i ? "," : "") << "{";
    bool first = true;
    for (const RowColumn& c : columns) {
      const Cell v = c.value(x, i);
      if (c.omit_absent && std::holds_alternative<std::monostate>(v)) continue;
      s << (first ? "" : ",") << fmt::json_string(c.json) << ":" << json_cell(v);
      first = false;
    }
    s << "}";
  }
  s << "]";
}

// Top-level fields: `key` alone, or (empty key) every one but those named
// first in the layout, in table order.
void top_level(std::ostringstream& s, const RecordView& x, std::string_view key, bool& first) {
  for (const Column& c : run_columns()) {
    if (c.group == nullptr || *c.group != '\0') continue;
    const std::string_view name = c.json;
    if (key.empty() ? (name == "uts_version" || name == "status") : name != key) continue;
    const Cell v = c.value(x);
    if (c.omit_absent && std::holds_alternative<std::monostate>(v)) continue;
    s << (first ? "" : ",") << fmt::json_string(c.json) << ":" << json_cell(v);
    first = false;
  }
}

}  // namespace

std::string render_json(const RunReport& r) {
  const RecordView x(r);
  const RunResult& res = r.result;
  std::ostringstream s;
  bool first = true;
  s << "{";
  top_level(s, x, "uts_version", first);
  top_level(s, x, "status", first);
  object(s, x, "parameters", first);
  object(s, x, "engine", first, "not_applicable");
  object(s, x, "results", first);
  object(s, x, "expected", first);
  top_level(s, x, "", first);  // verified, and what follows it in the table
  object(s, x, "timing", first);
  s << ",\"threads\":";
  rows(s, x, thread_columns(), res.threads.size());
  object(s, x, "aggregates", first);
  if (res.domains) {
    const DomainMap& m = *res.domains;
    s << ",\"domains\":{\"count\":" << m.count << ",\"source\":" << fmt::json_string(m.source)
      << ",\"node_share_mean\":" << fmt::num(x.domains.share_mean)
      << ",\"node_share_variance\":" << fmt::num(x.domains.share_variance)
      << ",\"node_share_relative_variance\":" << fmt::num(x.domains.share_relative_variance) << ",\"per_domain\":";
    rows(s, x, domain_columns(), x.domains.domains.size());
    s << "}";
  }
  if (r.engine.ranks.under_mpi) {
    s << ",\"ranks\":";
    rows(s, x, rank_columns(), res.ranks.size());
  }
  object(s, x, "machine", first, "", machine_extra(x));
  object(s, x, "build", first);
  s << ",\"command_line\":" << string_array(r.command_line);
  object(s, x, "placement", first, "", "\"threads\":" + placement_threads_json(x.places_view()));
  s << ",\"batch\":" << batch_json(r.machine.environment)
    << ",\"runtime_env\":" << runtime_env_json(r.machine.environment);
  object(s, x, "memory", first, "", memory_hosts(x));
  s << ",\"counters\":" << counters_json(x);
  s << "}\n";
  return s.str();
}

}  // namespace uts
