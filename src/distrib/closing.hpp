// Closing: after DONE or STOP, no message of the job left unreceived and no
// rank left waiting, whatever the send mode (MPI: synchronous; uts-smpi:
// standard, docs/smpi.md) and whatever a barrier of the MPI library
// guarantees (SimGrid 3.32's MPI_Ibarrier releases a rank once it and rank
// 0 joined).
//
// Each rank enters close() (RankAgent::close): it keeps receiving, refuses
// every request, drops nodes that can no longer matter (a stopped run), and
// sends nothing else of its own: a WAVE or DONE reaching a closing rank is
// not forwarded (a rank closes before DONE only in a stopped run, and STOP
// reached every rank directly). Over the tree of ranks, four-counter waves
// (tree_waves.hpp, the same code as termination's) count every message of
// the job except their own (CLOSE_WAVE, CLOSE_REPORT, RELEASE): the Channel
// counts a message as sent before sending it and as received when it is
// taken, and a rank reports up only from close().
//
// Why it is right. A closing rank is passive in the four-counter sense: it
// sends only an answer to a request it has just received, so one that
// receives nothing sends nothing. Rank 0 concludes when wave k's received
// total equals wave k+1's sent total; by waves.hpp's argument every rank was
// then in close() with nothing in flight, and nothing could be sent any
// more. RELEASE goes down the tree; a rank forwards it, waits until its own
// sends completed (matched, or buffered) and leaves. So every message of the
// job was received before any rank leaves. Why it ends: once every rank is
// in close(), the only messages still to be sent are the refusals of
// requests sent before; once those are received the counters stop, the
// wave under way completes and the next one agrees with it.
#pragma once

#include "distrib/channel.hpp"
#include "distrib/transport.hpp"
#include "distrib/tree_waves.hpp"
#include "engine/remote_link.hpp"

namespace uts::distrib {

class Closing {
 public:
  explicit Closing(Channel& channel);

  // CLOSE_WAVE (forwarded to the children at once, closing or not) or
  // CLOSE_REPORT, in any phase: a rank's children may close before it.
  void on_message(LinkHost& host, const Message& m);
  // RELEASE: checked to come from the parent; `in_close`: this rank is in
  // close() and not yet released (anything else is a bug).
  void on_release(const Message& m, bool in_close);

  // In close(), not yet released: a closing step to take (a closing rank
  // is always passive).
  bool wants_step() const { return waves_.wants_passive(); }
  // Take it. true: the closing waves concluded (rank 0): release the job.
  bool step(LinkHost& host) { return waves_.on_passive(host); }
  // RELEASE down the tree, once, as this rank is released.
  void release_children();

 private:
  Channel& channel_;
  TreeWaves waves_;
};

}  // namespace uts::distrib
