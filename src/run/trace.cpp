// Names of phases, steal outcomes, global events and states, as records
// and trace files print them (trace.hpp).
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

const char* outcome_name(std::uint8_t o) {
  switch (o) {
    case TraceEvent::success: return "success";
    case TraceEvent::empty: return "empty";
    case TraceEvent::contended: return "contended";
  }
  return "?";
}

const char* global_name(std::uint8_t g) {
  switch (g) {
    case TraceEvent::request_sent: return "global_request";
    case TraceEvent::answer_received: return "global_answer";
    case TraceEvent::refusal_received: return "global_refusal";
    case TraceEvent::request_answered: return "global_request_answered";
    case TraceEvent::token: return "token";
    case TraceEvent::lifeline_sent: return "lifeline_request";
    case TraceEvent::push_sent: return "lifeline_push_sent";
    case TraceEvent::push_received: return "lifeline_push_received";
    case TraceEvent::wave: return "wave";
  }
  return "global";
}

const char* state_name(std::uint8_t d) {
  if (d == TraceEvent::kSleep) return "sleep";
  return d < kPhases ? to_string(static_cast<Phase>(d)) : "?";
}

}  // namespace uts
