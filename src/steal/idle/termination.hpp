// Exact termination without a shared counter: per-thread state words and a
// double scan (the "four counter" idea of Mattern, reduced to epochs).
//
// Each thread owns one word on its own cache line: (epoch << 1) | busy. It
// alone writes it; the epoch rises every time the thread becomes busy.
//
// Invariant: every node not yet expanded is in the deque of a busy thread, or
// copied by a busy thief whose claim may still succeed.
//  - A thread sets itself idle only after pop() returned false: its deque is
//    empty for certain (each protocol's pop() promises it).
//  - A thief sets itself busy *before* its claim CAS, and idle again if the
//    claim fails. When a victim empties and goes idle, every thief that took
//    its last nodes was already busy, and S (the single total order of the
//    seq_cst operations) says so: the thief's busy store (seq_cst) is
//    sequenced before its claim CAS (a release); the victim's load or CAS of
//    the word (an acquire) reads that claim or a later write, and every later
//    write to the word is an RMW, so the release sequence carries it; the
//    victim's idle store (seq_cst) follows. So busy strongly happens before
//    idle, and strongly-happens-before between seq_cst operations is part of
//    S ([atomics.order]/4): busy precedes idle in S. The claim and the
//    victim's observation themselves need not be seq_cst.
//  - Only busy threads create nodes.
//
// Detection (any idle thread): scan 1 reads every word; if one is busy, no.
// Scan 2 reads them again; if every word is unchanged, the run is over.
// Why: thread i's word was idle with the same epoch at both of its reads, and
// a thread cannot go busy and back to idle without raising its epoch, so i was
// idle during the whole interval between its two reads. Every scan-1 read
// precedes every scan-2 read, so at the instant just after the last scan-1
// read, all threads were idle at once: by the invariant no node remained, and
// none can appear afterwards (only busy threads create nodes, and nobody can
// become busy for lack of anything to claim). A single scan would be wrong:
// a thief read idle just before it claims, and its victim read idle just
// after it empties, hide the stolen nodes; the epoch catches exactly that.
//
// Cost: a steal attempt writes only the thief's own line (busy, then idle on
// failure). The scans read P lines and run only when an idle thread is about
// to sleep. tests/model/termination.pml checks this protocol exhaustively,
// with mutants (one scan, no epoch, busy after the claim).
//
// The thief's side of the rule is BusyMark (below): every protocol's steal
// calls busy() before its claim can succeed and idle() if it fails.
//
// A signal before the end makes the run interrupted, whatever the threads
// were doing when it came (docs/output.md, section 7): a wait it cut short
// (a --remote-delay, a sleep) changed what the run measured, even when every
// node was expanded. A signal after the end does not. The end is the store
// of done_ (detect() or, across ranks, finish()); signal_at_end() says
// which side of it the signal fell on:
//  - the handler's first store of the signal (interrupt.cpp) and end()'s
//    store of done_ and its read of the signal are all seq_cst, so all three
//    sit in S;
//  - if the handler's store precedes the done_ store in S, it precedes the
//    read (sequenced after the store, so after it in S), and a seq_cst load
//    sees the last store before it in S or a later one: the signal is seen
//    (it is never cleared, outside tests);
//  - if it follows the read in S, the read sees 0: the signal came after the
//    end and the run stays complete;
//  - between the two (the same instant, nanoseconds wide) it counts as
//    before: a run is only ever called interrupted too eagerly, never a
//    signal that cut a wait short forgotten.
// The store is an exchange: when two detectors succeed at once (or finish()
// comes twice), only the first, the end, reads the signal; a later one would
// read it after the end.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/cache_line.hpp"
#include "base/interrupt.hpp"

namespace uts {

class Termination {
 public:
  // Every thread starts busy (it may be handed part of the root's children).
  explicit Termination(int threads)
      : threads_(threads), states_(std::make_unique<State[]>(static_cast<std::size_t>(threads))) {
    for (int i = 0; i < threads; ++i) {
      states_[i].epoch = 1;
      // relaxed: written before the parallel region starts, which synchronises.
      states_[i].word.store(encode(1, true), std::memory_order_relaxed);
    }
  }

  // Thread `id` only, each about its own state.
  void busy(int id) {
    State& s = states_[id];
    ++s.epoch;
    // seq_cst: the invariant's order (busy store before the claim CAS).
    s.word.store(encode(s.epoch, true), std::memory_order_seq_cst);
  }
  void idle(int id) {
    State& s = states_[id];
    // seq_cst: after the certain-empty observation, in the total order the
    // double-scan argument uses.
    s.word.store(encode(s.epoch, false), std::memory_order_seq_cst);
  }

  // Any idle thread: the double scan. true (and done() from then on) when
  // every thread is idle and none has been busy between the two scans.
  // `scratch` holds the scan-1 values (the caller's own, so detectors share nothing).
  bool detect(std::vector<std::uint64_t>& scratch) {
    if (done()) return true;
    if (!quiescent(scratch)) return false;
    end();
    return true;
  }

  // The double scan alone: true when every thread was idle, all at once,
  // between the scans. Under MPI this says the *rank* is passive; only the
  // ranks' termination (distrib/safra.hpp) may then call finish().
  bool quiescent(std::vector<std::uint64_t>& scratch) const {
    scratch.resize(static_cast<std::size_t>(threads_));
    for (int i = 0; i < threads_; ++i) {
      // seq_cst: scan reads in the total order of the argument above.
      const std::uint64_t w = states_[i].word.load(std::memory_order_seq_cst);
      if (w & 1) return false;
      scratch[static_cast<std::size_t>(i)] = w;
    }
    for (int i = 0; i < threads_; ++i)
      // seq_cst: as scan 1.
      if (states_[i].word.load(std::memory_order_seq_cst) != scratch[static_cast<std::size_t>(i)]) return false;
    return true;
  }

  // The job is over (MPI: the ranks' termination said so).
  void finish() { end(); }

  // acquire: pairs with end()'s store (a thread that sees done may stop).
  bool done() const { return done_.value.load(std::memory_order_acquire); }
  // The flag itself, for a wait that only needs to end soon after the end
  // (RemoteDelay).
  const std::atomic<bool>& done_flag() const { return done_.value; }

  // The signal that came before the end (0: none, or no end yet); see the
  // header comment. relaxed: read after the threads joined (the OpenMP
  // barrier orders it after the store).
  int signal_at_end() const { return signal_at_end_.load(std::memory_order_relaxed); }

 private:
  static std::uint64_t encode(std::uint64_t epoch, bool busy) { return (epoch << 1) | (busy ? 1 : 0); }

  void end() {
    // seq_cst: the end's place in S, before the signal's read (header
    // comment); an exchange, so only the first end reads the signal.
    if (done_.value.exchange(true, std::memory_order_seq_cst)) return;
    // seq_cst inside signal_number(): after the exchange above in S.
    // relaxed, the store: read after the threads joined.
    signal_at_end_.store(interrupt::signal_number(), std::memory_order_relaxed);
  }

  struct alignas(kCacheLine) State {
    std::atomic<std::uint64_t> word{0};
    std::uint64_t epoch = 0;  // the owner's copy
  };
  int threads_;
  std::unique_ptr<State[]> states_;
  Padded<std::atomic<bool>> done_;
  std::atomic<int> signal_at_end_{0};
};

// The thief's side of the termination rule, for one thread.
class BusyMark {
 public:
  BusyMark(Termination& termination, int id) : termination_(termination), id_(id) {}
  void busy() { termination_.busy(id_); }
  void idle() { termination_.idle(id_); }

 private:
  Termination& termination_;
  int id_;
};

}  // namespace uts
