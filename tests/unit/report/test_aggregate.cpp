// report/aggregate.hpp: totals, rates and shares over threads, domains and ranks.
#include <doctest/doctest.h>

#include "report/aggregate.hpp"

using namespace uts;

namespace {

RunResult three_threads() {
  RunResult r;
  ThreadStats a, b, c;
  a.nodes = 50;
  b.nodes = 30;
  c.nodes = 20;
  a.steal_attempts = 4;
  a.steals = 2;
  a.nodes_stolen = 10;
  a.deques_examined = 8;
  b.steal_attempts = 6;
  b.steals = 3;
  b.nodes_stolen = 5;
  b.deques_examined = 12;
  a.local_steals = 1;
  a.local_steal_nodes = 4;
  a.remote_steals = 1;
  a.remote_steal_nodes = 6;
  b.remote_steals = 3;
  b.remote_steal_nodes = 5;
  a.requests_sent = 4;
  a.request_wait_seconds = 2.0;
  r.threads = {a, b, c};
  r.counts.nodes = 100;
  return r;
}

}  // namespace

TEST_CASE("aggregates: totals, rates, and the threads' shares of the nodes") {
  const Aggregates a = aggregate(three_threads());
  CHECK(a.steal_attempts == 10);
  CHECK(a.steals == 5);
  CHECK(a.nodes_stolen == 15);
  CHECK(a.steal_success_rate == doctest::Approx(0.5));
  CHECK(a.nodes_per_steal == doctest::Approx(3.0));
  CHECK(a.deques_per_attempt == doctest::Approx(2.0));
  CHECK(a.deques_per_steal == doctest::Approx(4.0));
  CHECK(a.share_mean == doctest::Approx(1.0 / 3));
  // shares 0.5, 0.3, 0.2 around 1/3: population variance
  const double m = 1.0 / 3, var = ((0.5 - m) * (0.5 - m) + (0.3 - m) * (0.3 - m) + (0.2 - m) * (0.2 - m)) / 3;
  CHECK(a.share_variance == doctest::Approx(var));
  CHECK(a.share_relative_variance == doctest::Approx(var / m));
  CHECK(a.mean_request_wait_seconds == doctest::Approx(0.5));
  const Aggregates none = aggregate(RunResult{});
  CHECK(none.steal_success_rate == 0);
  CHECK(none.share_mean == 0);
}

TEST_CASE("domain aggregates: per-domain totals and shares; none without domains") {
  RunResult r = three_threads();
  CHECK(aggregate_domains(r).domains.empty());
  DomainMap m;
  m.count = 2;
  m.of_thread = {0, 1, 1};
  m.fill_members();
  r.domains = m;
  const DomainAggregates d = aggregate_domains(r);
  REQUIRE(d.domains.size() == 2);
  CHECK(d.domains[0].threads == 1);
  CHECK(d.domains[1].threads == 2);
  CHECK(d.domains[0].nodes == 50);
  CHECK(d.domains[1].nodes == 50);
  CHECK(d.domains[0].share == doctest::Approx(0.5));
  CHECK(d.domains[0].local_steals == 1);
  CHECK(d.domains[0].remote_steal_nodes == 6);
  CHECK(d.domains[1].remote_steals == 3);
  CHECK(d.share_mean == doctest::Approx(0.5));
  CHECK(d.share_variance == doctest::Approx(0.0));
}

TEST_CASE("rank totals: the ranks' global stealing summed") {
  RunResult r;
  RankStats a, b;
  a.requests_sent = 5;
  a.steals = 3;
  a.nodes_received = 40;
  b.requests_sent = 2;
  b.steals = 2;
  b.nodes_received = 9;
  r.ranks = {a, b};
  const RankTotals t = rank_totals(r);
  CHECK(t.requests_sent == 7);
  CHECK(t.steals == 5);
  CHECK(t.nodes_received == 49);
}
