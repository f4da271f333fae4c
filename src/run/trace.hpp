// A run's time breakdown and event trace, as the engine records them
// (docs/trace.md). Plain data: trace events are gathered as bytes across MPI
// ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace uts {

// Where a thread's time goes. The phases partition its time from the run's
// start to the thread's end (engine/time_split.hpp).
enum class Phase : std::uint8_t { work, search, claim, idle, termination, agent };
inline constexpr int kPhases = 6;
const char* to_string(Phase p);

// One trace event. Times are ticks (base/tick.hpp); the report turns them
// into microseconds since the run's start.
struct TraceEvent {
  enum Kind : std::uint8_t {
    state,   // t0: from now on the thread is in phase `detail` (sleep: detail = kSleep)
    steal,   // t0..t1: one steal attempt on thread `peer` (global index); detail: outcome; count: nodes
    wake,    // t0: woke a sleeper (peer: the hint, or -1)
    global,  // t0: MPI (detail: GlobalKind), peer: the other rank, count: nodes
  };
  static constexpr std::uint8_t kSleep = 100;  // a state detail: asleep (phase idle)
  enum Outcome : std::uint8_t { success, empty, contended };
  enum GlobalKind : std::uint8_t {
    request_sent, answer_received, refusal_received, request_answered, token,
    lifeline_sent,   // a lifeline request to a buddy (peer)
    push_sent,       // nodes pushed to a lifeline thief (peer)
    push_received,   // nodes pushed by a buddy (peer)
    wave,            // termination wave: a WAVE sent down to a child or a REPORT up to the parent (peer)
  };
  std::uint64_t t0 = 0, t1 = 0;
  std::int32_t peer = -1;
  std::uint32_t count = 0;
  Kind kind = state;
  std::uint8_t detail = 0;
};

// A counter to read per thread (topology/counters.hpp): its name and perf event.
struct CounterRequest {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t config = 0;
};

// Counter values per thread (rank-major); -1: the thread could not read it.
struct CounterResults {
  std::vector<std::string> names;
  std::vector<std::vector<std::int64_t>> per_thread;
  bool scaled = false;      // the kernel multiplexed some counter (values scaled)
  std::string unavailable;  // the counters asked for that this machine does not allow, and why
  bool asked = false;       // --counters was given
};

// Names the trace files use (report/trace_json.cpp, trace_otf2.cpp).
const char* outcome_name(std::uint8_t outcome);  // success | empty | contended
const char* global_name(std::uint8_t kind);      // global_request | ... | token | lifeline_request | ... | wave
const char* state_name(std::uint8_t detail);     // a phase's name, or sleep

struct ThreadTrace {
  std::vector<TraceEvent> events;  // the first N of the thread's events
  std::uint64_t dropped = 0;       // events past N, not kept
};

// What the report needs to place ticks in time, per rank.
struct TickCalibration {
  std::uint64_t start_tick = 0;  // the run's start
  double ticks_per_second = 1e9;
};

}  // namespace uts
