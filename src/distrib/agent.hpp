// One rank's agent in a job of several ranks: the engine's RemoteLink,
// composed of one part per concern, each in its own file:
//   rank_steal    stealing between ranks: requests, answers, lifelines, pushes
//   termination   the job's end: Dijkstra-Safra's ring or four-counter waves
//                 over the tree of ranks, behind one interface
//   stop_count    STOP, and --max-nodes' COUNT
//   closing       after the run: every message received before any rank leaves
//   channel       the one door to the Transport, counting every message for closing
// and one state machine of named phases (phase.hpp) that says which part may
// act when. The parts never call each other except that stealing, which
// alone moves nodes, counts its basic messages for termination.
//
// It speaks only through a Transport (transport.hpp), so it holds no MPI
// call, and runs on OpenMP thread 0 only (MPI_THREAD_FUNNELED): polled every
// --rank-poll to --rank-poll-max expansions while thread 0 works (the
// interval poll_interval.hpp adapts), and in its idle loop. Polling
// rather than a progress thread: the answer comes from the thread that holds
// the nodes, with no lock and no core of its own (README.md beside this
// file: the design, the phase diagram, the messages, why it is correct).
#pragma once

#include <cstddef>
#include <memory>

#include "base/clock.hpp"
#include "distrib/channel.hpp"
#include "distrib/closing.hpp"
#include "distrib/phase.hpp"
#include "distrib/poll_interval.hpp"
#include "distrib/rank_steal.hpp"
#include "distrib/stop_count.hpp"
#include "distrib/termination.hpp"
#include "distrib/transport.hpp"
#include "engine/remote_link.hpp"
#include "run/settings.hpp"
#include "run/status.hpp"

namespace uts::distrib {

class RankAgent final : public RemoteLink {
 public:
  // The agent speaks through `transport` (which it owns); `settings` and
  // `stop` are read at construction only.
  RankAgent(std::unique_ptr<Transport> transport, const EngineSettings& settings, const StopRule& stop);

  int rank() const override { return channel_.rank(); }
  int ranks() const override { return channel_.ranks(); }
  RankStats stats() const override;

  // Returns the expansions until the next busy poll (poll_interval.hpp).
  std::uint32_t poll_busy(LinkHost& host) override;
  bool poll_idle(LinkHost& host, bool dry) override;
  // Only when this rank would send nothing before a message arrives: it
  // waits for an answer or is dormant, has no termination step to take, and
  // no --max-nodes count to send. Right after poll_idle, which has taken
  // every step it could.
  bool wait_idle(LinkHost& host) override;
  // begin_close(), then close_step() until it says so, a short nap between.
  void close(LinkHost& host) override;

  // close()'s parts, for tests that drive several agents' closing in turn.
  void begin_close(LinkHost& host);
  // Receive, take the closing step, leave once released with every send
  // completed. true: left.
  bool close_step(LinkHost& host);

  AgentPhase phase() const { return phase_; }

 private:
  // Every phase change goes through here: the transition is checked against
  // phase.hpp's table, and its side effects (the dormant time, RELEASE to
  // the children) happen in this one place.
  void enter(AgentPhase next);
  // The first poll: the run has started.
  void start();
  // Nodes arrived, or thread 0 works: a dormant rank is awake again.
  void wake();
  // The job is over (DONE received, or rank 0 concluded).
  void on_done(LinkHost& host);
  // Every message that has arrived. `idle`: thread 0 holds no nodes, so
  // requests are refused.
  void receive_all(LinkHost& host, bool idle);
  void on_nodes(LinkHost& host, const Message& m, bool push);

  Channel channel_;
  std::unique_ptr<Termination> termination_;
  RankStealing steal_;
  StopCount stop_;
  Closing closing_;
  const bool stealing_;  // not -s 0: this rank asks other ranks for work when dry
  const bool lifeline_;  // --rank-steal lifeline
  const std::size_t most_nodes_;  // --rank-chunk: the most nodes an answer or push carries
  const std::size_t largest_message_;
  PollInterval poll_;    // --rank-poll, --rank-poll-max
  std::uint64_t asked_at_busy_poll_ = 0;  // requests and lifelines received, at the last busy poll
  AgentPhase phase_ = AgentPhase::starting;
  Clock::time_point dormant_since_;
  double dormant_seconds_ = 0;
};

// The agent, as the engine sees it.
std::unique_ptr<RemoteLink> make_rank_agent(std::unique_ptr<Transport> transport, const EngineSettings& settings,
                                            const StopRule& stop);

}  // namespace uts::distrib
