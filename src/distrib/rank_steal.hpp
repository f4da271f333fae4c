// Stealing between ranks, one rank's side: the UPC Queues request/answer
// design over messages (REQUEST, ANSWER) and X10 GLB's lifelines
// (LIFELINE, PUSH; the graph in lifeline.hpp). It moves nodes and keeps the
// rank's stealing statistics; the agent (agent.hpp) decides when it may
// ask, answer with nodes or push, from its phase. Nodes make a message a
// basic one: it counts them for termination as they go out and come in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "base/clock.hpp"
#include "base/rng.hpp"
#include "distrib/channel.hpp"
#include "distrib/termination.hpp"
#include "engine/remote_link.hpp"
#include "run/settings.hpp"
#include "run/stats.hpp"
#include "tree/node.hpp"

namespace uts::distrib {

class RankStealing {
 public:
  RankStealing(Channel& channel, Termination& termination, const EngineSettings& settings);

  // --rank-steal lifeline with --init root, every rank but 0: the rank
  // starts as a recorded thief of all its buddies (no message: both sides
  // know the graph), dormant until rank 0's nodes fan out to it.
  bool starts_dormant() const { return starts_dormant_; }
  // Our random request awaits its answer (at most one is out).
  bool outstanding() const { return outstanding_; }

  // REQUEST from `thief`, answered at once: with half of thread 0's nodes
  // (the shallowest, at most --rank-chunk, keeping one) when `may_give`,
  // else with a refusal (no nodes).
  void answer(LinkHost& host, int thief, bool may_give);
  // LIFELINE from `thief`: recorded (once), never refused; served by
  // push_to_thieves().
  void on_lifeline(int thief);
  // ANSWER to our request (`push` false) or PUSH down our lifeline: checked
  // and counted (termination's basic-message count included). Its node
  // count; 0 is a refusal, with nothing more to do.
  std::size_t on_nodes(LinkHost& host, const Message& m, bool push);
  // The nodes of an ANSWER or PUSH into thread 0's deque.
  void take(LinkHost& host, const Message& m);

  // Thread 0 is dry and no request of ours is out. Random: ask a random
  // rank, every time. Lifeline: --rank-w random requests, then a LIFELINE
  // to each buddy not already asked. true: the lifelines are armed and the
  // rank goes dormant.
  bool seek(LinkHost& host);
  // Nodes arrived, or thread 0 works: the next dry spell makes its --rank-w
  // random attempts again.
  void rearm() { random_left_ = w_; }
  // Thread 0 works: serve the recorded lifeline thieves, oldest first, each
  // with half of thread 0's nodes, for as long as it has two or more.
  void push_to_thieves(LinkHost& host);

  // Lifeline thieves recorded and not yet served (thread 0 had fewer than
  // two nodes at its last busy poll).
  bool has_thieves() const { return !thieves_.empty(); }

  const RankStats& stats() const { return stats_; }

 private:
  void send_request(LinkHost& host);
  void record_thief(int h);

  Channel& channel_;
  Termination& termination_;
  const std::uint32_t chunk_, w_;
  const bool lifeline_;
  Rng rng_;
  bool outstanding_ = false;  // see outstanding()
  Clock::time_point request_sent_;
  std::vector<Node> give_, arrived_;
  // --rank-steal lifeline
  std::vector<int> buddies_;       // this rank's lifelines (lifeline.hpp)
  std::vector<char> armed_;        // per buddy: asked (or registered at the start) and not yet served
  std::vector<char> recorded_;     // per rank: recorded here as a lifeline thief
  std::deque<int> thieves_;        // the recorded thieves, oldest first
  std::uint32_t random_left_ = 0;  // random attempts left before the lifelines
  bool starts_dormant_ = false;
  RankStats stats_;
};

}  // namespace uts::distrib
