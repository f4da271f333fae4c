// Per-thread and per-rank statistics of a run, as counted by the engine and
// its protocols. Plain data (gathered as bytes across MPI ranks).
#pragma once

#include <cstdint>

#include "base/process_memory.hpp"

namespace uts {

// The protocol-specific counters below; which of them a protocol keeps is
// one of its traits (steal/protocol.hpp). The others are reported as not
// applicable, never as a zero that would pass for a real value.
enum ProtocolCounters : unsigned {
  kShareCounters = 1u << 0,    // shares, nodes_shared
  kReclaimCounters = 1u << 1,  // reclaims, nodes_reclaimed
  kRequestCounters = 1u << 2,  // requests_* and request_wait_seconds
};

struct ThreadStats {
  std::uint64_t nodes = 0;            // nodes this thread generated
  std::uint64_t steal_attempts = 0;   // claims tried (CAS issued) or victims probed
  std::uint64_t steals = 0;           // successful claims
  std::uint64_t nodes_stolen = 0;     // nodes moved in by successful claims
  std::uint64_t deques_examined = 0;  // victim deques looked at while searching
  std::uint64_t sleeps = 0;           // times this thread slept (futex) while idle
  double idle_seconds = 0;            // time spent without work (search + claim + idle + termination)
  std::uint64_t tasks = 0;            // a foreign scheduler's tasks this thread created (docs/schedulers.md)
  // Where the thread's time went (run/trace.hpp Phase, docs/trace.md): work,
  // search, claim, idle, termination, agent; they add up to time_total.
  double time_phase[6] = {0, 0, 0, 0, 0, 0};
  double time_total = 0;
  // kShareCounters: times this owner made nodes stealable, and how many.
  std::uint64_t shares = 0;
  std::uint64_t nodes_shared = 0;
  // kReclaimCounters: times this owner took its own shared nodes back, and how many.
  std::uint64_t reclaims = 0;
  std::uint64_t nodes_reclaimed = 0;
  // kRequestCounters, as a thief:
  std::uint64_t requests_sent = 0;      // requests posted into a victim's cell
  std::uint64_t requests_answered = 0;  // answered with nodes
  std::uint64_t requests_refused = 0;   // answered with a refusal
  std::uint64_t requests_withdrawn = 0; // taken back unanswered (the victim did not poll in time)
  double request_wait_seconds = 0;      // time from posting to answer, refusal or withdrawal
  // Steal attempts, successes and nodes by locality (filled when the run
  // has domains: --victim hier, --domains or --remote-delay).
  std::uint64_t local_steal_attempts = 0, local_steals = 0, local_steal_nodes = 0;
  std::uint64_t remote_steal_attempts = 0, remote_steals = 0, remote_steal_nodes = 0;
};

// One MPI rank's global stealing (distrib/rank_steal.cpp), counted by its
// agent (thread 0). As a thief: requests sent, answered with nodes, refused.
// As a victim: requests received, answered, refused.
struct RankStats {
  std::uint64_t requests_sent = 0, steals = 0, refusals = 0, nodes_received = 0;
  std::uint64_t requests_received = 0, requests_answered = 0, requests_refused = 0, nodes_sent = 0;
  std::uint64_t tokens_passed = 0;  // termination tokens this rank passed on (rank 0: rounds started)
  double request_wait_seconds = 0;  // sum over requests of the time to their answer
  // --rank-steal lifeline: lifeline requests this rank sent (as a thief) and
  // received (recorded, as a buddy); pushes of nodes down its lifelines sent
  // and received, with their nodes; time it spent dormant (dry, its
  // lifelines armed, sending nothing).
  std::uint64_t lifeline_requests_sent = 0, lifeline_requests_received = 0;
  std::uint64_t pushes_sent = 0, pushes_received = 0, push_nodes_sent = 0, push_nodes_received = 0;
  double dormant_seconds = 0;
  // --rank-termination tree: rank 0, waves started; other ranks, reports sent up.
  std::uint64_t waves = 0;
  // Seconds from this rank's exit from the start barrier: the end of the
  // last work of any of its threads, and when thread 0 learned that the job
  // was over. The same three moments on the rank's tick clock, and its rate:
  // ranks of one host share the clock (report/aggregate.cpp's termination
  // latency uses it there).
  double last_work_seconds = 0, finish_known_seconds = 0;
  std::uint64_t start_tick = 0, last_work_tick = 0, finish_tick = 0;
  // When nodes from another rank (an answer or a push) first arrived, on the
  // tick clock (0: none ever arrived), and in seconds from the rank's start
  // (the ramp-up: how long a rank that starts empty waits for work).
  std::uint64_t first_nodes_tick = 0;
  double first_nodes_seconds = 0;
  // Its agent's close() after the job's end (every message received,
  // distrib/closing.hpp): not in the run's time.
  double closing_seconds = 0;
  double ticks_per_second = 0;
  int threads = 0;
  ProcessMemory memory;  // the rank's own resident memory (base/process_memory.hpp)
};

}  // namespace uts
