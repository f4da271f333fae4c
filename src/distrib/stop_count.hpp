// Stopping early across ranks, one rank's side: STOP tells every other rank
// that this one stopped (SIGINT, --max-nodes), and with --max-nodes every
// rank sends rank 0 its node count (COUNT) at most every kCountInterval,
// from which rank 0 decides the stop. The stop flag itself is the host's
// (LinkHost::stop_raised): the engine's threads raise it too, at any time,
// so the agent reads it rather than keeping a copy that could disagree.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/clock.hpp"
#include "distrib/channel.hpp"
#include "distrib/transport.hpp"
#include "engine/remote_link.hpp"
#include "run/status.hpp"

namespace uts::distrib {

class StopCount {
 public:
  static constexpr auto kCountInterval = std::chrono::milliseconds(1);

  StopCount(Channel& channel, const StopRule& stop);

  // STOP from another rank: this rank stops too, and says nothing more.
  void on_stop(LinkHost& host, const Message& m);
  // COUNT (rank 0): that rank's node count so far.
  void on_count(const Message& m);
  // At every poll: a stop raised here and not yet told is told to every
  // other rank (once, whatever the phase); while `counting` (the run is on
  // and not stopped), --max-nodes: rank 0 stops the job once the ranks'
  // counts reach it, the others send their count when it is due.
  void step(LinkHost& host, bool counting);

  // --max-nodes is on: COUNT messages are due, so the rank never blocks.
  bool counts() const { return max_nodes_ != 0; }

 private:
  Channel& channel_;
  const std::uint64_t max_nodes_;
  // STOP sent, or heard: the stop is known to every rank (a rank that heard
  // STOP knows every other rank heard it too, from the same sender).
  // Orthogonal to the agent's phase: a run may stop in any phase before
  // close(), and a stopped rank still finishes if DONE comes.
  bool settled_ = false;
  Clock::time_point last_count_;
  std::vector<std::uint64_t> counts_;  // rank 0: each rank's last COUNT
};

}  // namespace uts::distrib
