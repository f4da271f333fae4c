// The Chase-Lev deque (chase_lev.hpp) and its protocol.
#include <doctest/doctest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "base/cpu_relax.hpp"
#include "steal/protocols/chaselev/chaselev_protocol.hpp"
#include "support/protocol_stress.hpp"

using namespace uts;
using namespace uts::test;

TEST_CASE("Chase-Lev: owner LIFO, thieves take the oldest, growth keeps every node") {
  ChaseLevDeque d(2);
  for (std::uint32_t i = 0; i < 10; ++i) d.push(tree_node(i, 1000));
  CHECK(d.capacity() >= 10);
  Node n;
  REQUIRE(d.steal(n) == ChaseLevDeque::Steal::won);
  CHECK(n.id[0] == 0);
  REQUIRE(d.pop(n));
  CHECK(n.id[0] == 9);
  for (std::uint32_t i = 8; i >= 1; --i) {  // every node, where growth put it
    REQUIRE(d.pop(n));
    CHECK(n.id[0] == i);
  }
  CHECK_FALSE(d.pop(n));
  CHECK(d.steal(n) == ChaseLevDeque::Steal::empty);
  CHECK(d.size_estimate() == 0);
}

TEST_CASE("Chase-Lev: pusher/commit: room for all n, growth, one publish") {
  ChaseLevDeque d(2);
  d.push(tree_node(100, 1000));
  auto out = d.pusher(7);
  for (std::uint32_t i = 0; i < 7; ++i) out.push(tree_node(i, 1000));
  CHECK(d.size_estimate() == 1);  // not published before commit
  d.commit(out);
  CHECK(d.size_estimate() == 8);
  Node n;
  REQUIRE(d.steal(n) == ChaseLevDeque::Steal::won);
  CHECK(n.id[0] == 100);
  for (int i = 6; i >= 0; --i) {
    REQUIRE(d.pop(n));
    CHECK(n.id[0] == static_cast<std::uint32_t>(i));
  }
  CHECK_FALSE(d.pop(n));
}

TEST_CASE("Chase-Lev: the last node goes to exactly one of owner and thief") {
  ChaseLevDeque d(4);
  const int rounds = 20000;
  std::atomic<int> round{-1}, thief_ready{-1}, thief_done{0};
  std::mt19937 rng_owner(1), rng_thief(2);
  std::uniform_int_distribution<unsigned> jitter(0, 100);
  std::vector<std::uint8_t> owner_got(rounds), thief_got(rounds);
  std::thread thief([&] {
    for (int r = 0; r < rounds; ++r) {
      while (round.load(std::memory_order_acquire) < r) std::this_thread::yield();
      thief_ready.store(r, std::memory_order_release);
      for (unsigned i = jitter(rng_thief); i > 0; --i) cpu_relax();
      Node n;
      if (d.steal(n) == ChaseLevDeque::Steal::won)
        thief_got[static_cast<std::size_t>(r)] = n.id[0] == static_cast<std::uint32_t>(r) ? 1 : 2;
      thief_done.store(r + 1, std::memory_order_release);
    }
  });
  for (int r = 0; r < rounds; ++r) {
    d.push(tree_node(static_cast<std::uint32_t>(r), 1u << 30));
    round.store(r, std::memory_order_release);
    // Odd rounds: wait until the thief is about to steal, then race it after
    // a random short delay (head on when the two run on separate cores).
    // Even rounds: pop at once, so the owner wins some rounds whatever the
    // scheduler does.
    if (r % 2) {
      for (int spin = 0; thief_ready.load(std::memory_order_acquire) < r; ++spin)
        if (spin > 1000) std::this_thread::yield();
      for (unsigned i = jitter(rng_owner); i > 0; --i) cpu_relax();
    }
    Node n;
    if (d.pop(n)) owner_got[static_cast<std::size_t>(r)] = n.id[0] == static_cast<std::uint32_t>(r) ? 1 : 2;
    while (thief_done.load(std::memory_order_acquire) < r + 1) std::this_thread::yield();
  }
  thief.join();
  int both = 0, neither = 0, wrong = 0, stolen = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto o = owner_got[static_cast<std::size_t>(r)], t = thief_got[static_cast<std::size_t>(r)];
    both += o && t;
    neither += !o && !t;
    wrong += o == 2 || t == 2;
    stolen += t == 1;
  }
  CHECK(both == 0);
  CHECK(neither == 0);
  CHECK(wrong == 0);
  INFO("thief won ", stolen, " of ", rounds);
  CHECK(stolen > 0);  // the thief won some races (or the test proves nothing)
  CHECK(stolen < rounds);
}

TEST_CASE("Chase-Lev: give_shallowest takes the oldest nodes, one steal each") {
  ChaseLevProtocol::Context ctx(1, EngineSettings{});
  ChaseLevProtocol::Deque d(ctx, 0);
  for (std::uint32_t i = 0; i < 6; ++i) d.push(tree_node(i, 100));
  std::vector<Node> out;
  CHECK(d.give_shallowest(4, out) == 4);
  REQUIRE(out.size() == 4);
  for (std::uint32_t i = 0; i < 4; ++i) CHECK(out[i].id[0] == i);
  CHECK(d.size() == 2);
  CHECK(d.give_shallowest(5, out) == 2);
  Node n;
  CHECK_FALSE(d.pop(n));
}

TEST_CASE("chaselev: one node per steal, oversubscribed") {
  for (int threads : {2, 4, 8, 16}) {
    CAPTURE(threads);
    const auto r = stress<ChaseLevProtocol>(threads, 200000,
                                            settings_for(ChaseLevProtocol::traits, {StealAmount::one, 0}), 14,
                                            threads >= 4 ? 61 : 0);
    CHECK(r.exact());
    CHECK(r.steals > 0);
    CHECK(r.nodes_stolen == r.steals);
  }
}
