// The seam every scheduler implements (docs/schedulers.md): one entry point
// that traverses the whole tree in this process, and the entry that
// registers it (schedulers/registry.cpp lists the entries, one line each).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "run/progress.hpp"
#include "run/result.hpp"
#include "run/settings.hpp"
#include "run/status.hpp"
#include "tree/tree.hpp"

namespace uts {

// Traverses `tree` with settings.threads threads (settings.scheduler says
// the form and the grain, already resolved: grain != 0). Contract, the same
// for every scheduler (docs/schedulers.md, "The contract"):
// - counts exact (size, leaves, max depth, checksum) when complete; merged
//   from per-thread counters after the run, no shared counter per node;
// - stops within a bounded number of nodes when interrupt::requested() or
//   when the nodes generated reach stop.max_nodes (the ProgressBoard sum),
//   and sets status / stop_signal as the engine does;
// - `progress` has settings.threads slots; slot i is thread i's own count;
// - result.threads has one entry per thread (nodes; time_phase[work] and
//   time_total where measured, else left 0 and the scheduler's entry says
//   so through reports_time_split = false), result.places one per thread,
//   rank_places and topology as the engine fills them, runtime named;
// - throws std::runtime_error (one line, no "uts:") when the runtime does
//   not grant the threads asked for.
using SchedulerRun = RunResult (*)(const Tree& tree, const EngineSettings& settings, const StopRule& stop,
                                   ProgressBoard& progress);

struct SchedulerEntry {
  std::string_view name;     // --scheduler NAME
  std::string_view summary;  // one line for --help and docs
  SchedulerRun run;
  // The runtime this build links for it, as the record will name it when
  // the run cannot read it back ("libgomp", "libomp", "oneTBB").
  std::string (*runtime)();
  // Whether --scheduler-form / --task-grain apply (false for uts).
  bool has_forms;
  // Tuned form: the default --task-grain (nodes a task expands between
  // hand-offs), chosen by measurement (docs/schedulers.md).
  std::uint32_t default_grain;
  // Whether the per-thread time split (work vs the rest) is measured; when
  // false the record's time breakdown is null.
  bool reports_time_split;
  // Whether its threads are the OpenMP runtime's: then OMP_THREAD_LIMIT caps
  // --threads and OMP_PROC_BIND/OMP_PLACES bind them ("omp" placement).
  bool openmp_threads = true;
  // Whether --counters can be read on its threads (uts opens them on each
  // thread it runs on; a runtime's own worker pool it cannot reach).
  bool reads_counters = true;
};

}  // namespace uts
