// --rank-termination ring: Dijkstra-Safra's token (safra.hpp, SafraRing)
// over the Channel. Rank 0 starts a round whenever it is passive with the
// token at home and concludes when the token comes back clean; DONE then
// goes from rank 0 to every rank.
#include "distrib/termination.hpp"
#include "distrib/safra.hpp"
#include "distrib/wire.hpp"
#include "run/trace.hpp"

namespace uts::distrib {

namespace {

class RingTermination final : public Termination {
 public:
  explicit RingTermination(Channel& channel) : channel_(channel), ring_(channel.rank(), channel.ranks()) {}

  bool on_message(LinkHost&, const Message& m, bool) override {
    switch (m.tag) {
      case Tag::token: ring_.token_arrived(wire::to_token(m.bytes)); return false;
      case Tag::done: conclude(); return true;  // from rank 0 to every rank: nothing to pass on
      case Tag::wave: channel_.protocol_error("an unexpected wave", m.source);
      case Tag::report: channel_.protocol_error("an unexpected wave report", m.source);
      default: channel_.protocol_error("a message of no termination", m.source);
    }
  }

  bool wants_passive() const override { return ring_.holds_token(); }

  bool on_passive(LinkHost& host) override {
    const SafraRing::Action a = ring_.on_passive();
    if (a.kind == SafraRing::Action::pass) {
      channel_.post(a.to, Tag::token, wire::of_token(a.token));
      host.note_global(TraceEvent::token, a.to, 0);
    } else if (a.kind == SafraRing::Action::conclude) {
      conclude();
      for (int r = 1; r < channel_.ranks(); ++r) channel_.post(r, Tag::done, {});
      return true;
    }
    return false;
  }

  std::uint64_t tokens_passed() const override { return ring_.tokens_passed(); }
  void sent_basic() override { ring_.sent_basic(); }
  void received_basic() override { ring_.received_basic(); }

 private:
  Channel& channel_;
  SafraRing ring_;
};

}  // namespace

std::unique_ptr<Termination> make_ring_termination(Channel& channel) {
  return std::make_unique<RingTermination>(channel);
}

}  // namespace uts::distrib
