// The sequential baseline: explicit-stack depth-first search.
#pragma once

#include "traversal/outcome.hpp"
#include "traversal/progress.hpp"
#include "tree/tree.hpp"

namespace uts {

struct SequentialOutcome {
  Counts counts;
  RunStatus status = RunStatus::complete;
  double seconds = 0;
};

// `progress` (optional) receives the node count every few hundred expansions.
SequentialOutcome run_sequential(const Tree& tree, const StopRule& stop, ProgressBoard* progress = nullptr);

}  // namespace uts
