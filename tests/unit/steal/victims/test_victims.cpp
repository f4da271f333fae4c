// steal/victims/: Manber's round-counter search, the random and linear
// orders, hier's rounds, and the one interface the worker loop calls.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "steal/victims/victims.hpp"

using namespace uts;

TEST_CASE("Manber search: one round visits every other real deque once, then the round advances") {
  for (int threads : {2, 3, 5, 8}) {
    for (int self = 0; self < threads; ++self) {
      CAPTURE(threads);
      CAPTURE(self);
      ManberTree tree(threads);
      VictimSelector s(VictimOrder::tree, self, threads, &tree, 1);
      s.begin_search();
      std::vector<int> visits(static_cast<std::size_t>(threads), 0);
      while (s.round() == 1) {
        const int v = s.next();
        if (s.round() != 1) break;
        REQUIRE(v != self);
        REQUIRE(v >= 0);
        REQUIRE(v < threads);
        ++visits[static_cast<std::size_t>(v)];
        s.missed();
      }
      for (int v = 0; v < threads; ++v) CHECK(visits[static_cast<std::size_t>(v)] == (v == self ? 0 : 1));
    }
  }
}

TEST_CASE("Manber search: a thread behind adopts the newer round and restarts at its own leaf") {
  ManberTree tree(4);
  VictimSelector fast(VictimOrder::tree, 0, 4, &tree, 1);
  VictimSelector slow(VictimOrder::tree, 3, 4, &tree, 2);
  fast.begin_search();
  for (int i = 0; i < 20 && fast.round() < 3; ++i) {
    fast.next();
    fast.missed();
  }
  REQUIRE(fast.round() >= 3);
  slow.begin_search();
  slow.next();
  slow.missed();
  for (int i = 0; i < 4; ++i) {
    slow.next();
    slow.missed();
  }
  CHECK(slow.round() >= fast.round() - 1);
}

TEST_CASE("Manber search starts where work was last found") {
  ManberTree tree(8);
  VictimSelector s(VictimOrder::tree, 0, 8, &tree, 1);
  s.begin_search();
  s.found_work(6);
  s.begin_search();
  CHECK(s.next() == 6);
}

TEST_CASE("random and linear victims never pick the thief itself") {
  for (VictimOrder order : {VictimOrder::random, VictimOrder::linear}) {
    VictimSelector s(order, 2, 5, nullptr, 3);
    s.begin_search();
    std::vector<int> seen(5, 0);
    for (int i = 0; i < 400; ++i) {
      const int v = s.next();
      REQUIRE(v != 2);
      ++seen[static_cast<std::size_t>(v)];
      s.missed();
    }
    for (int v : {0, 1, 3, 4}) CHECK(seen[static_cast<std::size_t>(v)] > 50);
  }
  VictimSelector lone(VictimOrder::random, 0, 1, nullptr, 3);
  CHECK(lone.next() == -1);
}

TEST_CASE("Manber search keeps working across 2^32 rounds (64-bit counters)") {
  for (int threads : {2, 5, 8}) {
    CAPTURE(threads);
    ManberTree tree(threads);
    VictimSelector s(VictimOrder::tree, 0, threads, &tree, 1);
    const std::uint64_t start = (std::uint64_t{1} << 32) - 3;
    s.set_round_for_testing(start);
    s.begin_search();
    std::uint64_t last = s.round();
    for (int rounds = 0; rounds < 8;) {
      std::vector<int> visits(static_cast<std::size_t>(threads), 0);
      const std::uint64_t round = s.round();
      while (s.round() == round) {
        const int v = s.next();
        if (s.round() != round) break;
        REQUIRE(v > 0);
        REQUIRE(v < threads);
        ++visits[static_cast<std::size_t>(v)];
        s.missed();
      }
      for (int v = 1; v < threads; ++v) CHECK(visits[static_cast<std::size_t>(v)] == 1);
      CHECK(s.round() == last + 1);
      last = s.round();
      ++rounds;
    }
    CHECK(s.round() > (std::uint64_t{1} << 32));
    CHECK(s.fallbacks() == 0);
  }
}


TEST_CASE("hier: a local round first, one remote round only when it failed, one remote round per domain at a time") {
  // 6 threads in 2 virtual domains: {0,1,2} and {3,4,5}.
  DomainMap map;
  map.count = 2;
  map.of_thread = {0, 0, 0, 1, 1, 1};
  map.fill_members();
  RemoteRoundSlots slots(2);
  const StealPolicy local{StealAmount::one, 0}, remote{StealAmount::half, 0};
  HierRounds rounds(map, slots, 1, local, remote);
  Rng rng(7);
  std::vector<std::pair<int, StealAmount>> tried;
  auto miss = [&](int v, const StealPolicy& a) {
    tried.emplace_back(v, a.amount);
    return false;
  };
  CHECK_FALSE(rounds.round(miss, rng));
  REQUIRE(tried.size() == 5);
  std::set<int> first_two{tried[0].first, tried[1].first}, last_three{tried[2].first, tried[3].first, tried[4].first};
  CHECK(first_two == std::set<int>{0, 2});  // the own domain first, with the local amount
  CHECK(tried[0].second == StealAmount::one);
  CHECK(last_three == std::set<int>{3, 4, 5});  // then every other domain's thread, the remote amount
  CHECK(tried[4].second == StealAmount::half);
  // Another thread of domain 0 has a remote round in flight: local only.
  REQUIRE(slots.enter(0));
  tried.clear();
  CHECK_FALSE(rounds.round(miss, rng));
  CHECK(tried.size() == 2);
  CHECK_FALSE(rounds.try_hinted(4, false, miss));  // a remote hint waits too
  CHECK(tried.size() == 2);
  slots.leave(0);
  // A success stops the round and frees the domain's remote slot.
  tried.clear();
  auto hit_remote = [&](int v, const StealPolicy& a) {
    tried.emplace_back(v, a.amount);
    return v >= 3;
  };
  CHECK(rounds.round(hit_remote, rng));
  CHECK(tried.size() == 3);
  CHECK(slots.enter(0));
  slots.leave(0);
  CHECK(rounds.try_hinted(2, true, [&](int v, const StealPolicy& a) { return v == 2 && a.amount == StealAmount::one; }));
}

TEST_CASE("VictimSearch: one victim per step, dry after a whole round, alone with one thread") {
  const StealPolicy half{StealAmount::half, 0};
  for (VictimOrder order : {VictimOrder::random, VictimOrder::linear, VictimOrder::tree}) {
    CAPTURE(to_string(order));
    VictimBoard board(4, order, half, half, half, nullptr);
    VictimSearch search(board, 2, 4);
    search.begin();
    int calls = 0;
    auto miss = [&](int v, const StealPolicy&) {
      CHECK(v != 2);
      ++calls;
      return false;
    };
    CHECK(search.step(miss) == VictimSearch::Step::missed);
    CHECK_FALSE(search.dry());
    search.step(miss);
    search.step(miss);
    CHECK(calls == 3);
    CHECK(search.dry());  // three misses: a round's worth
    search.reset_dry();
    CHECK_FALSE(search.dry());
    CHECK(search.step([](int, const StealPolicy&) { return true; }) == VictimSearch::Step::found);
    CHECK(search.selector().fallbacks() == 0);
  }
  VictimBoard one(1, VictimOrder::random, half, half, half, nullptr);
  VictimSearch alone(one, 0, 1);
  alone.begin();
  CHECK(alone.step([](int, const StealPolicy&) { return true; }) == VictimSearch::Step::alone);
  CHECK(alone.dry());
}

TEST_CASE("VictimSearch under hier: a step is a whole round, the hint keeps hier's amounts") {
  DomainMap map;
  map.count = 2;
  map.of_thread = {0, 0, 1, 1};
  map.fill_members();
  const StealPolicy half{StealAmount::half, 0}, one{StealAmount::one, 0}, chunk{StealAmount::chunk, 4};
  VictimBoard board(4, VictimOrder::hier, half, one, chunk, &map);
  VictimSearch search(board, 0, 4);
  search.begin();
  int calls = 0;
  CHECK(search.step([&](int, const StealPolicy&) {
    ++calls;
    return false;
  }) == VictimSearch::Step::missed);
  CHECK(calls == 3);  // thread 1, then 2 and 3
  CHECK(search.dry());
  CHECK(search.try_hinted(1, [](int v, const StealPolicy& a) { return v == 1 && a == StealPolicy{StealAmount::one, 0}; }));
  CHECK(search.try_hinted(3, [](int v, const StealPolicy& a) { return v == 3 && a == StealPolicy{StealAmount::chunk, 4}; }));
}
