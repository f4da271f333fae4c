// distrib/safra.hpp: the termination bookkeeping, driven by a randomized
// simulation of ranks that do work, send work to each other and pass the
// token with arbitrary delays. It must never conclude while a rank is active
// or work is in flight, and must conclude once everything has stopped.
#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "distrib/safra.hpp"

using uts::distrib::Safra;

namespace {

struct Sim {
  explicit Sim(int n, std::uint64_t seed) : rng(seed), active(n, false), work(n, 0) {
    for (int i = 0; i < n; ++i) ranks.emplace_back(i, n);
    active[0] = true;
    work[0] = 50;  // units of work rank 0 starts with
  }
  std::mt19937_64 rng;
  std::vector<Safra> ranks;
  std::vector<bool> active;
  std::vector<int> work;
  struct Msg {
    int to;
    int units;
  };
  std::deque<Msg> in_flight;                 // basic messages
  int token_at = 0;                          // rank holding the token (-1: in transit)
  int token_to = -1;
  Safra::Token token;
  bool token_home = true, round_running = false, concluded = false;

  bool all_passive_and_empty() const {
    for (bool a : active)
      if (a) return false;
    return in_flight.empty();
  }

  // One random step; returns false once concluded.
  void step(bool allow_new_work) {
    const int n = static_cast<int>(ranks.size());
    std::uniform_int_distribution<int> pick(0, 5);
    switch (pick(rng)) {
      case 0: {  // an active rank works, maybe sends half its work away
        const int i = static_cast<int>(rng() % n);
        if (!active[i]) break;
        if (work[i] > 1 && allow_new_work && rng() % 2) {
          const int to = static_cast<int>(rng() % n);
          if (to == i) break;
          const int units = work[i] / 2;
          work[i] -= units;
          ranks[i].sent_basic();
          in_flight.push_back({to, units});
        } else if (work[i] > 0) {
          --work[i];
          if (allow_new_work && rng() % 8 == 0) work[i] += 2;  // expansion creates work
        }
        if (work[i] == 0) active[i] = false;
        break;
      }
      case 1:
      case 2: {  // deliver a random in-flight message
        if (in_flight.empty()) break;
        const std::size_t k = rng() % in_flight.size();
        const Msg m = in_flight[k];
        in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(k));
        ranks[m.to].received_basic();
        active[m.to] = true;
        work[m.to] += m.units;
        break;
      }
      case 3: {  // deliver the token in transit
        if (token_to < 0) break;
        token_at = token_to;
        token_to = -1;
        break;
      }
      default: {  // the holder acts on the token if passive
        if (token_to >= 0 || active[token_at]) break;
        if (token_at != 0) {
          token = ranks[token_at].pass(token);
          token_to = ranks[token_at].next();
          token_at = -1;
          break;
        }
        if (round_running && ranks[0].concludes(token)) {
          concluded = true;
          break;
        }
        round_running = true;
        token = ranks[0].start_round();
        token_to = ranks[0].next();
        token_at = -1;
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

TEST_CASE("Safra: a message in flight or a black rank blocks the conclusion") {
  Safra r0(0, 2), r1(1, 2);
  Safra::Token t = r0.start_round();
  r1.sent_basic();             // rank 1 sends work to rank 0 ...
  t = r1.pass(t);              // ... and passes the token (q = 1)
  CHECK_FALSE(r0.concludes(t));  // counted: 1 message in flight
  r0.received_basic();         // rank 0 receives it: black, counter -1
  CHECK(t.q + r0.counter() == 0);
  CHECK_FALSE(r0.concludes(t));  // black rank 0 blocks this round
  t = r0.start_round();        // whitens rank 0
  t = r1.pass(t);
  CHECK(r0.concludes(t));
}
