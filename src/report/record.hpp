// One run as the report sees it: its parameters, settings, result and the
// machine it ran on, and the values every rendering derives from them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/aggregate.hpp"
#include "report/machine.hpp"
#include "report/provenance.hpp"
#include "run/result.hpp"
#include "run/settings.hpp"
#include "steal/protocol.hpp"
#include "tree/params.hpp"

namespace uts {

struct RunReport {
  const TreeParams& tree;
  const EngineSettings& engine;
  std::string preset;
  const RunResult& result;
  const ExpectedResults& expected;
  std::optional<bool> verified;  // set when --verify ran
  const MachineInfo& machine;
  bool verify_skipped = false;       // --verify on a partial run: not verified
  std::vector<std::string> ignored{};  // options a file set that do not apply (cli/applicability.cpp)
  std::string threads_from{};        // where the thread count came from
  std::string preset_base{};         // --preset whose tree was changed by tree options (cli/options.cpp)
  std::vector<std::string> command_line{};  // argv as given
  std::optional<double> work_baseline{};  // --work-baseline: the sequential time work inflation divides by
  bool counters_asked = false;          // --counters given
  std::string counters_unavailable{};   // the counters this machine did not allow, and why
};

// What the columns read: the report, and what is derived from it once.
struct RecordView {
  explicit RecordView(const RunReport& report);
  const RunReport& r;
  const ProtocolTraits& protocol;  // the protocol that ran (or would have: sequential)
  Aggregates agg;
  DomainAggregates domains;  // empty unless the run had domains
  RankTotals ranks;
  double nodes_per_sec = 0;
  int threads = 1;  // 1 for the sequential engine
  int pes = 1;      // ranks x threads
  PlacementSummary placement;  // oversubscribed, PUs available and used
  PlacementView places_view() const;
  // A foreign scheduler (docs/schedulers.md) keeps no protocol counters.
  bool has(ProtocolCounters c) const { return !r.engine.scheduler.foreign() && protocol.has(c); }
};

}  // namespace uts
