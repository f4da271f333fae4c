// Aggregates over a run's statistics (aggregate.hpp): totals, rates and
// shares over threads and domains, and global stealing summed over ranks.
#include "report/aggregate.hpp"

#include <algorithm>
#include <cstring>

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
    a.tasks += t.tasks;
    for (int p = 0; p < 6; ++p) a.time_phase[p] += t.time_phase[p];
    a.time_total += t.time_total;
    a.requests_sent += t.requests_sent;
    a.requests_answered += t.requests_answered;
    a.requests_refused += t.requests_refused;
    a.requests_withdrawn += t.requests_withdrawn;
    a.request_wait_seconds += t.request_wait_seconds;
    a.local_steal_attempts += t.local_steal_attempts;
    a.local_steals += t.local_steals;
    a.local_steal_nodes += t.local_steal_nodes;
    a.remote_steal_attempts += t.remote_steal_attempts;
    a.remote_steals += t.remote_steals;
    a.remote_steal_nodes += t.remote_steal_nodes;
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

DomainAggregates aggregate_domains(const RunResult& r) {
  DomainAggregates out;
  if (!r.domains) return out;
  const DomainMap& m = *r.domains;
  out.domains.resize(static_cast<std::size_t>(m.count));
  std::uint64_t total = 0;
  for (std::size_t t = 0; t < r.threads.size() && t < m.of_thread.size(); ++t) {
    const ThreadStats& s = r.threads[t];
    DomainStats& d = out.domains[static_cast<std::size_t>(m.of_thread[t])];
    ++d.threads;
    d.nodes += s.nodes;
    d.local_steal_attempts += s.local_steal_attempts;
    d.local_steals += s.local_steals;
    d.local_steal_nodes += s.local_steal_nodes;
    d.remote_steal_attempts += s.remote_steal_attempts;
    d.remote_steals += s.remote_steals;
    d.remote_steal_nodes += s.remote_steal_nodes;
    total += s.nodes;
  }
  if (total == 0 || out.domains.empty()) return out;
  const double n = double(out.domains.size());
  out.share_mean = 1.0 / n;
  double sum_sq = 0;
  for (DomainStats& d : out.domains) {
    d.share = double(d.nodes) / double(total);
    sum_sq += (d.share - out.share_mean) * (d.share - out.share_mean);
  }
  out.share_variance = sum_sq / n;
  out.share_relative_variance = out.share_variance / out.share_mean;
  return out;
}

RankTotals rank_totals(const RunResult& r) {
  RankTotals t;
  for (const RankStats& k : r.ranks) {
    t.requests_sent += k.requests_sent;
    t.steals += k.steals;
    t.nodes_received += k.nodes_received;
    t.lifeline_requests_sent += k.lifeline_requests_sent;
    t.lifeline_requests_received += k.lifeline_requests_received;
    t.push_nodes_sent += k.push_nodes_sent;
    t.pushes_sent += k.pushes_sent;
    t.pushes_received += k.pushes_received;
    t.push_nodes_received += k.push_nodes_received;
    t.tokens_passed += k.tokens_passed;
    t.waves += k.waves;
    t.dormant_seconds += k.dormant_seconds;
  }
  const std::uint64_t messages = 2 * t.requests_sent + t.lifeline_requests_sent + t.pushes_sent;
  if (const std::uint64_t got = t.steals + t.pushes_received; got > 0) t.messages_per_steal = double(messages) / double(got);
  // Ranks of one host read one tick clock: compare its readings. Across
  // hosts, each rank's times count from its exit from the start barrier,
  // which the ranks leave within a message latency of each other.
  bool one_host = !r.ranks.empty() && r.rank_places.size() == r.ranks.size();
  for (const RankPlace& p : r.rank_places) one_host = one_host && std::strcmp(p.host, r.rank_places[0].host) == 0;
  for (const RankStats& k : r.ranks) one_host = one_host && k.last_work_tick > 0 && k.finish_tick > 0;
  if (one_host && r.ranks[0].ticks_per_second > 0) {
    std::uint64_t last_work = 0, known = 0;
    for (const RankStats& k : r.ranks) {
      last_work = std::max(last_work, k.last_work_tick);
      known = std::max(known, k.finish_tick);
    }
    t.termination_latency = (double(known) - double(last_work)) / r.ranks[0].ticks_per_second;
  } else if (!r.ranks.empty()) {
    double last_work = 0, known = 0;
    for (const RankStats& k : r.ranks) {
      last_work = std::max(last_work, k.last_work_seconds);
      known = std::max(known, k.finish_known_seconds);
    }
    t.termination_latency = known - last_work;
  }
  return t;
}

}  // namespace uts
