// The sequential baseline: explicit-stack depth-first search.
#pragma once

#include "run/progress.hpp"
#include "run/result.hpp"
#include "run/status.hpp"
#include "tree/tree.hpp"

namespace uts {

// `progress` (optional) receives the node count every few hundred expansions.
// The result has one per-thread entry, with the node count only.
RunResult run_sequential(const Tree& tree, const StopRule& stop, ProgressBoard* progress = nullptr);

}  // namespace uts
