// Protocol `split` (the default): the Lace-style split deque of
// split_deque.hpp, whose header holds the safety argument, as a protocol
// (steal/protocol.hpp).
#pragma once

#include <atomic>
#include <span>
#include <vector>

#include "base/cache_line.hpp"
#include "steal/protocol.hpp"
#include "steal/protocols/split/split_deque.hpp"

namespace uts {

struct SplitProtocol {
  static constexpr ProtocolTraits traits{
      .name = "split",
      .summary = "Lace-style split deque",
      .engine_line = "split deques",
      .default_steal = {StealAmount::half, 0},
      .amounts = kAnyAmount,
      .amount_rule = "",
      .default_victim = VictimOrder::random,
      .counters = kShareCounters | kReclaimCounters,
      .polls = false,
  };

  struct Context {
    Context(int threads, const EngineSettings&) : records(static_cast<std::size_t>(threads)) {}
    std::vector<ThiefRecord> records;  // one per thread: hazard pointer and attempt counter
  };

  class Deque {
   public:
    Deque(Context& ctx, int id)
        : deque_(std::span<ThiefRecord>(ctx.records)), me_(ctx.records[static_cast<std::size_t>(id)]) {}

    using Pusher = SplitDeque::Pusher;
    Pusher pusher(std::uint32_t n) { return deque_.pusher(n); }
    void commit(const Pusher& p) { deque_.commit(p); }
    void push(const Node& node) { deque_.push(node); }
    bool pop(Node& out) { return deque_.pop(out); }
    bool pop_private(Node& out) { return deque_.pop_private(out); }
    std::uint32_t size() const { return deque_.size(); }
    std::uint32_t give_shallowest(std::uint32_t k, std::vector<Node>& out) {
      const std::size_t at = out.size();
      out.resize(at + k);
      const std::uint32_t n = deque_.take_shallowest(k, out.data() + at);
      out.resize(at + n);
      return n;
    }
    // A thief asked: share half of the private part.
    void serve_thieves() {
      if (deque_.share_requested()) deque_.share();
    }
    bool expose_work() {
      if (deque_.shared_size() > 0) return true;
      if (deque_.private_size() >= 2) deque_.share();
      return false;  // just shared: a thief that asked takes it; wake at a later poll
    }
    // relaxed: a hint for thieves deciding whether to request a share.
    void on_dry() { has_work_.value.store(false, std::memory_order_relaxed); }
    // relaxed: as on_dry().
    void on_refilled() { has_work_.value.store(true, std::memory_order_relaxed); }

    bool stealable() const { return deque_.shared_size() > 0; }

    StealOutcome steal(Deque& victim, BusyMark& busy, const StealPolicy& amount, const RemoteDelay& delay) {
      if (amount.claim_size(victim.deque_.shared_size()) == 0) {
        // relaxed: a hint; the owner shares at its next expansion.
        if (victim.has_work_.value.load(std::memory_order_relaxed)) victim.deque_.request_share();
        return {};
      }
      busy.busy();  // before the claim can succeed
      const std::uint32_t got = victim.deque_.steal(amount, deque_, me_, delay);
      if (got == 0) busy.idle();
      return {true, got};
    }

    void report(ThreadStats& s) const {
      s.shares = deque_.shares();
      s.nodes_shared = deque_.nodes_shared();
      s.reclaims = deque_.reclaims();
      s.nodes_reclaimed = deque_.nodes_reclaimed();
    }

   private:
    SplitDeque deque_;
    ThiefRecord& me_;
    // Thieves read it to decide whether asking for a share makes sense.
    Padded<std::atomic<bool>> has_work_{true};
  };
};

static_assert(StealProtocol<SplitProtocol>);

}  // namespace uts
