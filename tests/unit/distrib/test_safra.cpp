// distrib/safra.hpp: the production token policy (SafraRing), driven by a
// randomized simulation of ranks that do work, send work to each other and
// pass the token with arbitrary delays. It must never conclude while a rank
// is active or work is in flight, and must conclude once everything has
// stopped.
#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <vector>

#include "distrib/safra.hpp"
#include "support/basic_computation.hpp"

using uts::distrib::Safra;
using uts::distrib::SafraRing;

namespace {

struct Sim {
  explicit Sim(int n, std::uint64_t seed) : rng(seed), basic(n, rng) {
    for (int i = 0; i < n; ++i) ranks.emplace_back(i, n);
  }
  std::mt19937_64 rng;
  uts::test::BasicComputation basic;
  std::vector<SafraRing> ranks;
  struct Transit {
    int to;
    Safra::Token token;
  };
  std::optional<Transit> token;  // the token on its way
  bool concluded = false;

  bool all_passive_and_empty() const { return basic.all_passive_and_empty(); }

  // One random step.
  void step(bool allow_new_work) {
    const int n = static_cast<int>(ranks.size());
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
      case 0: basic.work_step(allow_new_work, [&](int i) { ranks[i].sent_basic(); }); break;
      case 1:
      case 2: basic.deliver_step([&](int to) { ranks[to].received_basic(); }); break;
      case 3:  // deliver the token in transit
        if (token) {
          ranks[token->to].token_arrived(token->token);
          token.reset();
        }
        break;
      default:  // a passive holder acts on the token, as the agent does
        for (int i = 0; i < n; ++i) {
          if (!ranks[i].holds_token() || basic.active[i]) continue;
          const SafraRing::Action a = ranks[i].on_passive();
          if (a.kind == SafraRing::Action::pass) token = Transit{a.to, a.token};
          if (a.kind == SafraRing::Action::conclude) concluded = true;
        }
    }
  }
};

}  // namespace

TEST_CASE("Safra: never concludes early, always concludes once quiet (randomized)") {
  for (int n : {1, 2, 3, 5, 8}) {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      Sim sim(n, seed * 7919 + static_cast<std::uint64_t>(n));
      std::uint64_t steps = 0;
      while (!sim.concluded && steps < 200000) {
        sim.step(steps < 20000);
        ++steps;
        if (sim.concluded) {
          CHECK_MESSAGE(sim.all_passive_and_empty(), "n=" << n << " seed=" << seed << " concluded early");
        }
      }
      // After 20000 steps no new work is created, so everything drains.
      CHECK_MESSAGE(sim.concluded, "n=" << n << " seed=" << seed << " never concluded");
    }
  }
}

TEST_CASE("SafraRing: a message in flight or a black rank blocks the conclusion; rounds restart") {
  SafraRing r0(0, 2), r1(1, 2);
  CHECK(r0.holds_token());
  CHECK_FALSE(r1.holds_token());
  SafraRing::Action a = r0.on_passive();  // the first round starts
  REQUIRE(a.kind == SafraRing::Action::pass);
  CHECK(a.to == 1);
  CHECK_FALSE(r0.holds_token());
  r1.sent_basic();  // rank 1 sends work to rank 0 ...
  r1.token_arrived(a.token);
  a = r1.on_passive();  // ... and passes the token (q = 1)
  REQUIRE(a.kind == SafraRing::Action::pass);
  CHECK(a.to == 0);
  CHECK(a.token.q == 1);
  r0.received_basic();  // rank 0 receives it: black, counter -1
  r0.token_arrived(a.token);
  a = r0.on_passive();  // q + c0 == 0, but rank 0 is black: a new round
  REQUIRE(a.kind == SafraRing::Action::pass);
  CHECK(a.token.q == 0);
  CHECK_FALSE(a.token.black);
  r1.token_arrived(a.token);
  a = r1.on_passive();
  r0.token_arrived(a.token);
  CHECK(r0.on_passive().kind == SafraRing::Action::conclude);
  CHECK(r0.tokens_passed() == 2);  // two rounds started
  CHECK(r1.tokens_passed() == 2);
  CHECK(r1.on_passive().kind == SafraRing::Action::none);  // without the token: nothing to do
}
