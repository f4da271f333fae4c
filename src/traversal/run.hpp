// One traversal in this process: the engine the settings choose (the
// sequential baseline or the parallel engine), gathered into one RunResult.
#pragma once

#include "run/progress.hpp"
#include "run/result.hpp"
#include "run/settings.hpp"
#include "run/status.hpp"
#include "tree/tree.hpp"

namespace uts {

// `progress` has one slot per thread (one for the sequential engine).
// Throws std::runtime_error as run_parallel does.
RunResult run(const Tree& tree, const EngineSettings& engine, const StopRule& stop, ProgressBoard& progress);

}  // namespace uts
