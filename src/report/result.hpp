// Everything a run reports, independent of the output format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parallel/policy.hpp"
#include "sha1/batch.hpp"
#include "topology/domains.hpp"
#include "traversal/outcome.hpp"
#include "tree/params.hpp"

namespace uts {

struct ThreadStats {
  std::uint64_t nodes = 0;            // nodes this thread generated
  std::uint64_t steal_attempts = 0;   // claims tried (CAS issued) or victims probed
  std::uint64_t steals = 0;           // successful claims
  std::uint64_t nodes_stolen = 0;     // nodes moved in by successful claims
  std::uint64_t deques_examined = 0;  // victim deques looked at while searching
  std::uint64_t shares = 0;           // times this owner made private nodes shared
  std::uint64_t nodes_shared = 0;     // nodes those shares made stealable
  std::uint64_t reclaims = 0;         // times this owner took its own shared nodes back
  std::uint64_t nodes_reclaimed = 0;  // nodes those reclaims took back
  std::uint64_t sleeps = 0;           // times this thread slept (futex) while idle
  double idle_seconds = 0;            // time spent without work
  // --protocol request only, as a thief:
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

// One MPI rank's global stealing (distrib/mpi_agent.cpp), counted by its
// agent (thread 0). As a thief: requests sent, answered with nodes, refused.
// As a victim: requests received, answered, refused.
struct RankStats {
  std::uint64_t requests_sent = 0, steals = 0, refusals = 0, nodes_received = 0;
  std::uint64_t requests_received = 0, requests_answered = 0, requests_refused = 0, nodes_sent = 0;
  std::uint64_t tokens_passed = 0;  // termination tokens this rank passed on (rank 0: rounds started)
  double request_wait_seconds = 0;  // sum over requests of the time to their answer
  int threads = 0;
};

struct ExpectedResults {
  std::optional<std::uint64_t> size;
  std::optional<std::uint64_t> depth;
  std::optional<std::uint64_t> leaves;
  bool any() const { return size || depth || leaves; }
};

// The UTS reference's parallel flags that have no counterpart here: accepted
// so its scripts run, and reported as not applicable (-v, JSON).
struct ReferenceFlags {
  std::optional<std::int64_t> barrier_interval;  // -i N
  std::optional<std::int64_t> poll_interval;     // -I N
  std::optional<std::int64_t> debug_level;       // -x N
};

struct EngineSettings {
  bool sequential = false;
  int threads = 1;
  bool stealing = true;  // -s 0: every thread works only on what it starts with
  sha1::Path sha1 = sha1::Path::automatic;  // --sha1; resolved for this CPU before the run
  ReferenceFlags reference;
  Protocol protocol = Protocol::split;
  StealPolicy steal;
  VictimOrder victim = VictimOrder::random;
  std::uint32_t poll_interval = 1;  // --protocol request: expansions between request checks (-I)
  // Locality (spec section 6).
  DomainSpec domains;                // --domains
  bool domains_given = false;        // --domains on the command line or in a file
  StealPolicy steal_local{StealAmount::one, 0};    // --victim hier: inside the domain
  StealPolicy steal_remote{StealAmount::half, 0};  // --victim hier: across domains
  std::uint64_t remote_delay_ns = 0;               // --remote-delay
  bool uses_domains() const { return victim == VictimOrder::hier || domains_given || remote_delay_ns > 0; }
  InitSpread init = InitSpread::root;
  // MPI (distrib/): this process's rank and the job's rank count (1 and 0
  // without mpirun); the most nodes per answer to another rank; expansions
  // between thread 0's message checks.
  bool mpi = false;  // started under mpirun (even with one rank)
  int ranks = 1;
  int rank = 0;
  std::uint32_t rank_chunk = 1024;
  std::uint32_t rank_poll = 256;
};

struct RunResult {
  Counts counts;
  RunStatus status = RunStatus::complete;
  double seconds = 0;
  std::uint64_t truncations = 0;
  std::vector<ThreadStats> threads;  // empty for the sequential engine
  std::optional<DomainMap> domains;  // when the run used domains
  std::vector<RankStats> ranks;      // MPI runs: one per rank (threads above: rank-major)
};

// Aggregates over the per-thread statistics (spec section 4).
struct Aggregates {
  std::uint64_t steal_attempts = 0, steals = 0, nodes_stolen = 0, deques_examined = 0;
  std::uint64_t shares = 0, reclaims = 0, nodes_shared = 0, nodes_reclaimed = 0, sleeps = 0;
  double steal_success_rate = 0;       // steals / attempts
  double nodes_per_steal = 0;          // nodes_stolen / steals
  double deques_per_attempt = 0;       // deques_examined / steal_attempts (0 if none)
  double deques_per_steal = 0;         // deques_examined / steals (0 if none)
  double share_mean = 0;               // mean fraction of the nodes per thread
  double share_variance = 0;           // population variance of that fraction
  double share_relative_variance = 0;  // variance / mean
  double idle_seconds = 0;
  std::uint64_t requests_sent = 0, requests_answered = 0, requests_refused = 0, requests_withdrawn = 0;
  double request_wait_seconds = 0;
  double mean_request_wait_seconds = 0;  // request_wait_seconds / requests_sent (0 if none)
  std::uint64_t local_steal_attempts = 0, local_steals = 0, local_steal_nodes = 0;
  std::uint64_t remote_steal_attempts = 0, remote_steals = 0, remote_steal_nodes = 0;
};

// One domain's totals (runs with domains).
struct DomainStats {
  int threads = 0;
  std::uint64_t nodes = 0;
  double share = 0;  // fraction of all nodes
  std::uint64_t local_steal_attempts = 0, local_steals = 0, local_steal_nodes = 0;
  std::uint64_t remote_steal_attempts = 0, remote_steals = 0, remote_steal_nodes = 0;
};
struct DomainAggregates {
  std::vector<DomainStats> domains;
  double share_mean = 0, share_variance = 0, share_relative_variance = 0;
};
DomainAggregates aggregate_domains(const RunResult& r);

Aggregates aggregate(const RunResult& r);

}  // namespace uts
