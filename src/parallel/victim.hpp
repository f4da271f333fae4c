// Victim selection (spec section 3): random, linear ring, or Manber's
// round-counter search over a binary tree superimposed on the deques.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "parallel/policy.hpp"
#include "parallel/split_deque.hpp"

namespace uts {

// The shared part of Manber's search: one counter per tree node (heap
// layout: node 1 is the root, node k has children 2k and 2k+1, leaf j is node
// L + j where L is P rounded up to a power of two). A counter value r means
// "this subtree was found empty in every round up to r".
class ManberTree {
 public:
  explicit ManberTree(int threads);
  int threads() const { return threads_; }
  int leaves() const { return leaves_; }
  // relaxed: the counters only steer the search; every claim is validated by
  // the deque's CAS and termination is decided by the busy count.
  std::uint64_t read(int node) const { return counters_[node].value.load(std::memory_order_relaxed); }
  // relaxed, for the same reason as read().
  void mark(int node, std::uint64_t round) { counters_[node].value.store(round, std::memory_order_relaxed); }

 private:
  // 64-bit: an idle thread can pass 2^32 rounds in hours; rounds never wrap.
  struct alignas(kCacheLine) Counter {
    std::atomic<std::uint64_t> value{0};
  };
  int threads_;
  int leaves_;
  std::vector<Counter> counters_;
};

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
  std::uint32_t random_below(std::uint32_t n) { return static_cast<std::uint32_t>(random_u64() % n); }

  // Manber search state, exposed for the unit tests.
  std::uint64_t round() const { return round_; }
  void set_round_for_testing(std::uint64_t round) { round_ = round; }
  // Searches that hit the safety cap and fell back to a random victim
  // (a sign of a broken search; the tests assert it stays 0).
  std::uint64_t fallbacks() const { return fallbacks_; }

 private:
  std::uint64_t random_u64();
  void advance_tree();  // one move of Manber's search away from current_

  VictimOrder order_;
  int self_;
  int threads_;
  ManberTree* tree_;
  std::uint64_t rng_state_;
  int current_;    // linear: the ring position; tree: the leaf being visited
  int last_work_;  // tree: the leaf where work was last found
  std::uint64_t round_ = 1;
  std::uint64_t fallbacks_ = 0;
};

}  // namespace uts
