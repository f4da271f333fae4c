// Text, JSON and CSV renderings of a run (spec section 4).
#pragma once

#include <optional>
#include <string>

#include "report/machine.hpp"
#include "report/result.hpp"

namespace uts {

struct RunReport {
  const TreeParams& tree;
  const EngineSettings& engine;
  std::string preset;
  const RunResult& result;
  const ExpectedResults& expected;
  std::optional<bool> verified;  // set when --verify ran
  const MachineInfo& machine;
};

std::string render_text(const RunReport& r, int verbose);
std::string render_json(const RunReport& r);
std::string csv_header();
std::string render_csv_row(const RunReport& r);

// Comparison with the expected values present; true when all present match.
bool matches_expected(const RunResult& result, const ExpectedResults& expected);

}  // namespace uts
