// How a run ended, and when it must stop early.
#pragma once

#include <cstdint>

namespace uts {

// Ordered by severity: across ranks the most severe status wins.
enum class RunStatus { complete, max_nodes, interrupted };

// When a traversal must stop early. Polled every few hundred expansions,
// never per node.
struct StopRule {
  std::uint64_t max_nodes = 0;  // 0: no limit
};

const char* to_string(RunStatus s);

}  // namespace uts
