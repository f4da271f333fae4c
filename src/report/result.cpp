#include "report/result.hpp"

namespace uts {

Aggregates aggregate(const RunResult& r) {
  Aggregates a;
  std::uint64_t total_nodes = 0;
  for (const ThreadStats& t : r.threads) {
    a.steal_attempts += t.steal_attempts;
    a.steals += t.steals;
    a.nodes_stolen += t.nodes_stolen;
    a.deques_examined += t.deques_examined;
    a.shares += t.shares;
    a.reclaims += t.reclaims;
    a.nodes_shared += t.nodes_shared;
    a.nodes_reclaimed += t.nodes_reclaimed;
    a.sleeps += t.sleeps;
    a.idle_seconds += t.idle_seconds;
    a.requests_sent += t.requests_sent;
    a.requests_answered += t.requests_answered;
    a.requests_refused += t.requests_refused;
    a.requests_withdrawn += t.requests_withdrawn;
    a.request_wait_seconds += t.request_wait_seconds;
    total_nodes += t.nodes;
  }
  if (a.steal_attempts) a.steal_success_rate = double(a.steals) / double(a.steal_attempts);
  if (a.steals) a.nodes_per_steal = double(a.nodes_stolen) / double(a.steals);
  if (a.steal_attempts) a.deques_per_attempt = double(a.deques_examined) / double(a.steal_attempts);
  if (a.steals) a.deques_per_steal = double(a.deques_examined) / double(a.steals);
  if (a.requests_sent) a.mean_request_wait_seconds = a.request_wait_seconds / double(a.requests_sent);
  const auto p = r.threads.size();
  if (p && total_nodes) {
    a.share_mean = 1.0 / double(p);
    double sum_sq = 0;
    for (const ThreadStats& t : r.threads) {
      const double d = double(t.nodes) / double(total_nodes) - a.share_mean;
      sum_sq += d * d;
    }
    a.share_variance = sum_sq / double(p);
    a.share_relative_variance = a.share_variance / a.share_mean;
  }
  return a;
}

}  // namespace uts
