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

// machine.hosts and machine.topology.
std::string machine_extra(const RecordView& x) {
  return "\"hosts\":" + hosts_json(x.places_view()) + ",\"topology\":" + topology_json(x.r.result.topology);
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
  s << "}\n";
  return s.str();
}

}  // namespace uts
