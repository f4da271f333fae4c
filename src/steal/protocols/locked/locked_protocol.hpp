// Protocol `locked`: the 2003 UPC report's chunk stack (locked_stack.hpp,
// whose header holds the safety argument) as a protocol (steal/protocol.hpp).
#pragma once

#include <vector>

#include "steal/protocol.hpp"
#include "steal/protocols/locked/locked_stack.hpp"

namespace uts {

struct LockedProtocol {
  static constexpr ProtocolTraits traits{
      .name = "locked",
      .summary = "2003 UPC / uts_shm chunk stack",
      .engine_line = "locked chunk stacks",
      .default_steal = {StealAmount::chunk, 20},  // the reference's -c default
      .amounts = amount_bit(StealAmount::chunk),
      .amount_rule = "the locked stack moves whole chunks (use --steal chunk:K or -c K)",
      .default_victim = VictimOrder::linear,  // uts_shm scans the threads in order
      .counters = kShareCounters | kReclaimCounters,
      .polls = false,
  };

  struct Context {
    Context(int, const EngineSettings& settings) : chunk(settings.steal.chunk) {}
    std::uint32_t chunk;
  };

  class Deque {
   public:
    Deque(Context& ctx, int) : stack_(ctx.chunk) {}
    using Pusher = LockedStack::Pusher;
    Pusher pusher(std::uint32_t n) { return stack_.pusher(n); }
    void commit(const Pusher& p) { stack_.commit(p); }
    void push(const Node& node) { stack_.push(node); }
    bool pop(Node& out) { return stack_.pop(out); }
    bool pop_private(Node& out) { return stack_.pop_local(out); }
    std::uint64_t size() const { return stack_.size(); }
    std::uint32_t give_shallowest(std::uint32_t k, std::vector<Node>& out) {
      const std::size_t at = out.size();
      out.resize(at + k);
      const std::uint32_t n = stack_.take_shallowest(k, out.data() + at);
      out.resize(at + n);
      return n;
    }
    // Release a chunk when the local region passed 2K nodes.
    void serve_thieves() { stack_.release_surplus(); }
    // The design shares only whole chunks, past 2K local nodes: nothing to force.
    bool expose_work() { return stack_.chunks_shared() > 0; }
    bool stealable() const { return stack_.chunks_shared() > 0; }
    StealOutcome steal(Deque& victim, BusyMark& busy, const StealPolicy&, const RemoteDelay& delay) {
      // Always one chunk of K.
      if (!victim.stealable()) return {};
      busy.busy();  // before the claim can succeed
      delay();
      const std::uint32_t got = victim.stack_.steal_into(stack_);
      if (got == 0) busy.idle();
      return {true, got};
    }
    void report(ThreadStats& s) const {
      s.shares = stack_.releases();
      s.nodes_shared = stack_.nodes_released();
      s.reclaims = stack_.reacquires();
      s.nodes_reclaimed = stack_.nodes_reacquired();
    }

   private:
    LockedStack stack_;
  };
};

static_assert(StealProtocol<LockedProtocol>);

}  // namespace uts
