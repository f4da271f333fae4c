#include "run/trace.hpp"

namespace uts {

const char* to_string(Phase p) {
  switch (p) {
    case Phase::work: return "work";
    case Phase::search: return "search";
    case Phase::claim: return "claim";
    case Phase::idle: return "idle";
    case Phase::termination: return "termination";
    case Phase::agent: return "agent";
  }
  return "?";
}

}  // namespace uts
