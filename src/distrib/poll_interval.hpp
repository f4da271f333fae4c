// How many expansions thread 0 works between two checks for other ranks'
// messages (--rank-poll, --rank-poll-max): the agent's one polling policy,
// pure so that it is tested alone (tests/unit/distrib/test_poll_interval.cpp).
//
// Why it adapts: a check is an MPI_Iprobe, which on a real network costs
// about as much as a few hundred of today's nodes, so a fixed short
// interval costs a busy rank a good part of its time; a long one makes
// every thief wait half of it for its answer. Requests come in bursts (at
// the start and near the end many dry ranks ask the few busy ones) and are
// rare in between. So the interval falls back to the shortest as soon as a
// check finds another rank asking (a request or a lifeline), and doubles
// after each check that finds none, up to the longest. Equal bounds give a
// fixed interval. Measured on the scale model:
// results/benchmarks/2026-11-29-rank-layer.md (and src/distrib/README.md,
// "How often a busy rank looks").
#pragma once

#include <algorithm>
#include <cstdint>

namespace uts::distrib {

class PollInterval {
 public:
  PollInterval(std::uint32_t shortest, std::uint32_t longest)
      : shortest_(shortest), longest_(std::max(shortest, longest)), now_(shortest) {}

  // After a check: `asked` whether another rank asked this one for nodes
  // since the last. Returns the expansions until the next check.
  std::uint32_t next(bool asked) {
    now_ = asked ? shortest_ : static_cast<std::uint32_t>(std::min<std::uint64_t>(longest_, std::uint64_t{now_} * 2));
    return now_;
  }
  std::uint32_t now() const { return now_; }

 private:
  const std::uint32_t shortest_, longest_;
  std::uint32_t now_;
};

}  // namespace uts::distrib
