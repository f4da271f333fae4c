// Shared test support: the basic computation that termination detection
// watches, simulated step by step for the randomized tests of Safra's ring
// (test_safra.cpp) and the four-counter waves (test_waves.cpp). Ranks are
// active or passive; an active rank works, may create work, and may send
// half of its work to another rank (a basic message); a passive rank turns
// active only by receiving one. The detector under test is told of every
// send and receipt through the callbacks.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace uts::test {

struct BasicComputation {
  BasicComputation(int n, std::mt19937_64& rng) : rng(rng), active(n, false), work(n, 0) {
    active[0] = true;
    work[0] = 50;  // units of work rank 0 starts with
  }
  std::mt19937_64& rng;
  std::vector<bool> active;
  std::vector<int> work;
  struct Msg {
    int to, units;
  };
  std::deque<Msg> in_flight;

  bool all_passive_and_empty() const {
    for (bool a : active)
      if (a) return false;
    return in_flight.empty();
  }

  // A random rank, if active, works one step; `sent(i)` when it sends.
  template <class Sent>
  void work_step(bool allow_new_work, Sent&& sent) {
    const int n = static_cast<int>(active.size());
    const int i = static_cast<int>(rng() % n);
    if (!active[i]) return;
    if (work[i] > 1 && allow_new_work && rng() % 2) {
      const int to = static_cast<int>(rng() % n);
      if (to == i) return;
      const int units = work[i] / 2;
      work[i] -= units;
      sent(i);
      in_flight.push_back({to, units});
    } else if (work[i] > 0) {
      --work[i];
      if (allow_new_work && rng() % 8 == 0) work[i] += 2;  // expansion creates work
    }
    if (work[i] == 0) active[i] = false;
  }

  // A random message in flight is delivered; `received(to)` first.
  template <class Received>
  void deliver_step(Received&& received) {
    if (in_flight.empty()) return;
    const std::size_t k = rng() % in_flight.size();
    const Msg m = in_flight[k];
    in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(k));
    received(m.to);
    active[m.to] = true;
    work[m.to] += m.units;
  }
};

}  // namespace uts::test
