// The oneTBB scheduler (--scheduler tbb, docs/schedulers.md): the same tree,
// hash paths and -g as the engine, the traversal handed to oneTBB's own work
// stealing, in one of two forms:
//   literature  one task_group::run per child and a wait, the last child run
//               inline, the parent hashing its children as the sequential
//               code does (expand_node.hpp): UTS as libfork's benchmark suite
//               writes it for oneTBB;
//   tuned       a task expands nodes depth-first from a local stack through
//               the batched expander (tree/expand.hpp), as the sequential
//               baseline does, and every `grain` nodes it generates hands
//               the bottom half of its stack (the nodes nearest the root) to
//               a new task. No task waits: one wait at the top.
// Built only where oneTBB is found (-Dtbb, src/schedulers/meson.build).
#pragma once

#include <cstdint>
#include <string>

#include "schedulers/scheduler.hpp"

namespace uts {

RunResult run_tbb(const Tree& tree, const EngineSettings& settings, const StopRule& stop, ProgressBoard& progress);

// "oneTBB " and the version of the library loaded (TBB_runtime_version).
std::string tbb_runtime();

// Registered (schedulers/registry.cpp) only in a build with oneTBB
// (UTS_HAVE_TBB); defined only there.
extern const SchedulerEntry kTbbScheduler;

namespace tbb_scheduler {

// Nodes a tuned task generates between two hand-offs (--task-grain's
// default), as omp-task's: hand-offs cost about a task creation (a few
// hundred ns in oneTBB) against ~5 ns a node (docs/schedulers.md).
inline constexpr std::uint32_t kDefaultGrain = 4096;

// The line (after "uts: ") a command line asking for tbb prints in a build
// without oneTBB.
inline constexpr const char* kUnavailable =
    "--scheduler tbb: this build has no oneTBB (built with -Dtbb=disabled or without libtbb-dev)";

}  // namespace tbb_scheduler

}  // namespace uts
