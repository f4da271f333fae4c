#pragma once

#include <cstdint>

#include "tree/expand.hpp"

namespace uts {

enum class RunStatus { complete, max_nodes, interrupted };

// When a traversal must stop early. Polled every few hundred expansions,
// never per node.
struct StopRule {
  std::uint64_t max_nodes = 0;  // 0: no limit
};

const char* to_string(RunStatus s);

}  // namespace uts
