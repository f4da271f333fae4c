// The sequential baseline: explicit-stack depth-first search.
#pragma once

#include "traversal/outcome.hpp"
#include "tree/tree.hpp"

namespace uts {

struct SequentialOutcome {
  Counts counts;
  RunStatus status = RunStatus::complete;
  double seconds = 0;
};

SequentialOutcome run_sequential(const Tree& tree, const StopRule& stop);

}  // namespace uts
