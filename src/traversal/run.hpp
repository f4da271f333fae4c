// Runs the engine the settings choose and gathers one RunResult.
#pragma once

#include "report/result.hpp"
#include "traversal/outcome.hpp"
#include "tree/tree.hpp"

namespace uts {

RunResult run(const Tree& tree, const EngineSettings& engine, const StopRule& stop, bool progress);

}  // namespace uts
