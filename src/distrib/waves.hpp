// Termination in O(log P) message delays: Mattern's four-counter method
// ("Algorithms for distributed termination detection", Distributed
// Computing 2(3), 1987), its waves run over a tree of ranks. The ring of
// safra.hpp needs 2P hops after the last rank turns passive; a wave here
// goes down and up a tree of depth log_A P (A = kWaveArity), and the
// detection needs two of them: 4 log_A P message delays. Pure bookkeeping
// and the wave policy; tree_waves.cpp moves the messages (for termination,
// termination_waves.cpp, and for closing, closing.cpp).
//
// Model (as in safra.hpp). A rank is *active* while any of its threads is
// busy or holds a node, *passive* once all are idle with empty deques (the
// engine's double scan says so with certainty); a passive rank becomes active
// only by receiving a basic message (nodes: an answer to a steal request or
// a lifeline push), and only an active rank sends one. Rank i counts
// s_i (basic messages sent, counted before the message can be received) and
// r_i (received); both only grow.
//
// Tree: ranks in heap order, parent(i) = (i - 1) / A, children A i + 1 ..
// A i + A (those < P). Messages:
//   WAVE(k)          down the tree: a rank forwards it to its children as
//                    soon as it receives it, busy or not.
//   REPORT(k, S, R)  up the tree: the sums over a subtree.
// Rules:
//  - A rank holding wave k, with the reports of all its children in, and
//    *passive*, reports (sum of its children's S + s_i, sum of R + r_i) to
//    its parent: its own counters are read at that moment, while passive.
//  - Rank 0, passive with no wave out, starts wave 1. When the reports of
//    all its children are in and it is passive, wave k is complete with
//    totals S^k, R^k (its own counters added). It concludes when k > 1 and
//    R^(k-1) == S^k; otherwise it starts wave k + 1 at once.
//
// Why it never ends early. Let T be the moment wave k completes at rank 0.
// Every rank's wave-k report was taken at some t_i <= T, while it was
// passive, and its wave-(k+1) report at some t'_i > T (wave k + 1 starts
// after T). Counters only grow, and at any moment the messages received so
// far are at most those sent so far, so
//   R^k = sum r_i(t_i) <= sum r_i(T) <= sum s_i(T) <= sum s_i(t'_i) = S^(k+1).
// When rank 0 sees R^k == S^(k+1) every step is an equality: at T nothing
// was in flight (sum r_i(T) = sum s_i(T)), and no rank received a basic
// message between its report t_i and T (r_i(t_i) = r_i(T)). A rank passive
// at t_i that receives nothing stays passive, so at T every rank was passive
// with nothing in flight: the computation had ended, and nothing could
// restart it. Each of the three things the argument uses is needed, and
// tests/model/waves.pml shows it by a mutant that spin must catch: counters
// read while active (a rank reports while busy), one wave instead of two
// (concluding on S^k == R^k), a lost counter (a subtree's sums dropped).
//
// Why it ends. Once every rank is passive with nothing in flight, the
// counters stop; the next wave to start completes (every rank is passive)
// and the one after it finds R^k == S^(k+1).
//
// Message cost: 2 (P - 1) per wave, at most one wave out at a time; a wave
// waits at an active rank until that rank turns passive, so during the run
// a wave completes only once every rank was passive at least once since it
// started.
#pragma once

#include <cstdint>
#include <vector>

namespace uts::distrib {

constexpr int kWaveArity = 4;

inline int wave_parent(int rank) { return rank == 0 ? -1 : (rank - 1) / kWaveArity; }
inline std::vector<int> wave_children(int rank, int ranks) {
  std::vector<int> out;
  for (std::int64_t c = std::int64_t{kWaveArity} * rank + 1; c <= std::int64_t{kWaveArity} * rank + kWaveArity && c < ranks; ++c)
    out.push_back(static_cast<int>(c));
  return out;
}
// The tree's depth (edges from rank 0 to its deepest rank).
inline int wave_depth(int ranks) {
  int d = 0;
  for (int r = ranks - 1; r > 0; r = wave_parent(r)) ++d;
  return d;
}

class FourCounterWaves {
 public:
  struct Sums {
    std::uint64_t sent = 0, received = 0;
  };
  struct Action {
    // start: send WAVE(wave) to `children` (rank 0); report: send
    // REPORT(wave, sums) to the parent; conclude: the job is over (rank 0).
    enum Kind { none, start, report, conclude } kind = none;
    std::uint64_t wave = 0;
    Sums sums;
  };

  FourCounterWaves(int rank, int ranks) : rank_(rank), children_(wave_children(rank, ranks)) {}

  void sent_basic() { ++own_.sent; }
  void received_basic() { ++own_.received; }

  // Rank > 0: WAVE(k) arrived; the caller forwards it to children() at once.
  // false: not the next wave (a protocol error).
  bool wave_arrived(std::uint64_t k) {
    if (holding_ || k != wave_ + 1) return false;
    begin(k);
    return true;
  }
  // REPORT(k, sums) from a child. false: no such wave is open here.
  bool report_arrived(std::uint64_t k, const Sums& s) {
    if (!holding_ || k != wave_ || pending_ == 0) return false;
    acc_.sent += s.sent;
    acc_.received += s.received;
    --pending_;
    return true;
  }

  // This rank is passive: what to do now, its own counters being those of
  // sent_basic() and received_basic().
  Action on_passive() { return on_passive(own_); }
  // The same with the rank's own counters kept by the caller (the closing
  // waves: the Channel counts every message, closing.hpp).
  Action on_passive(const Sums& own) {
    if (concluded_) return {};
    if (rank_ == 0 && !holding_) {  // no wave out yet: the first one
      begin(wave_ + 1);
      return {Action::start, wave_, {}};
    }
    if (!holding_ || pending_ != 0) return {};
    const Sums total{acc_.sent + own.sent, acc_.received + own.received};
    if (rank_ != 0) {
      holding_ = false;
      ++reports_;
      return {Action::report, wave_, total};
    }
    ++completed_;
    if (have_previous_ && previous_received_ == total.sent) {
      holding_ = false;
      concluded_ = true;
      return {Action::conclude, wave_, total};
    }
    previous_received_ = total.received;
    have_previous_ = true;
    begin(wave_ + 1);
    return {Action::start, wave_, {}};
  }

  // on_passive() has something to do (the caller checks passivity only then).
  bool wants_passive() const {
    if (concluded_) return false;
    if (rank_ == 0 && !holding_) return true;
    return holding_ && pending_ == 0;
  }

  const std::vector<int>& children() const { return children_; }
  bool concluded() const { return concluded_; }
  // Rank 0: waves started; other ranks: reports sent.
  std::uint64_t waves() const { return rank_ == 0 ? wave_ : reports_; }
  std::uint64_t completed() const { return completed_; }
  const Sums& own() const { return own_; }

 private:
  void begin(std::uint64_t k) {
    wave_ = k;
    holding_ = true;
    pending_ = children_.size();
    acc_ = {};
  }

  int rank_;
  std::vector<int> children_;
  Sums own_;
  Sums acc_;                  // the children's sums in the open wave
  std::uint64_t wave_ = 0;    // the last wave seen (started, at rank 0)
  std::size_t pending_ = 0;   // children yet to report in it
  bool holding_ = false;      // a wave is open here (not yet reported up / completed)
  bool have_previous_ = false;
  std::uint64_t previous_received_ = 0;  // rank 0: R of the last completed wave
  std::uint64_t reports_ = 0, completed_ = 0;
  bool concluded_ = false;
};

}  // namespace uts::distrib
