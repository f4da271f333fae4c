// The `uts` scheduler: run_parallel (engine/engine.hpp) behind the
// scheduler entry point.
#include "schedulers/uts/uts_scheduler.hpp"

#include "engine/engine.hpp"

namespace uts {

namespace {

RunResult run_uts(const Tree& tree, const EngineSettings& settings, const StopRule& stop, ProgressBoard& progress) {
  return run_parallel(tree, settings, stop, progress);
}

std::string uts_runtime() { return "uts"; }

}  // namespace

const SchedulerEntry kUtsScheduler{
    "uts", "the worker loop on split deques (--protocol, --victim, -s, --init apply)", run_uts, uts_runtime,
    /*has_forms=*/false, /*default_grain=*/0, /*reports_time_split=*/true};

}  // namespace uts
