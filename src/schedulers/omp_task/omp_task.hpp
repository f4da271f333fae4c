// The `omp-task` scheduler: the traversal handed to OpenMP tasking (libgomp
// in a GCC build, libomp in a clang build), in the literature form (one
// untied task per child, taskwait: BOTS) and the tuned form (a task expands
// a local stack through the batched expander and hands half its shallow
// nodes to a new task every grain nodes). docs/schedulers.md.
#pragma once

#include <string>

#include "schedulers/scheduler.hpp"

namespace uts {

RunResult run_omp_task(const Tree& tree, const EngineSettings& settings, const StopRule& stop, ProgressBoard& progress);

// The OpenMP runtime loaded in this process: "libgomp", "libomp" (by the
// shared object that defines omp_get_num_threads), or "OpenMP" if unknown.
std::string openmp_runtime();

extern const SchedulerEntry kOmpTaskScheduler;

}  // namespace uts
