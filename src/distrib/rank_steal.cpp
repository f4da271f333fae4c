// Stealing between ranks: requests, answers, lifelines and pushes
// (rank_steal.hpp).
#include "distrib/rank_steal.hpp"

#include "base/tick.hpp"
#include "distrib/lifeline.hpp"
#include "distrib/wire.hpp"
#include "run/trace.hpp"

namespace uts::distrib {

RankStealing::RankStealing(Channel& channel, Termination& termination, const EngineSettings& settings)
    : channel_(channel),
      termination_(termination),
      chunk_(settings.ranks.chunk),
      w_(settings.ranks.w),
      lifeline_(settings.ranks.steal == RankSteal::lifeline && settings.stealing),
      rng_(Rng::mix(static_cast<std::uint64_t>(channel.rank()) + 1) ^ static_cast<std::uint64_t>(channel.ranks())) {
  if (!lifeline_) return;
  const int rank = channel.rank(), ranks = channel.ranks();
  const int l = static_cast<int>(settings.ranks.l);
  buddies_ = lifelines_of(rank, ranks, l);
  armed_.assign(buddies_.size(), false);
  recorded_.assign(static_cast<std::size_t>(ranks), 0);
  random_left_ = w_;
  if (settings.init == InitSpread::root) {
    // GLB's start: rank 0's nodes fan out down the lifeline graph, each rank
    // pushing to its thieves at its first poll with work, instead of every
    // rank polling random victims at once.
    if (rank != 0) {
      armed_.assign(buddies_.size(), true);
      starts_dormant_ = true;
    }
    for (int h : lifeline_thieves_of(rank, ranks, l))
      if (h != 0) record_thief(h);
  }
}

void RankStealing::answer(LinkHost& host, int thief, bool may_give) {
  ++stats_.requests_received;
  give_.clear();
  if (may_give) host.give(chunk_, give_);
  if (give_.empty()) {
    ++stats_.requests_refused;
  } else {
    ++stats_.requests_answered;
    stats_.nodes_sent += give_.size();
    termination_.sent_basic();
  }
  channel_.post(thief, Tag::answer, wire::of_nodes(give_));
  host.note_global(TraceEvent::request_answered, thief, static_cast<std::uint32_t>(give_.size()));
}

void RankStealing::on_lifeline(int thief) {
  if (!lifeline_) channel_.protocol_error("a lifeline request without --rank-steal lifeline", thief);
  ++stats_.lifeline_requests_received;
  record_thief(thief);
}

std::size_t RankStealing::on_nodes(LinkHost& host, const Message& m, bool push) {
  const int from = m.source;
  std::size_t n = 0;
  if (!wire::node_count(m.bytes, n))
    channel_.fail(std::to_string(m.bytes.size()) + " bytes from rank " + std::to_string(from) + " are not whole nodes");
  if (push) {
    if (!lifeline_ || n == 0) channel_.protocol_error("an unexpected lifeline push", from);
    for (std::size_t j = 0; j < buddies_.size(); ++j)
      if (buddies_[j] == from) armed_[j] = false;  // the buddy forgot us: ask again next time
  } else {
    if (!outstanding_) channel_.protocol_error("an answer to no request", from);
    outstanding_ = false;
    stats_.request_wait_seconds += seconds_since(request_sent_);
    if (n == 0) {
      ++stats_.refusals;
      host.note_global(TraceEvent::refusal_received, from, 0);
      return 0;
    }
  }
  host.note_global(push ? TraceEvent::push_received : TraceEvent::answer_received, from,
                   static_cast<std::uint32_t>(n));
  termination_.received_basic();
  // The termination algorithms say no node can be in flight after DONE.
  if (termination_.concluded())
    channel_.fail(std::to_string(n) + " nodes arrived after termination (a bug: nodes lost)");
  if (stats_.first_nodes_tick == 0) stats_.first_nodes_tick = tick::now();
  // Counted even when the agent drops them (a stopped run closing), so the
  // ranks' statistics balance.
  if (push) {
    ++stats_.pushes_received;
    stats_.push_nodes_received += n;
  } else {
    ++stats_.steals;
    stats_.nodes_received += n;
  }
  return n;
}

void RankStealing::take(LinkHost& host, const Message& m) {
  wire::to_nodes(m.bytes, arrived_);
  host.take(arrived_.data(), arrived_.size());
}

bool RankStealing::seek(LinkHost& host) {
  if (!lifeline_) {
    send_request(host);
    return false;
  }
  if (random_left_ > 0) {
    --random_left_;
    send_request(host);
    return false;
  }
  for (std::size_t j = 0; j < buddies_.size(); ++j) {
    if (armed_[j]) continue;
    armed_[j] = true;
    ++stats_.lifeline_requests_sent;
    channel_.post(buddies_[j], Tag::lifeline, {});
    host.note_global(TraceEvent::lifeline_sent, buddies_[j], 0);
  }
  return true;
}

void RankStealing::send_request(LinkHost& host) {
  // A random other rank.
  const int rank = channel_.rank();
  int victim = static_cast<int>(rng_.below(static_cast<std::uint64_t>(channel_.ranks() - 1)));
  if (victim >= rank) ++victim;
  outstanding_ = true;
  ++stats_.requests_sent;
  request_sent_ = Clock::now();
  channel_.post(victim, Tag::request, {});
  host.note_global(TraceEvent::request_sent, victim, 0);
}

void RankStealing::record_thief(int h) {
  if (recorded_[static_cast<std::size_t>(h)]) return;
  recorded_[static_cast<std::size_t>(h)] = 1;
  thieves_.push_back(h);
}

void RankStealing::push_to_thieves(LinkHost& host) {
  while (!thieves_.empty() && !host.stop_raised()) {
    give_.clear();
    if (host.give(chunk_, give_) == 0) return;
    const int h = thieves_.front();
    thieves_.pop_front();
    recorded_[static_cast<std::size_t>(h)] = 0;
    ++stats_.pushes_sent;
    stats_.push_nodes_sent += give_.size();
    termination_.sent_basic();
    channel_.post(h, Tag::push, wire::of_nodes(give_));
    host.note_global(TraceEvent::push_sent, h, static_cast<std::uint32_t>(give_.size()));
  }
}

}  // namespace uts::distrib
