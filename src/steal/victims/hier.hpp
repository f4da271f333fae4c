// --victim hier (docs/engine.md, section 6; the Chapel DistBag_DFS policy):
// a local round over the other threads of this thread's domain in random
// order, taking --steal-local; after it failed, one remote round over the
// other domains' threads in random order, taking --steal-remote, unless
// another thread of this domain has a remote round in flight (then this one
// goes back to local rounds).
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "base/cache_line.hpp"
#include "base/rng.hpp"
#include "run/locality.hpp"
#include "run/policy.hpp"

namespace uts {

// Per domain, whether one of its threads has a remote round in flight.
class RemoteRoundSlots {
 public:
  explicit RemoteRoundSlots(int domains) : slots_(std::make_unique<Padded<std::atomic<bool>>[]>(static_cast<std::size_t>(domains))) {}
  // relaxed, both: the flag only limits how many remote rounds run at once;
  // it guards no data (each claim is validated by its protocol).
  bool enter(int domain) {
    auto& slot = slots_[static_cast<std::size_t>(domain)].value;
    return !slot.load(std::memory_order_relaxed) && !slot.exchange(true, std::memory_order_relaxed);
  }
  // relaxed: as enter().
  void leave(int domain) { slots_[static_cast<std::size_t>(domain)].value.store(false, std::memory_order_relaxed); }

 private:
  std::unique_ptr<Padded<std::atomic<bool>>[]> slots_;
};

class HierRounds {
 public:
  HierRounds(const DomainMap& domains, RemoteRoundSlots& slots, int self, StealPolicy local, StealPolicy remote)
      : slots_(slots), domain_(domains.of_thread[static_cast<std::size_t>(self)]), local_amount_(local),
        remote_amount_(remote) {
    for (int t = 0; t < static_cast<int>(domains.of_thread.size()); ++t)
      if (t != self) (domains.same(t, self) ? local_ : remote_).push_back(t);
  }

  // One local round, then (if it failed) at most one remote round.
  // `attempt(victim, amount)` tries one victim; true when nodes were stolen.
  template <class Try>
  bool round(Try&& attempt, Rng& rng) {
    shuffle(local_, rng);
    for (int v : local_)
      if (attempt(v, local_amount_)) return true;
    if (remote_.empty() || !slots_.enter(domain_)) return false;
    shuffle(remote_, rng);
    bool got = false;
    for (int v : remote_)
      if ((got = attempt(v, remote_amount_))) break;
    slots_.leave(domain_);
    return got;
  }

  // The victim a waker named, under hier's rules: the local amount inside
  // the domain; across domains the remote amount, and only if no other
  // thread of this domain has a remote round in flight.
  template <class Try>
  bool try_hinted(int v, bool same_domain, Try&& attempt) {
    if (same_domain) return attempt(v, local_amount_);
    if (!slots_.enter(domain_)) return false;
    const bool got = attempt(v, remote_amount_);
    slots_.leave(domain_);
    return got;
  }

 private:
  static void shuffle(std::vector<int>& v, Rng& rng) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
  }

  RemoteRoundSlots& slots_;
  int domain_;
  StealPolicy local_amount_, remote_amount_;
  std::vector<int> local_, remote_;  // other threads in this domain, in others
};

}  // namespace uts
