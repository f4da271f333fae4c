// The parallel engine: one split deque per OpenMP thread, depth-first work on
// the private part, steals from the shallow end of other threads' deques.
#pragma once

#include <vector>

#include "report/result.hpp"
#include "traversal/outcome.hpp"
#include "traversal/progress.hpp"
#include "tree/tree.hpp"

namespace uts {

namespace distrib {
class RankLink;
}

// Throws std::runtime_error if OpenMP does not grant the requested threads.
// `link`: this rank's agent in an MPI job (distrib/), or none.
RunResult run_parallel(const Tree& tree, const EngineSettings& settings, const StopRule& stop,
                       ProgressBoard& progress, distrib::RankLink* link = nullptr);

}  // namespace uts
