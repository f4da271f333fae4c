// --rank-termination tree: Mattern's four-counter waves (waves.hpp) over
// the tree of ranks (tree_waves.hpp, which closing shares). Rank 0 concludes
// when two waves agree; DONE then goes down the tree, each rank passing it
// to its children.
#include "distrib/termination.hpp"
#include "distrib/tree_waves.hpp"

namespace uts::distrib {

namespace {

class WaveTermination final : public Termination {
 public:
  explicit WaveTermination(Channel& channel) : channel_(channel), waves_(channel, TreeWaves::termination) {}

  bool on_message(LinkHost& host, const Message& m, bool forward) override {
    switch (m.tag) {
      case Tag::wave: waves_.on_wave(host, m, forward); return false;
      case Tag::report: waves_.on_report(m); return false;
      case Tag::done:
        conclude();
        if (forward) send_done();
        return true;
      case Tag::token: channel_.protocol_error("a token with --rank-termination tree", m.source);
      default: channel_.protocol_error("a message of no termination", m.source);
    }
  }

  bool wants_passive() const override { return waves_.wants_passive(); }

  bool on_passive(LinkHost& host) override {
    if (!waves_.on_passive(host)) return false;
    conclude();
    send_done();
    return true;
  }

  std::uint64_t waves() const override { return waves_.waves(); }
  void sent_basic() override { waves_.sent_basic(); }
  void received_basic() override { waves_.received_basic(); }

 private:
  void send_done() {
    for (int c : waves_.children()) channel_.post(c, Tag::done, {});
  }

  Channel& channel_;
  TreeWaves waves_;
};

}  // namespace

std::unique_ptr<Termination> make_wave_termination(Channel& channel) {
  return std::make_unique<WaveTermination>(channel);
}

}  // namespace uts::distrib
