// How a run ended, and when it must stop early.
#pragma once

#include <cstdint>

namespace uts {

// Ordered by severity: across ranks the most severe status wins.
enum class RunStatus { complete, max_nodes, interrupted };

// When a traversal must stop early.
struct StopRule {
  std::uint64_t max_nodes = 0;  // 0: no limit
};

// How often a traversal looks at stop requests (signals, --max-nodes, a stop
// raised elsewhere): after every kPollNodes nodes a thread generates, and
// every kHugeNode (tree/expand.hpp) children inside one node. Never per node.
// docs/output.md, section 8, gives the resulting bound of --max-nodes.
inline constexpr std::uint64_t kPollNodes = 1024;

const char* to_string(RunStatus s);

}  // namespace uts
