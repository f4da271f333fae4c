// Termination across ranks behind one interface: the rank agent counts
// basic messages, hands over the termination messages that arrive, and
// offers a step whenever its rank is passive; which algorithm runs
// (--rank-termination) is the implementation's business. Two of them:
// Dijkstra-Safra's ring (termination_ring.cpp, the rules and proof in
// safra.hpp) and Mattern's four-counter waves over the tree of ranks
// (termination_waves.cpp, waves.hpp). Both end with DONE to every rank.
#pragma once

#include <cstdint>
#include <memory>

#include "distrib/channel.hpp"
#include "distrib/transport.hpp"
#include "engine/remote_link.hpp"
#include "run/settings.hpp"

namespace uts::distrib {

class Termination {
 public:
  virtual ~Termination() = default;

  // A basic message (nodes: an answer or a push) sent, counted before it can
  // be received; and one received.
  virtual void sent_basic() = 0;
  virtual void received_basic() = 0;

  // TOKEN, WAVE, REPORT or DONE arrived. `forward`: false once the rank is
  // closing, which sends only answers (closing.hpp): a WAVE or DONE is then
  // recorded and not passed on. true: it was DONE, the job is over.
  virtual bool on_message(LinkHost& host, const Message& m, bool forward) = 0;
  // on_passive() has a step to take: the caller checks the rank's
  // passivity (LinkHost::quiescent, a double scan) only then.
  virtual bool wants_passive() const = 0;
  // The rank is passive: pass the token, report or start a wave, or
  // conclude. true: the job is over (rank 0: DONE sent).
  virtual bool on_passive(LinkHost& host) = 0;

  // DONE sent or received: no basic message can be in flight any more.
  bool concluded() const { return concluded_; }

  // For the rank's statistics: tokens passed (ring), waves started or
  // reports sent (tree).
  virtual std::uint64_t tokens_passed() const { return 0; }
  virtual std::uint64_t waves() const { return 0; }

 protected:
  // The implementations call it as DONE goes out or comes in.
  void conclude() { concluded_ = true; }

 private:
  bool concluded_ = false;
};

std::unique_ptr<Termination> make_ring_termination(Channel& channel);
std::unique_ptr<Termination> make_wave_termination(Channel& channel);
inline std::unique_ptr<Termination> make_termination(RankTermination kind, Channel& channel) {
  return kind == RankTermination::tree ? make_wave_termination(channel) : make_ring_termination(channel);
}

}  // namespace uts::distrib
