#include "distrib/agent.hpp"

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "base/clock.hpp"
#include "base/rng.hpp"
#include "distrib/safra.hpp"
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
        ring_(rank_, ranks_),
        rng_(Rng::mix(static_cast<std::uint64_t>(rank_) + 1) ^ static_cast<std::uint64_t>(ranks_)),
        last_count_(Clock::now()),
        counts_(static_cast<std::size_t>(ranks_), 0) {}

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  RankStats stats() const override {
    RankStats s = stats_;
    s.tokens_passed = ring_.tokens_passed();
    return s;
  }

  void poll_busy(LinkHost& host) override {
    receive_all(host, false);
    housekeeping(host);
  }

  bool poll_idle(LinkHost& host, bool dry) override {
    const std::uint64_t before = stats_.steals;
    receive_all(host, true);
    if (stats_.steals != before) return true;  // nodes arrived: take() made thread 0 busy
    housekeeping(host);
    if (finished_ || host.stop_raised()) return false;
    if (!outstanding_ && dry && settings_.stealing) send_request(host);
    if (ring_.holds_token() && host.quiescent()) on_passive_with_token(host);
    return false;
  }

  void close(LinkHost& host) override {
    closing_ = true;
    housekeeping(host);  // announces a local stop to the other ranks
    bool joined = false;
    for (;;) {
      receive_all(host, true);
      if (!joined && !outstanding_ && net_->sends_complete()) {
        net_->join_barrier();
        joined = true;
      }
      if (joined && net_->barrier_complete() && net_->sends_complete()) break;
      std::this_thread::sleep_for(kClosingNap);
    }
  }

 private:
  // Every message that has arrived. `idle`: thread 0 holds no nodes (or the
  // run is closing), so requests are refused.
  void receive_all(LinkHost& host, bool idle) {
    while (std::optional<Message> m = net_->receive()) {
      switch (m->tag) {
        case Tag::request: answer(host, m->source, idle); break;
        case Tag::answer: on_answer(host, m->source, m->bytes); break;
        case Tag::token: ring_.token_arrived(wire::to_token(m->bytes)); break;
        case Tag::done:
          finished_ = true;
          host.finish();
          break;
        case Tag::stop: {
          const auto why = wire::to_value<wire::StopNotice>(m->bytes);
          stop_heard_ = true;
          host.stop(static_cast<RunStatus>(why.status), why.signal);
          break;
        }
        case Tag::count: counts_[static_cast<std::size_t>(m->source)] = wire::to_value<std::uint64_t>(m->bytes); break;
        default:
          std::fprintf(stderr, "uts: rank %d: unexpected message tag %d from rank %d\n", rank_,
                       static_cast<int>(m->tag), m->source);
          net_->abort(3);
      }
    }
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
      ring_.sent_basic();  // counted before it can be received
    }
    net_->send(thief, Tag::answer, wire::of_nodes(give_));
    host.note_global(TraceEvent::request_answered, thief, static_cast<std::uint32_t>(give_.size()));
  }

  void on_answer(LinkHost& host, int from, const std::vector<char>& bytes) {
    outstanding_ = false;
    stats_.request_wait_seconds += seconds_since(request_sent_);
    std::size_t n = 0;
    if (!wire::node_count(bytes, n)) {
      std::fprintf(stderr, "uts: rank %d: an answer of %zu bytes is not whole nodes\n", rank_, bytes.size());
      net_->abort(3);
    }
    if (n == 0) {
      ++stats_.refusals;
      host.note_global(TraceEvent::refusal_received, from, 0);
      return;
    }
    host.note_global(TraceEvent::answer_received, from, static_cast<std::uint32_t>(n));
    ring_.received_basic();
    if (finished_) {
      // The termination algorithm says no node can be in flight after DONE.
      std::fprintf(stderr, "uts: rank %d: %zu nodes arrived after termination (a bug: nodes lost)\n", rank_, n);
      net_->abort(3);
    }
    ++stats_.steals;  // counted even when dropped below, so the ranks' statistics balance
    stats_.nodes_received += n;
    if (closing_) return;  // a stopped run: the partial counts stay partial
    wire::to_nodes(bytes, arrived_);
    host.take(arrived_.data(), arrived_.size());
  }

  void send_request(LinkHost& host) {
    // A random other rank.
    int victim = static_cast<int>(rng_.below(static_cast<std::uint64_t>(ranks_ - 1)));
    if (victim >= rank_) ++victim;
    outstanding_ = true;
    ++stats_.requests_sent;
    request_sent_ = Clock::now();
    net_->send(victim, Tag::request, {});
    host.note_global(TraceEvent::request_sent, victim, 0);
  }

  // This rank is passive and holds the token (SafraRing decides).
  void on_passive_with_token(LinkHost& host) {
    const SafraRing::Action a = ring_.on_passive();
    if (a.kind == SafraRing::Action::pass) {
      net_->send(a.to, Tag::token, wire::of_token(a.token));
      host.note_global(TraceEvent::token, a.to, 0);
    } else if (a.kind == SafraRing::Action::conclude) {
      finished_ = true;
      for (int r = 1; r < ranks_; ++r) net_->send(r, Tag::done, {});
      host.finish();
    }
  }

  void housekeeping(LinkHost& host) {
    if (host.stop_raised() && !stop_told_ && !stop_heard_) {
      stop_told_ = true;
      const wire::StopNotice why{static_cast<int>(host.stop_reason()), host.stop_signal()};
      for (int r = 0; r < ranks_; ++r)
        if (r != rank_) net_->send(r, Tag::stop, wire::of_value(why));
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
      net_->send(0, Tag::count, wire::of_value(host.nodes_so_far()));
    }
  }

  std::unique_ptr<Transport> net_;
  const EngineSettings& settings_;
  const StopRule& stop_;
  int rank_, ranks_;
  SafraRing ring_;
  Rng rng_;
  bool outstanding_ = false;  // our request awaits its answer
  bool finished_ = false;     // DONE sent or received
  bool closing_ = false;
  bool stop_told_ = false, stop_heard_ = false;
  Clock::time_point request_sent_, last_count_;
  std::vector<std::uint64_t> counts_;  // rank 0, --max-nodes: each rank's last COUNT
  std::vector<Node> give_, arrived_;
  RankStats stats_;
};

}  // namespace

std::unique_ptr<RemoteLink> make_rank_agent(std::unique_ptr<Transport> transport, const EngineSettings& settings,
                                            const StopRule& stop) {
  return std::make_unique<RankAgent>(std::move(transport), settings, stop);
}

}  // namespace uts::distrib
