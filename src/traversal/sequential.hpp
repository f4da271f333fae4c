// The sequential baseline: explicit-stack depth-first search.
#pragma once

#include "report/result.hpp"
#include "traversal/outcome.hpp"
#include "traversal/progress.hpp"
#include "tree/tree.hpp"

namespace uts {

// `progress` (optional) receives the node count every few hundred expansions.
// The result has one per-thread entry, with the node count only.
RunResult run_sequential(const Tree& tree, const StopRule& stop, ProgressBoard* progress = nullptr);

}  // namespace uts
