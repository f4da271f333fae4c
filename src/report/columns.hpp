// The one table of a record's fields (docs/output.md): each column names its
// CSV header and its place and name in the JSON object, and reads its value
// once for both. The CSV header and row are the columns that have a CSV name,
// in table order; a JSON object is the columns of its group, in table order.
// A field that does not apply is empty in CSV and null (or absent, where the
// column says so) in JSON, never a zero that would pass for a real value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "report/record.hpp"

namespace uts {

// A field's value: absent, or a number, a flag or a text.
using Cell = std::variant<std::monostate, std::uint64_t, std::int64_t, double, bool, std::string>;

struct Column {
  const char* csv;    // CSV header name; nullptr: JSON only
  const char* group;  // the JSON object it belongs to ("" top level); nullptr: CSV only
  const char* json;   // its JSON name
  bool omit_absent;   // JSON: leave the key out (not null) when the field does not apply
  Cell (*value)(const RecordView&);
};

// One record of a run, in CSV column order. JSON groups: parameters, engine,
// engine.not_applicable, results, expected, timing, aggregates, machine,
// build, placement, memory.
std::span<const Column> run_columns();

// Fields of the per-thread, per-domain and per-rank JSON arrays: each reads
// row i of the record.
struct RowColumn {
  const char* json;
  bool omit_absent;
  Cell (*value)(const RecordView&, std::size_t i);
};
std::span<const RowColumn> thread_columns();
std::span<const RowColumn> domain_columns();  // with the DomainAggregates of the record
std::span<const RowColumn> rank_columns();

// The memory fields (docs/output.md, section 4d): the process's own, or
// under MPI each the largest over the ranks (the most one process held) and
// the sum of the ranks' peaks. A figure of 0 was not read.
struct MemoryFigures {
  std::uint64_t peak = 0, start_peak = 0, start_rss = 0, peak_sum = 0;
  bool from_proc = false;  // peaks from VmHWM (else getrusage's ru_maxrss)
};
MemoryFigures memory_figures(const RecordView& x);

std::string csv_cell(const Cell& c);
std::string json_cell(const Cell& c);

}  // namespace uts
