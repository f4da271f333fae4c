// workload/: serial items and their ledger, where producers sit, and small
// pool runs whose every item is accounted for.
#include <doctest/doctest.h>

#include <numeric>
#include <vector>

#include "workload/items.hpp"
#include "workload/pool.hpp"

using namespace uts;

TEST_CASE("items: the serial survives, a torn item is recognised") {
  for (std::uint64_t s : {std::uint64_t{0}, std::uint64_t{7}, (std::uint64_t{1} << 40) + 3}) {
    const Node n = make_item(s);
    CHECK(serial_of(n) == s);
    Node torn = n;
    torn.id[0] ^= 1;
    CHECK(serial_of(torn) == kCorruptItem);
  }
}

TEST_CASE("ledger: lost, duplicated, corrupt and stray items are told apart") {
  Ledger l(5);
  l.take(make_item(0));
  l.take(make_item(1));
  l.take(make_item(1));
  l.take(make_item(3));
  l.take(make_item(9));  // nobody created serial 9
  Node torn = make_item(4);
  torn.id[4] ^= 1;
  l.take(torn);
  CHECK(l.lost() == 2);  // 2 and 4
  CHECK(l.lost(2) == 0);
  CHECK(l.duplicated() == 1);
  CHECK(l.corrupted() == 1);
  CHECK(l.strays() == 1);
}

TEST_CASE("producers: contiguous from thread 0, or spread evenly around the ring") {
  CHECK(producer_map(8, 3, Arrangement::contiguous) == std::vector<bool>{1, 1, 1, 0, 0, 0, 0, 0});
  CHECK(producer_map(8, 2, Arrangement::spread) == std::vector<bool>{1, 0, 0, 0, 1, 0, 0, 0});
  const auto all = producer_map(5, 5, Arrangement::spread);
  CHECK(std::accumulate(all.begin(), all.end(), 0) == 5);
}

TEST_CASE("pool runs: items conserved in both models, every victim order, oversubscribed") {
  for (VictimOrder v : {VictimOrder::random, VictimOrder::linear, VictimOrder::tree}) {
    for (int producers : {0, 2}) {
      PoolSettings s;
      s.threads = 6;
      s.ops = 4000;
      s.fill = 50;
      s.trials = 2;
      s.victim = v;
      if (producers) s.producers = producers;
      CAPTURE(to_string(v));
      CAPTURE(producers);
      const PoolResult r = run_pool(s);
      REQUIRE(r.trials.size() == 2);
      CHECK(r.conserved());
      for (const PoolTrial& t : r.trials) {
        CHECK(t.lost == 0);
        CHECK(t.duplicated == 0);
        CHECK(t.initial + t.added - t.removed == t.remaining);
        CHECK(t.added + t.removed + t.aborted == s.ops);  // every operation did one of the three
      }
    }
  }
}
