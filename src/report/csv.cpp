// The CSV rendering of a run (format.hpp): the header and one row, both
// from the column table (columns.hpp).
#include <string>

#include "report/columns.hpp"
#include "report/format.hpp"

namespace uts {

std::string csv_header() {
  std::string out;
  for (const Column& c : run_columns()) {
    if (!c.csv) continue;
    if (!out.empty()) out += ',';
    out += c.csv;
  }
  out += '\n';
  return out;
}

std::string render_csv_row(const RunReport& r) {
  const RecordView x(r);
  std::string out;
  bool first = true;
  for (const Column& c : run_columns()) {
    if (!c.csv) continue;
    if (!first) out += ',';
    out += csv_cell(c.value(x));
    first = false;
  }
  out += '\n';
  return out;
}

}  // namespace uts
