// Four-counter waves over the tree of ranks with their messages: the wave
// policy of waves.hpp (FourCounterWaves) driven over the Channel. Written
// once, used twice: termination's waves (WAVE, REPORT; termination_waves.cpp)
// and closing's (CLOSE_WAVE, CLOSE_REPORT; closing.cpp), which differ only
// in their tags, in whether their own messages are counted and traced, and
// in what they count (basic messages, or every message of the job).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "distrib/channel.hpp"
#include "distrib/transport.hpp"
#include "distrib/waves.hpp"
#include "engine/remote_link.hpp"

namespace uts::distrib {

class TreeWaves {
 public:
  struct Kind {
    Tag wave, report;
    // Termination's waves are messages of the job (Channel::post: closing
    // counts them) and trace events; closing's are neither.
    bool of_the_job;
    const char* name;  // in protocol errors: "wave", "closing wave"
  };
  static constexpr Kind termination{Tag::wave, Tag::report, true, "wave"};
  static constexpr Kind closing{Tag::close_wave, Tag::close_report, false, "closing wave"};

  // `own`: where this rank's own counters are kept when not in these waves
  // (closing: the Channel's count of every message); null: the basic
  // messages counted through sent_basic() and received_basic().
  TreeWaves(Channel& channel, const Kind& kind, const FourCounterWaves::Sums* own = nullptr);

  void sent_basic() { waves_.sent_basic(); }
  void received_basic() { waves_.received_basic(); }

  // A WAVE from the parent: checked and recorded, and sent on to the
  // children at once, busy or not, when `forward` (termination's waves are
  // not forwarded by a closing rank, which sends only answers).
  void on_wave(LinkHost& host, const Message& m, bool forward);
  // A REPORT from a child: its subtree's sums, added to the open wave.
  void on_report(const Message& m);

  // on_passive() has a step to take (the caller checks passivity only then).
  bool wants_passive() const { return waves_.wants_passive(); }
  // This rank is passive: start a wave (rank 0), report the open one up, or
  // conclude. true: the waves concluded (rank 0 only).
  bool on_passive(LinkHost& host);

  const std::vector<int>& children() const { return waves_.children(); }
  std::uint64_t waves() const { return waves_.waves(); }

 private:
  void send(LinkHost& host, int to, Tag tag, std::vector<char> bytes);

  Channel& channel_;
  Kind kind_;
  const FourCounterWaves::Sums* own_;
  FourCounterWaves waves_;
  int parent_;
};

}  // namespace uts::distrib
