// How a run ended, by name, as records print it (status.hpp).
#include "run/status.hpp"

namespace uts {

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::complete: return "complete";
    case RunStatus::max_nodes: return "max-nodes";
    case RunStatus::interrupted: return "interrupted";
  }
  return "?";
}

}  // namespace uts
