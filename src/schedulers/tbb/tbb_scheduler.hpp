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
// Without oneTBB in the build (-Dtbb=disabled, or no libtbb-dev), available()
// is false and run() throws.
#pragma once

#include <cstdint>

#include "run/placement.hpp"
#include "run/progress.hpp"
#include "run/result.hpp"
#include "run/status.hpp"
#include "tree/tree.hpp"

namespace uts::tbb_scheduler {

enum class Form { literature, tuned };

// Nodes a tuned task generates between two hand-offs. Chosen by measurement
// (docs/schedulers.md): below it the hand-offs' cost shows, above it a
// second thread waits longer for its first nodes.
inline constexpr std::uint32_t kDefaultGrain = 4096;

struct Settings {
  int threads = 1;   // the arena's size: the calling thread and threads - 1 workers
  Form form = Form::tuned;
  std::uint32_t grain = kDefaultGrain;  // tuned form only; at least 1
  BindSettings bind;  // --bind: each arena slot bound as the engine binds its threads
};

// Whether this build has oneTBB.
bool available();
// The one line a command line asking for tbb in a build without it prints
// (after "uts: ").
inline constexpr const char* kUnavailable =
    "--scheduler tbb: this build has no oneTBB (built with -Dtbb=disabled or without libtbb-dev)";

const char* to_string(Form form);

// One traversal. `progress` has one slot per thread (arena slot). The result
// has one entry per arena slot: its nodes; in the tuned form its time in
// tasks as work and the rest of the run as idle (the literature form's tasks
// wait inside one another, so its breakdown is not measured: zeros, and
// time_total 0). Throws std::runtime_error without oneTBB.
RunResult run(const Tree& tree, const Settings& settings, const StopRule& stop, ProgressBoard& progress);

}  // namespace uts::tbb_scheduler
