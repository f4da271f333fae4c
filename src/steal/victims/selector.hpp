// The order in which one idle thread probes the others (docs/engine.md,
// section 3): uniformly at random, a ring from the last victim that had
// work, or Manber's round-counter search over a binary tree superimposed on
// the deques (manber.hpp). --victim hier builds its rounds on the random
// order (hier.hpp); the worker loop calls all of them through victims.hpp.
#pragma once

#include <cstdint>

#include "base/rng.hpp"
#include "run/policy.hpp"
#include "steal/victims/manber.hpp"

namespace uts {

// One thread's victim chooser. Usage per idle period: begin_search(), then
// repeatedly next() to get a deque to examine, and found_work(v) or missed().
class VictimSelector {
 public:
  VictimSelector(VictimOrder order, int self, int threads, ManberTree* tree, std::uint64_t seed);

  void begin_search();
  // The next deque to examine, never this thread's own; -1 with one thread.
  int next();
  void found_work(int victim);
  void missed();

  // Uniform in [0, n), n >= 1 (the hier search shuffles its rounds with it).
  std::uint32_t random_below(std::uint32_t n) { return static_cast<std::uint32_t>(rng_.below(n)); }

  // Manber search state, exposed for the unit tests.
  std::uint64_t round() const { return round_; }
  void set_round_for_testing(std::uint64_t round) { round_ = round; }
  // Searches that hit the safety cap and fell back to a random victim
  // (a sign of a broken search; the tests assert it stays 0).
  std::uint64_t fallbacks() const { return fallbacks_; }

 private:
  int random_other();
  void advance_tree();  // one move of Manber's search away from current_

  VictimOrder order_;
  int self_;
  int threads_;
  ManberTree* tree_;
  Rng rng_;
  int current_;    // linear: the ring position; tree: the leaf being visited
  int last_work_;  // tree: the leaf where work was last found
  std::uint64_t round_ = 1;
  std::uint64_t fallbacks_ = 0;
};

}  // namespace uts
