// Protocol `chaselev`: the Chase-Lev deque with the C11 orders of Le et al.
// (chase_lev.hpp, whose header holds the safety argument) as a protocol
// (steal/protocol.hpp). Every node is stealable, one at a time: no shares,
// no reclaims, nothing to serve.
#pragma once

#include <vector>

#include "steal/protocol.hpp"
#include "steal/protocols/chaselev/chase_lev.hpp"

namespace uts {

struct ChaseLevProtocol {
  static constexpr ProtocolTraits traits{
      .name = "chaselev",
      .summary = "Chase-Lev deque",
      .engine_line = "Chase-Lev deques",
      .default_steal = {StealAmount::one, 0},
      .amounts = amount_bit(StealAmount::one),
      .amount_rule = "Chase-Lev steals the single top node (--steal one)",
      .default_victim = VictimOrder::random,
      .counters = 0,
      .polls = false,
  };

  struct Context {
    Context(int, const EngineSettings&) {}
  };

  class Deque {
   public:
    Deque(Context&, int) {}
    using Pusher = ChaseLevDeque::Pusher;
    Pusher pusher(std::uint32_t n) { return deque_.pusher(n); }
    void commit(const Pusher& p) { deque_.commit(p); }
    void push(const Node& node) { deque_.push(node); }
    bool pop(Node& out) { return deque_.pop(out); }
    std::int64_t size() const { return deque_.size_estimate(); }
    // The top node, k times, the way a thief takes it (chase_lev.hpp).
    std::uint32_t give_shallowest(std::uint32_t k, std::vector<Node>& out) {
      std::uint32_t n = 0;
      Node node;
      while (n < k) {
        const ChaseLevDeque::Steal got = deque_.steal(node);
        if (got == ChaseLevDeque::Steal::empty) break;
        if (got == ChaseLevDeque::Steal::won) {
          out.push_back(node);
          ++n;
        }
      }
      return n;
    }
    // Every node is stealable; worth waking a sleeper when more than the one
    // the owner works on next is there.
    bool expose_work() { return deque_.size_estimate() >= 2; }
    bool stealable() const { return deque_.size_estimate() > 0; }
    StealOutcome steal(Deque& victim, BusyMark& busy, const StealPolicy&, const RemoteDelay& delay) {
      // Always the top node.
      if (!victim.stealable()) return {};
      busy.busy();  // before the claim can succeed
      delay();
      Node node;
      const ChaseLevDeque::Steal got = victim.deque_.steal(node);
      if (got != ChaseLevDeque::Steal::won) {
        busy.idle();
        return {got == ChaseLevDeque::Steal::lost, 0};  // a CAS was issued only when lost
      }
      deque_.push(node);
      return {true, 1};
    }

   private:
    ChaseLevDeque deque_;
  };
};

static_assert(StealProtocol<ChaseLevProtocol>);

}  // namespace uts
