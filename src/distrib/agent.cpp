// The rank agent: its parts composed, and its one state machine
// (agent.hpp; the phase diagram in README.md).
#include "distrib/agent.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "base/nap.hpp"
#include "distrib/wire.hpp"
#include "tree/node.hpp"

namespace uts::distrib {

namespace {
constexpr auto kClosingNap = std::chrono::microseconds(20);
}  // namespace

RankAgent::RankAgent(std::unique_ptr<Transport> transport, const EngineSettings& settings, const StopRule& stop)
    : channel_(std::move(transport)),
      termination_(make_termination(settings.ranks.termination, channel_)),
      steal_(channel_, *termination_, settings),
      stop_(channel_, stop),
      closing_(channel_),
      stealing_(settings.stealing),
      lifeline_(settings.ranks.steal == RankSteal::lifeline && settings.stealing),
      most_nodes_(settings.ranks.chunk),
      largest_message_(std::max<std::size_t>(std::size_t{settings.ranks.chunk} * sizeof(Node), 256)),
      poll_(settings.ranks.poll, settings.ranks.poll_max) {}

RankStats RankAgent::stats() const {
  RankStats s = steal_.stats();
  s.tokens_passed = termination_->tokens_passed();
  s.waves = termination_->waves();
  s.dormant_seconds = dormant_seconds_;
  return s;
}

void RankAgent::enter(AgentPhase next) {
  if (!allowed(phase_, next))
    channel_.fail("the agent went from " + std::string(to_string(phase_)) + " to " + std::string(to_string(next)) +
                  " (a bug)");
  if (phase_ == AgentPhase::dormant) dormant_seconds_ += seconds_since(dormant_since_);
  if (next == AgentPhase::dormant) dormant_since_ = Clock::now();
  if (next == AgentPhase::released) closing_.release_children();
  phase_ = next;
}

void RankAgent::start() {
  if (phase_ == AgentPhase::starting) enter(steal_.starts_dormant() ? AgentPhase::dormant : AgentPhase::working);
}

void RankAgent::wake() {
  if (phase_ == AgentPhase::dormant) enter(AgentPhase::working);
  steal_.rearm();
}

void RankAgent::on_done(LinkHost& host) {
  if (running(phase_)) enter(AgentPhase::finished);  // a closing rank stays closing
  host.finish();
}

std::uint32_t RankAgent::poll_busy(LinkHost& host) {
  start();
  receive_all(host, false);
  if (lifeline_) wake();  // thread 0 works (nodes arrived, or it found work in its own rank)
  steal_.push_to_thieves(host);
  stop_.step(host, running(phase_));
  // The interval stays at its shortest while another rank has asked since
  // the last busy poll (idle polls included: they refuse or record, and the
  // asker waits for nodes), while a lifeline thief waits for nodes thread 0
  // could not spare yet, and while --max-nodes counts (a COUNT is due every
  // millisecond; a long interval would let the run overshoot).
  const RankStats& s = steal_.stats();
  const std::uint64_t asked = s.requests_received + s.lifeline_requests_received;
  const bool keep_short = asked != asked_at_busy_poll_ || steal_.has_thieves() || stop_.counts();
  asked_at_busy_poll_ = asked;
  return poll_.next(keep_short);
}

bool RankAgent::poll_idle(LinkHost& host, bool dry) {
  start();
  auto arrivals = [this] { return steal_.stats().steals + steal_.stats().pushes_received; };
  const std::uint64_t before = arrivals();
  receive_all(host, true);
  if (arrivals() != before) return true;  // nodes arrived: take() made thread 0 busy
  stop_.step(host, running(phase_));
  if (!running(phase_) || host.stop_raised()) return false;
  if (phase_ == AgentPhase::working && dry && stealing_ && !steal_.outstanding() && steal_.seek(host))
    enter(AgentPhase::dormant);
  if (termination_->wants_passive() && host.quiescent() && termination_->on_passive(host)) on_done(host);
  return false;
}

bool RankAgent::wait_idle(LinkHost& host) {
  if (!running(phase_) || host.stop_raised() || stop_.counts()) return false;
  if (stealing_ && !steal_.outstanding() && phase_ != AgentPhase::dormant) return false;  // would send a request
  if (termination_->wants_passive()) return false;                                  // would take a termination step
  return channel_.wait_for_message(largest_message_);
}

void RankAgent::close(LinkHost& host) {
  begin_close(host);
  while (!close_step(host)) nap(kClosingNap);
}

void RankAgent::begin_close(LinkHost& host) {
  enter(AgentPhase::closing);
  stop_.step(host, false);  // announces a local stop to the other ranks
}

bool RankAgent::close_step(LinkHost& host) {
  receive_all(host, true);
  // A closing rank is passive in the closing waves' sense: from here it
  // sends only answers (refusals), each to a request it has received.
  if (phase_ == AgentPhase::closing && closing_.wants_step() && closing_.step(host)) enter(AgentPhase::released);
  if (phase_ == AgentPhase::released && channel_.sends_complete()) {  // the RELEASEs too (matched, or buffered under SMPI)
    enter(AgentPhase::left);
    return true;
  }
  return false;
}

void RankAgent::receive_all(LinkHost& host, bool idle) {
  while (std::optional<Message> m = channel_.receive()) {
    // The one door for another process's bytes: a message of the wrong size
    // or with a value no rank sends is refused here, so the parts below
    // decode only well-formed messages (wire.hpp says each layout).
    if (!wire::well_formed(m->tag, m->bytes, most_nodes_))
      channel_.protocol_error("a malformed message (tag " + std::to_string(static_cast<int>(m->tag)) + ", " +
                                  std::to_string(m->bytes.size()) + " bytes)",
                              m->source);
    switch (m->tag) {
      case Tag::request: steal_.answer(host, m->source, !idle && !closing(phase_) && !host.stop_raised()); break;
      case Tag::answer: on_nodes(host, *m, false); break;
      case Tag::push: on_nodes(host, *m, true); break;
      case Tag::lifeline: steal_.on_lifeline(m->source); break;
      case Tag::token:
      case Tag::wave:
      case Tag::report:
      case Tag::done:
        if (termination_->on_message(host, *m, !closing(phase_))) on_done(host);
        break;
      case Tag::stop: stop_.on_stop(host, *m); break;
      case Tag::count: stop_.on_count(*m); break;
      case Tag::close_wave:
      case Tag::close_report: closing_.on_message(host, *m); break;
      case Tag::release:
        closing_.on_release(*m, phase_ == AgentPhase::closing);
        enter(AgentPhase::released);
        break;
      default:
        channel_.protocol_error("an unexpected message tag " + std::to_string(static_cast<int>(m->tag)), m->source);
    }
  }
}

// An answer to our random request (`push` false) or nodes a buddy pushed
// down our lifeline (`push` true).
void RankAgent::on_nodes(LinkHost& host, const Message& m, bool push) {
  if (steal_.on_nodes(host, m, push) == 0) return;  // a refusal
  wake();
  if (closing(phase_)) return;  // a stopped run: the partial counts stay partial
  steal_.take(host, m);
}

std::unique_ptr<RemoteLink> make_rank_agent(std::unique_ptr<Transport> transport, const EngineSettings& settings,
                                            const StopRule& stop) {
  return std::make_unique<RankAgent>(std::move(transport), settings, stop);
}

}  // namespace uts::distrib
