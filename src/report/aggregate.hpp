// Aggregates over a run's per-thread statistics (docs/output.md, section 3):
// totals, rates, each thread's and each domain's share of the nodes.
#pragma once

#include <cstdint>
#include <vector>

#include "run/result.hpp"

namespace uts {

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
  std::uint64_t tasks = 0;  // a foreign scheduler's tasks, all threads
  std::uint64_t requests_sent = 0, requests_answered = 0, requests_refused = 0, requests_withdrawn = 0;
  double request_wait_seconds = 0;
  double mean_request_wait_seconds = 0;  // request_wait_seconds / requests_sent (0 if none)
  std::uint64_t local_steal_attempts = 0, local_steals = 0, local_steal_nodes = 0;
  std::uint64_t remote_steal_attempts = 0, remote_steals = 0, remote_steal_nodes = 0;
  double time_phase[6] = {0, 0, 0, 0, 0, 0};  // summed over threads (run/trace.hpp Phase)
  double time_total = 0;
};
Aggregates aggregate(const RunResult& r);

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

// The ranks' global stealing summed (MPI runs).
struct RankTotals {
  std::uint64_t requests_sent = 0, steals = 0, nodes_received = 0;
  std::uint64_t lifeline_requests_sent = 0, lifeline_requests_received = 0, pushes_sent = 0, pushes_received = 0;
  std::uint64_t push_nodes_sent = 0, push_nodes_received = 0;
  std::uint64_t tokens_passed = 0, waves = 0;
  double dormant_seconds = 0;
  // Messages of global stealing (requests, answers, lifeline requests,
  // pushes) per success (an answer with nodes or a push); 0 without one.
  double messages_per_steal = 0;
  // The latest time any rank learned the job was over minus the latest end
  // of any thread's work (seconds).
  double termination_latency = 0;
};
RankTotals rank_totals(const RunResult& r);

}  // namespace uts
