#include "distrib/agent.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.hpp"
#include "base/nap.hpp"
#include "base/rng.hpp"
#include "base/tick.hpp"
#include "distrib/lifeline.hpp"
#include "distrib/safra.hpp"
#include "distrib/waves.hpp"
#include "distrib/wire.hpp"

namespace uts::distrib {

namespace {

constexpr auto kCountInterval = std::chrono::milliseconds(1);  // --max-nodes: COUNT messages at most this often
constexpr auto kClosingNap = std::chrono::microseconds(20);

class RankAgent final : public RemoteLink {
 public:
  RankAgent(std::unique_ptr<Transport> transport, const EngineSettings& settings, const StopRule& stop)
      : net_(std::move(transport)),
        settings_(settings),
        stop_(stop),
        rank_(net_->rank()),
        ranks_(net_->ranks()),
        tree_(settings.ranks.termination == RankTermination::tree),
        lifeline_(settings.ranks.steal == RankSteal::lifeline && settings.stealing),
        ring_(rank_, ranks_),
        waves_(rank_, ranks_),
        closing_waves_(rank_, ranks_),
        rng_(Rng::mix(static_cast<std::uint64_t>(rank_) + 1) ^ static_cast<std::uint64_t>(ranks_)),
        last_count_(Clock::now()),
        counts_(static_cast<std::size_t>(ranks_), 0) {
    if (!lifeline_) return;
    const int l = static_cast<int>(settings.ranks.l);
    buddies_ = lifelines_of(rank_, ranks_, l);
    armed_.assign(buddies_.size(), false);
    recorded_.assign(static_cast<std::size_t>(ranks_), 0);
    random_left_ = settings.ranks.w;
    if (settings.init == InitSpread::root) {
      // GLB's start: every rank but 0 begins as a lifeline thief of all its
      // buddies, registered without a message (both sides know the graph),
      // and dormant. Rank 0's nodes then fan out down the lifeline graph,
      // each rank pushing to its thieves at its first poll with work,
      // instead of every rank polling random victims at once.
      if (rank_ != 0) {
        armed_.assign(buddies_.size(), true);
        dormant_ = true;  // from the run's start: the first poll sets dormant_since_
      }
      for (int h : lifeline_thieves_of(rank_, ranks_, l))
        if (h != 0) record_thief(h);
    }
  }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  RankStats stats() const override {
    RankStats s = stats_;
    s.tokens_passed = ring_.tokens_passed();
    s.waves = waves_.waves();
    return s;
  }

  void poll_busy(LinkHost& host) override {
    started();
    receive_all(host, false);
    if (lifeline_) wake();  // thread 0 works (nodes arrived, or it found work in its own rank)
    if (!thieves_.empty()) push_to_thieves(host);
    housekeeping(host);
  }

  bool poll_idle(LinkHost& host, bool dry) override {
    started();
    const std::uint64_t before = stats_.steals + stats_.pushes_received;
    receive_all(host, true);
    if (stats_.steals + stats_.pushes_received != before) return true;  // nodes arrived: take() made thread 0 busy
    housekeeping(host);
    if (finished_ || host.stop_raised()) return false;
    if (!outstanding_ && dry && settings_.stealing) seek_work(host);
    if (tree_) {
      if (waves_.wants_passive() && host.quiescent()) on_passive_waves(host);
    } else if (ring_.holds_token() && host.quiescent()) {
      on_passive_with_token(host);
    }
    return false;
  }

  // Only when this rank would send nothing before a message arrives: it
  // waits for an answer or is dormant, has no termination step to take,
  // and no --max-nodes count to send (the stopped and closing paths nap).
  // Right after poll_idle, which has taken every step it could.
  bool wait_idle(LinkHost& host) override {
    if (finished_ || closing_ || host.stop_raised() || stop_.max_nodes != 0) return false;
    if (settings_.stealing && !outstanding_ && !dormant_) return false;  // would send a request
    if (tree_ ? waves_.wants_passive() : ring_.holds_token()) return false;  // would take a termination step
    const std::size_t largest = std::max<std::size_t>(std::size_t{settings_.ranks.chunk} * sizeof(Node), 256);
    return net_->wait_for_message(largest);
  }

  // Closing (agent.hpp): four-counter waves over the tree of ranks, counting
  // every message of the job but their own, until two waves agree that
  // everything sent has been received; then RELEASE goes down the tree.
  void close(LinkHost& host) override {
    closing_ = true;
    if (dormant_) wake();  // the dormant time ends with the run
    housekeeping(host);    // announces a local stop to the other ranks
    bool forwarded = false;
    for (;;) {
      receive_all(host, true);
      // A closing rank is passive in the closing waves' sense: from here it
      // sends only answers (refusals), each to a request it has received.
      if (!released_ && closing_waves_.wants_passive()) on_closing_passive();
      if (released_) {
        if (!forwarded) {
          for (int c : closing_waves_.children()) net_->send(c, Tag::release, {});
          forwarded = true;
        }
        if (net_->sends_complete()) break;  // the RELEASEs too (matched, or buffered under SMPI)
      }
      nap(kClosingNap);
    }
  }

 private:
  // Every message that has arrived. `idle`: thread 0 holds no nodes (or the
  // run is closing), so requests are refused.
  void receive_all(LinkHost& host, bool idle) {
    while (std::optional<Message> m = net_->receive()) {
      if (!closing_tag(m->tag)) closing_waves_.received_basic();
      switch (m->tag) {
        case Tag::request: answer(host, m->source, idle); break;
        case Tag::answer: on_nodes(host, m->source, m->bytes, false); break;
        case Tag::push: on_nodes(host, m->source, m->bytes, true); break;
        case Tag::lifeline:
          if (!lifeline_) protocol_error("a lifeline request without --rank-steal lifeline", m->source);
          ++stats_.lifeline_requests_received;
          record_thief(m->source);
          break;
        case Tag::token:
          if (tree_) protocol_error("a token with --rank-termination tree", m->source);
          ring_.token_arrived(wire::to_token(m->bytes));
          break;
        case Tag::wave: on_wave(host, m->source, m->bytes); break;
        case Tag::report: on_report(m->source, m->bytes); break;
        case Tag::done:
          finished_ = true;
          // Down the tree: each rank tells its children. Not while closing:
          // a rank closes before DONE only in a stopped run, where STOP
          // reached every rank directly, and a closing rank sends only
          // answers (agent.hpp, closing).
          if (tree_ && !closing_)
            for (int c : waves_.children()) post(c, Tag::done, {});
          host.finish();
          break;
        case Tag::stop: {
          const auto why = wire::to_value<wire::StopNotice>(m->bytes);
          stop_heard_ = true;
          host.stop(static_cast<RunStatus>(why.status), why.signal);
          break;
        }
        case Tag::count: counts_[static_cast<std::size_t>(m->source)] = wire::to_value<std::uint64_t>(m->bytes); break;
        case Tag::close_wave: on_closing_wave(m->source, m->bytes); break;
        case Tag::close_report: {
          if (m->bytes.size() != sizeof(wire::Report) || wave_parent(m->source) != rank_)
            protocol_error("an unexpected closing report", m->source);
          const auto r = wire::to_value<wire::Report>(m->bytes);
          if (!closing_waves_.report_arrived(r.wave, {r.sent, r.received}))
            protocol_error("a closing report of wave " + std::to_string(r.wave) + " not open here", m->source);
          break;
        }
        case Tag::release:
          if (m->source != wave_parent(rank_) || !closing_) protocol_error("an unexpected RELEASE", m->source);
          released_ = true;
          break;
        default: protocol_error("an unexpected message tag " + std::to_string(static_cast<int>(m->tag)), m->source);
      }
    }
  }

  // The closing waves' own messages are the only ones they do not count.
  static bool closing_tag(Tag t) { return t == Tag::close_wave || t == Tag::close_report || t == Tag::release; }
  // Every other message goes through here: counted as sent before it can
  // be received, as the four-counter argument needs (waves.hpp).
  void post(int to, Tag tag, std::vector<char> bytes) {
    closing_waves_.sent_basic();
    net_->send(to, tag, std::move(bytes));
  }

  // A closing WAVE goes on to the children at once, closing or not.
  void on_closing_wave(int from, const std::vector<char>& bytes) {
    if (bytes.size() != sizeof(std::uint64_t) || from != wave_parent(rank_))
      protocol_error("an unexpected closing wave", from);
    const auto k = wire::to_value<std::uint64_t>(bytes);
    if (!closing_waves_.wave_arrived(k)) protocol_error("closing wave " + std::to_string(k) + " out of order", from);
    for (int c : closing_waves_.children()) net_->send(c, Tag::close_wave, wire::of_value(k));
  }
  void on_closing_passive() {
    const FourCounterWaves::Action a = closing_waves_.on_passive();
    switch (a.kind) {
      case FourCounterWaves::Action::start:
        for (int c : closing_waves_.children()) net_->send(c, Tag::close_wave, wire::of_value(a.wave));
        break;
      case FourCounterWaves::Action::report:
        net_->send(wave_parent(rank_), Tag::close_report, wire::of_report(a.wave, a.sums));
        break;
      case FourCounterWaves::Action::conclude: released_ = true; break;
      case FourCounterWaves::Action::none: break;
    }
  }

  [[noreturn]] void protocol_error(const std::string& what, int from) {
    std::fprintf(stderr, "uts: rank %d: %s from rank %d (a bug)\n", rank_, what.c_str(), from);
    net_->abort(3);
    std::_Exit(3);  // abort() does not return; said again for the compiler
  }

  void sent_basic() {  // counted before the message can be received
    if (tree_) waves_.sent_basic();
    else ring_.sent_basic();
  }
  void received_basic() {
    if (tree_) waves_.received_basic();
    else ring_.received_basic();
  }

  void answer(LinkHost& host, int thief, bool idle) {
    ++stats_.requests_received;
    give_.clear();
    if (!idle && !closing_ && !host.stop_raised()) host.give(settings_.ranks.chunk, give_);
    if (give_.empty()) {
      ++stats_.requests_refused;
    } else {
      ++stats_.requests_answered;
      stats_.nodes_sent += give_.size();
      sent_basic();
    }
    post(thief, Tag::answer, wire::of_nodes(give_));
    host.note_global(TraceEvent::request_answered, thief, static_cast<std::uint32_t>(give_.size()));
  }

  // An answer to our random request (`push` false) or nodes a buddy pushed
  // down our lifeline (`push` true).
  void on_nodes(LinkHost& host, int from, const std::vector<char>& bytes, bool push) {
    std::size_t n = 0;
    if (!wire::node_count(bytes, n)) {
      std::fprintf(stderr, "uts: rank %d: %zu bytes from rank %d are not whole nodes\n", rank_, bytes.size(), from);
      net_->abort(3);
    }
    if (push) {
      if (!lifeline_ || n == 0) protocol_error("an unexpected lifeline push", from);
      for (std::size_t j = 0; j < buddies_.size(); ++j)
        if (buddies_[j] == from) armed_[j] = false;  // the buddy forgot us: ask again next time
    } else {
      if (!outstanding_) protocol_error("an answer to no request", from);
      outstanding_ = false;
      stats_.request_wait_seconds += seconds_since(request_sent_);
      if (n == 0) {
        ++stats_.refusals;
        host.note_global(TraceEvent::refusal_received, from, 0);
        return;
      }
    }
    host.note_global(push ? TraceEvent::push_received : TraceEvent::answer_received, from,
                     static_cast<std::uint32_t>(n));
    received_basic();
    if (finished_) {
      // The termination algorithm says no node can be in flight after DONE.
      std::fprintf(stderr, "uts: rank %d: %zu nodes arrived after termination (a bug: nodes lost)\n", rank_, n);
      net_->abort(3);
    }
    if (stats_.first_nodes_tick == 0) stats_.first_nodes_tick = tick::now();
    // Counted even when dropped below, so the ranks' statistics balance.
    if (push) {
      ++stats_.pushes_received;
      stats_.push_nodes_received += n;
    } else {
      ++stats_.steals;
      stats_.nodes_received += n;
    }
    wake();
    if (closing_) return;  // a stopped run: the partial counts stay partial
    wire::to_nodes(bytes, arrived_);
    host.take(arrived_.data(), arrived_.size());
  }

  // Thread 0 is dry (its own rank has nothing to steal) and no request of
  // ours is out. Random: ask a random rank, every time. Lifeline: --rank-w
  // random requests, then one lifeline request to each buddy not already
  // asked, then dormant (nothing more is sent) until nodes arrive.
  void seek_work(LinkHost& host) {
    if (!lifeline_) return send_request(host);
    if (dormant_) return;
    if (random_left_ > 0) {
      --random_left_;
      return send_request(host);
    }
    for (std::size_t j = 0; j < buddies_.size(); ++j) {
      if (armed_[j]) continue;
      armed_[j] = true;
      ++stats_.lifeline_requests_sent;
      post(buddies_[j], Tag::lifeline, {});
      host.note_global(TraceEvent::lifeline_sent, buddies_[j], 0);
    }
    dormant_ = true;
    dormant_since_ = Clock::now();
  }

  void send_request(LinkHost& host) {
    // A random other rank.
    int victim = static_cast<int>(rng_.below(static_cast<std::uint64_t>(ranks_ - 1)));
    if (victim >= rank_) ++victim;
    outstanding_ = true;
    ++stats_.requests_sent;
    request_sent_ = Clock::now();
    post(victim, Tag::request, {});
    host.note_global(TraceEvent::request_sent, victim, 0);
  }

  // The run has started (the agent is made before the start barrier): a
  // rank dormant from the start counts its dormant time from here.
  void started() {
    if (started_) return;
    started_ = true;
    dormant_since_ = Clock::now();
  }

  // Nodes arrived, or thread 0 found work in its rank: awake, and the next
  // time it runs dry it makes its --rank-w random attempts again.
  void wake() {
    if (dormant_ && started_) stats_.dormant_seconds += seconds_since(dormant_since_);
    dormant_ = false;
    random_left_ = settings_.ranks.w;
  }

  // A lifeline request (or the initial registration): thief `h` is owed
  // nodes; never refused, each thief recorded once until it is served.
  void record_thief(int h) {
    if (recorded_[static_cast<std::size_t>(h)]) return;
    recorded_[static_cast<std::size_t>(h)] = 1;
    thieves_.push_back(h);
  }

  // Thread 0 works: serve the recorded lifeline thieves, oldest first, each
  // with half of thread 0's nodes (the shallowest, at most --rank-chunk),
  // for as long as it has more than one node.
  void push_to_thieves(LinkHost& host) {
    while (!thieves_.empty() && !closing_ && !host.stop_raised()) {
      give_.clear();
      if (host.give(settings_.ranks.chunk, give_) == 0) return;
      const int h = thieves_.front();
      thieves_.pop_front();
      recorded_[static_cast<std::size_t>(h)] = 0;
      ++stats_.pushes_sent;
      stats_.push_nodes_sent += give_.size();
      sent_basic();
      post(h, Tag::push, wire::of_nodes(give_));
      host.note_global(TraceEvent::push_sent, h, static_cast<std::uint32_t>(give_.size()));
    }
  }

  // This rank is passive and holds the token (SafraRing decides).
  void on_passive_with_token(LinkHost& host) {
    const SafraRing::Action a = ring_.on_passive();
    if (a.kind == SafraRing::Action::pass) {
      post(a.to, Tag::token, wire::of_token(a.token));
      host.note_global(TraceEvent::token, a.to, 0);
    } else if (a.kind == SafraRing::Action::conclude) {
      finished_ = true;
      for (int r = 1; r < ranks_; ++r) post(r, Tag::done, {});
      host.finish();
    }
  }

  // --rank-termination tree: a WAVE from the parent goes on to the children
  // at once, busy or not.
  void on_wave(LinkHost& host, int from, const std::vector<char>& bytes) {
    if (!tree_ || bytes.size() != sizeof(std::uint64_t) || from != wave_parent(rank_))
      protocol_error("an unexpected wave", from);
    const auto k = wire::to_value<std::uint64_t>(bytes);
    if (!waves_.wave_arrived(k)) protocol_error("wave " + std::to_string(k) + " out of order", from);
    if (closing_) return;  // a stopped run: no wave completes, and a closing rank sends only answers (see DONE)
    for (int c : waves_.children()) {
      post(c, Tag::wave, wire::of_value(k));
      host.note_global(TraceEvent::wave, c, 0);
    }
  }
  void on_report(int from, const std::vector<char>& bytes) {
    if (!tree_ || bytes.size() != sizeof(wire::Report) || wave_parent(from) != rank_)
      protocol_error("an unexpected wave report", from);
    const auto r = wire::to_value<wire::Report>(bytes);
    if (!waves_.report_arrived(r.wave, {r.sent, r.received}))
      protocol_error("a report of wave " + std::to_string(r.wave) + " not open here", from);
  }
  // This rank is passive: report the open wave up, or (rank 0) start,
  // complete, conclude (FourCounterWaves decides).
  void on_passive_waves(LinkHost& host) {
    const FourCounterWaves::Action a = waves_.on_passive();
    switch (a.kind) {
      case FourCounterWaves::Action::start:
        for (int c : waves_.children()) {
          post(c, Tag::wave, wire::of_value(a.wave));
          host.note_global(TraceEvent::wave, c, 0);
        }
        break;
      case FourCounterWaves::Action::report:
        post(wave_parent(rank_), Tag::report, wire::of_report(a.wave, a.sums));
        host.note_global(TraceEvent::wave, wave_parent(rank_), 0);
        break;
      case FourCounterWaves::Action::conclude:
        finished_ = true;
        for (int c : waves_.children()) post(c, Tag::done, {});
        host.finish();
        break;
      case FourCounterWaves::Action::none: break;
    }
  }

  void housekeeping(LinkHost& host) {
    if (host.stop_raised() && !stop_told_ && !stop_heard_) {
      stop_told_ = true;
      const wire::StopNotice why{static_cast<int>(host.stop_reason()), host.stop_signal()};
      for (int r = 0; r < ranks_; ++r)
        if (r != rank_) post(r, Tag::stop, wire::of_value(why));
    }
    if (stop_.max_nodes == 0 || host.stop_raised() || closing_ || finished_) return;
    if (rank_ == 0) {
      std::uint64_t total = host.nodes_so_far();
      for (int r = 1; r < ranks_; ++r) total += counts_[static_cast<std::size_t>(r)];
      if (total >= stop_.max_nodes) host.stop(RunStatus::max_nodes);
      return;
    }
    const auto now = Clock::now();
    if (now - last_count_ >= kCountInterval) {
      last_count_ = now;
      post(0, Tag::count, wire::of_value(host.nodes_so_far()));
    }
  }

  std::unique_ptr<Transport> net_;
  const EngineSettings& settings_;
  const StopRule& stop_;
  int rank_, ranks_;
  bool tree_, lifeline_;
  SafraRing ring_;          // --rank-termination ring
  FourCounterWaves waves_;  // --rank-termination tree
  FourCounterWaves closing_waves_;  // close(): every message but their own counted
  Rng rng_;
  bool outstanding_ = false;  // our random request awaits its answer
  bool finished_ = false;     // DONE sent or received
  bool closing_ = false;
  bool released_ = false;  // closing: RELEASE received (or concluded, rank 0)
  bool stop_told_ = false, stop_heard_ = false;
  Clock::time_point request_sent_, last_count_;
  std::vector<std::uint64_t> counts_;  // rank 0, --max-nodes: each rank's last COUNT
  std::vector<Node> give_, arrived_;
  // --rank-steal lifeline
  std::vector<int> buddies_;       // this rank's lifelines (lifeline.hpp)
  std::vector<char> armed_;        // per buddy: asked (or registered at the start) and not yet served
  std::vector<char> recorded_;     // per rank: recorded here as a lifeline thief
  std::deque<int> thieves_;        // the recorded thieves, oldest first
  std::uint32_t random_left_ = 0;  // random attempts left before the lifelines
  bool dormant_ = false;           // dry with its lifelines armed: sends nothing
  bool started_ = false;           // polled at least once (the run has started)
  Clock::time_point dormant_since_;
  RankStats stats_;
};

}  // namespace

std::unique_ptr<RemoteLink> make_rank_agent(std::unique_ptr<Transport> transport, const EngineSettings& settings,
                                            const StopRule& stop) {
  return std::make_unique<RankAgent>(std::move(transport), settings, stop);
}

}  // namespace uts::distrib
