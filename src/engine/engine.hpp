// The parallel engine: one deque of the chosen steal protocol per OpenMP
// thread, depth-first work at the deep end, steals from the shallow end of
// other threads' deques (docs/engine.md).
#pragma once

#include "engine/remote_link.hpp"
#include "run/progress.hpp"
#include "run/result.hpp"
#include "topology/placement.hpp"
#include "run/settings.hpp"
#include "run/status.hpp"
#include "tree/tree.hpp"

namespace uts {

// Throws std::runtime_error if OpenMP does not grant the requested threads.
// `link`: this rank's agent in a job of several ranks (distrib/), or none.
// `placement`: the threads already placed (MPI ranks place before their
// start barrier); none: the engine places them by settings.bind.
RunResult run_parallel(const Tree& tree, const EngineSettings& settings, const StopRule& stop,
                       ProgressBoard& progress, RemoteLink* link = nullptr, const Placement* placement = nullptr);

}  // namespace uts
