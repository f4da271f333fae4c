// Victim policies behind the one interface the worker loop calls
// (docs/engine.md, sections 3 and 6): random, linear and Manber's tree
// search probe one victim per step (selector.hpp); hier runs one round of
// local and remote victims per step (hier.hpp).
#pragma once

#include <memory>
#include <optional>

#include "base/rng.hpp"
#include "run/locality.hpp"
#include "run/policy.hpp"
#include "steal/victims/hier.hpp"
#include "steal/victims/manber.hpp"
#include "steal/victims/selector.hpp"

namespace uts {

// What every thread's search shares, built once per run.
class VictimBoard {
 public:
  // `domains` (null: the run has none) must outlive the board.
  VictimBoard(int threads, VictimOrder order, const StealPolicy& steal, const StealPolicy& local,
              const StealPolicy& remote, const DomainMap* domains)
      : order(order), steal(steal), local(local), remote(remote), manber(threads), domains(domains),
        slots(order == VictimOrder::hier && domains ? std::make_unique<RemoteRoundSlots>(domains->count) : nullptr) {}

  VictimOrder order;
  StealPolicy steal, local, remote;  // --steal; --steal-local and --steal-remote (hier)
  ManberTree manber;
  const DomainMap* domains;                // null when the run has no domains
  std::unique_ptr<RemoteRoundSlots> slots;  // hier only
};

// One thread's search for work: begin() at the start of an idle period,
// then step() until it finds some.
class VictimSearch {
 public:
  enum class Step { found, missed, alone };

  VictimSearch(VictimBoard& board, int self, int threads)
      : board_(board), self_(self), threads_(threads),
        selector_(board.order, self, threads, &board.manber, static_cast<std::uint64_t>(self) + 1),
        rng_(Rng::mix(static_cast<std::uint64_t>(self) + 1)) {
    if (board.order == VictimOrder::hier && board.domains)
      hier_.emplace(*board.domains, *board.slots, self, board.local, board.remote);
  }

  void begin() {
    selector_.begin_search();
    misses_ = 0;
  }

  // One step of the search. `attempt(victim, amount)` tries one victim and
  // is true when nodes were stolen into this thread's deque. alone: there is
  // nobody to steal from (one thread).
  template <class Try>
  Step step(Try&& attempt) {
    if (threads_ < 2) return Step::alone;
    if (hier_) {
      if (hier_->round(attempt, rng_)) return Step::found;
      misses_ = threads_;  // a whole round failed
      return Step::missed;
    }
    const int v = selector_.next();
    if (v < 0) return Step::alone;
    if (attempt(v, board_.steal)) {
      selector_.found_work(v);
      return Step::found;
    }
    selector_.missed();
    ++misses_;
    return Step::missed;
  }

  // The victim a waker named, tried outside the policy's order (which it
  // must not advance), with the amounts the policy would use for it.
  template <class Try>
  bool try_hinted(int v, Try&& attempt) {
    if (hier_) return hier_->try_hinted(v, board_.domains->same(self_, v), attempt);
    return attempt(v, board_.steal);
  }

  // A whole round of victims failed since begin() or reset_dry() (an MPI
  // rank's agent may then ask another rank).
  bool dry() const { return threads_ == 1 || misses_ >= threads_ - 1; }
  void reset_dry() { misses_ = 0; }

  const VictimSelector& selector() const { return selector_; }

 private:
  VictimBoard& board_;
  int self_;
  int threads_;
  VictimSelector selector_;
  Rng rng_;  // hier's shuffles
  std::optional<HierRounds> hier_;
  int misses_ = 0;
};

}  // namespace uts
