// The rank agent's phases and the transitions between them: the one state
// machine of agent.cpp (README.md beside this file draws it). Pure, so the
// unit tests check the table itself.
#pragma once

#include <string_view>

namespace uts::distrib {

enum class AgentPhase {
  starting,  // made, not yet polled: the run has not started (no dormant time counts)
  working,   // the run is on; thread 0 may ask other ranks for work when dry
  dormant,   // --rank-steal lifeline: dry, lifelines armed; sends nothing of its own until nodes arrive
  finished,  // DONE sent or received: the job is over; thread 0 waits for its rank's threads, then closes
  closing,   // in close(): receives everything, refuses every request, runs the closing waves
  released,  // the closing waves concluded (RELEASE from the parent, or rank 0): waits for its own sends
  left,      // close() returned: every message of this rank was received and its sends completed
};

constexpr std::string_view to_string(AgentPhase p) {
  switch (p) {
    case AgentPhase::starting: return "starting";
    case AgentPhase::working: return "working";
    case AgentPhase::dormant: return "dormant";
    case AgentPhase::finished: return "finished";
    case AgentPhase::closing: return "closing";
    case AgentPhase::released: return "released";
    case AgentPhase::left: return "left";
  }
  return "?";
}

// The run is on: the phases in which the agent steals, counts for
// --max-nodes and takes termination steps.
constexpr bool running(AgentPhase p) { return p == AgentPhase::working || p == AgentPhase::dormant; }
// close() has begun: the agent sends only answers (refusals) and closing's
// own messages.
constexpr bool closing(AgentPhase p) { return p == AgentPhase::closing || p == AgentPhase::released || p == AgentPhase::left; }

// Every transition the agent may take; any other is a bug (RankAgent::enter
// ends the job). The first poll starts the run; nodes arriving, or thread 0
// working, wake a dormant rank; DONE ends a running rank's run; close() may
// come in any phase before it (a stopped run closes without DONE, and a
// rank whose run ended at once may never have been polled).
constexpr bool allowed(AgentPhase from, AgentPhase to) {
  switch (from) {
    case AgentPhase::starting: return to == AgentPhase::working || to == AgentPhase::dormant || to == AgentPhase::closing;
    case AgentPhase::working: return to == AgentPhase::dormant || to == AgentPhase::finished || to == AgentPhase::closing;
    case AgentPhase::dormant: return to == AgentPhase::working || to == AgentPhase::finished || to == AgentPhase::closing;
    case AgentPhase::finished: return to == AgentPhase::closing;
    case AgentPhase::closing: return to == AgentPhase::released;
    case AgentPhase::released: return to == AgentPhase::left;
    case AgentPhase::left: return false;
  }
  return false;
}

}  // namespace uts::distrib
