// What one run is asked to do: the engine's settings as the command line
// resolved them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/locality.hpp"
#include "run/placement.hpp"
#include "run/trace.hpp"
#include "run/policy.hpp"
#include "sha1/batch.hpp"

namespace uts {

// The UTS reference's parallel flags that have no counterpart here: accepted
// so its scripts run, and reported as not applicable (-v, JSON).
struct ReferenceFlags {
  std::optional<std::int64_t> barrier_interval;  // -i N
  std::optional<std::int64_t> poll_interval;     // -I N
  std::optional<std::int64_t> debug_level;       // -x N
};

// Locality (docs/engine.md, section 6).
struct LocalitySettings {
  DomainSpec domains;                              // --domains
  bool domains_given = false;                      // --domains on the command line or in a file
  StealPolicy steal_local{StealAmount::one, 0};    // --victim hier: inside the domain
  StealPolicy steal_remote{StealAmount::half, 0};  // --victim hier: across domains
  std::uint64_t remote_delay_ns = 0;               // --remote-delay
};

// MPI (distrib/): this process's rank and the job's rank count (1 and 0
// without mpirun); the most nodes per answer to another rank; expansions
// between thread 0's message checks.
struct RankSettings {
  bool under_mpi = false;  // started under mpirun (even with one rank)
  int count = 1;
  int rank = 0;
  std::uint32_t chunk = 1024;  // --rank-chunk
  RankSplit split = RankSplit::levels;  // --rank-split
  std::uint32_t poll = 256;    // --rank-poll: the shortest interval between busy polls
  std::uint32_t poll_max = 0;  // --rank-poll-max: the longest (at most poll: a fixed interval)
  RankSteal steal = RankSteal::lifeline;               // --rank-steal
  std::uint32_t w = 1;                                 // --rank-w: random attempts before the lifelines
  std::uint32_t l = 4;                                 // --rank-l: the lifeline graph's base
  RankTermination termination = RankTermination::tree;  // --rank-termination
  double model_rate = 0;  // uts-smpi --model-rate: modelled nodes/s per rank (0: computation timed by SMPI)
};

// Which scheduler runs the traversal (docs/schedulers.md): `uts` is the
// engine's own worker loop on split deques (the protocol options apply to
// it alone); the others hand the tree to a runtime's own task scheduler.
enum class SchedulerForm {
  literature,  // one task per child and a wait, as BOTS and libfork's suite write UTS
  tuned,       // a task expands a local stack through the batched expander and hands part on
};
struct SchedulerSettings {
  std::string name = "uts";                   // --scheduler: a name in schedulers/registry.cpp
  SchedulerForm form = SchedulerForm::tuned;  // --scheduler-form
  // --task-grain: tuned form, the nodes a task expands between hand-offs of
  // part of its stack to a new task; 0: the scheduler's default
  // (SchedulerEntry::default_grain). Resolved before the run.
  std::uint32_t grain = 0;
  bool foreign() const { return name != "uts"; }
};

struct EngineSettings {
  bool sequential = false;
  SchedulerSettings scheduler;  // not used by the sequential baseline
  int threads = 1;
  bool stealing = true;                     // -s 0: every thread works only on what it starts with
  sha1::Path sha1 = sha1::Path::automatic;  // --sha1; resolved for this CPU before the run
  // --sha1 auto: the kernels' rates as timed at start-up (sha1::calibrate(),
  // blocks/s; 0 where not timed). Absent when a path was named.
  std::optional<sha1::Calibration> sha1_calibration;
  std::string protocol;                     // --protocol: a name in steal/registry.hpp; empty: its default
  StealPolicy steal;
  VictimOrder victim = VictimOrder::random;
  InitSpread init = InitSpread::root;
  std::uint32_t poll_interval = 1;  // protocols that poll for requests: expansions between checks (-I)
  LocalitySettings locality;
  BindSettings bind;  // --bind, --smt
  std::size_t trace_events = 0;  // --trace: events kept per thread (--trace-events); 0: no trace
  std::vector<CounterRequest> counters;  // --counters: those this machine allows (app/ probes them)
  std::vector<std::string> counters_asked;  // --counters as given (MPI ranks agree on a common subset)
  RankSettings ranks;
  ReferenceFlags reference;

  bool uses_domains() const {
    return victim == VictimOrder::hier || locality.domains_given || locality.remote_delay_ns > 0;
  }
  // Processing elements: ranks x threads (docs/engine.md, section 7).
  int pes() const { return sequential ? 1 : threads * ranks.count; }
};

}  // namespace uts
