// Text, JSON and CSV renderings of a run (docs/output.md). JSON and CSV are
// driven by one column table (columns.hpp); text keeps the reference's two
// result lines and adds tables of its own.
#pragma once

#include <string>

#include "report/record.hpp"

namespace uts {

std::string render_text(const RunReport& r, int verbose);
std::string render_json(const RunReport& r);
std::string csv_header();
std::string render_csv_row(const RunReport& r);

}  // namespace uts
