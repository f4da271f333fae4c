// Protocol `request`: private deques, and work handed over only by its owner
// through the request/response handshake of request_cell.hpp (whose header
// holds the safety argument), as a protocol (steal/protocol.hpp).
//
// Each thread's deque is private: push and pop are plain loads and stores,
// no atomics at all. An owner polls its cell every --poll-interval
// expansions and answers a request with up to half of its shallowest nodes
// (or what the thief's steal policy asks: one, or a chunk of K), always
// keeping at least one for itself, or refuses.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/cache_line.hpp"
#include "steal/protocol.hpp"
#include "steal/protocols/request/request_cell.hpp"
#include "steal/storage/node_array.hpp"

namespace uts {

struct RequestProtocol {
  static constexpr ProtocolTraits traits{
      .name = "request",
      .summary = "UPC Queues request/response",
      .engine_line = "request/response (private deques)",
      .default_steal = {StealAmount::half, 0},
      .amounts = kAnyAmount,
      .amount_rule = "",
      .default_victim = VictimOrder::random,
      .counters = kShareCounters | kRequestCounters,
      .polls = true,
  };

  struct Context {
    Context(int threads, const EngineSettings& settings);
    std::uint32_t poll_interval;
    std::unique_ptr<Mailbox[]> mailboxes;  // one per thread
    // A thief withdraws a request its victim has not taken within this time
    // (a working owner answers within --poll-interval expansions, each well
    // under a microsecond, so with the default -I 1 at once; a preempted one
    // may not run for a scheduler time slice; with a huge -I requests mostly
    // end withdrawn). Tests change it to make either outcome certain.
    std::chrono::microseconds withdraw_after{50};
  };

  // A private stack of nodes: [base_, top_) live; pops at the top (deep end),
  // answers from the base (shallow end).
  class Deque {
   public:
    Deque(Context& ctx, int id);
    Deque(const Deque&) = delete;
    Deque& operator=(const Deque&) = delete;

    void reserve(std::uint32_t n) {
      if (array_.capacity - top_ < n) make_room(n);
    }
    // The sink interface of expansion (tree/expand.hpp): a cursor with room
    // for n pushes, then commit().
    using Pusher = NodeArray::Pusher;
    Pusher pusher(std::uint32_t n) {
      reserve(n);
      return {array_.nodes, top_};
    }
    void commit(const Pusher& p) { top_ = p.top; }
    void push(const Node& node) {
      reserve(1);
      array_.nodes[top_++] = node;
    }
    bool pop(Node& out) {
      if (top_ == base_) {
        base_ = top_ = 0;
        return false;
      }
      out = array_.nodes[--top_];
      return true;
    }
    // A thief's request waits in this owner's cell.
    bool request_pending() const { return cell_.has_request(); }
    // The number of nodes this deque holds (owner only).
    std::uint32_t size() const { return top_ - base_; }
    std::uint32_t give_shallowest(std::uint32_t k, std::vector<Node>& out);
    // Every --poll-interval expansions: answer a pending request.
    void serve_thieves() {
      if (--countdown_ == 0) poll();
    }
    bool expose_work();
    void on_dry();
    void on_refilled();
    // relaxed: a hint; the owner decides when it answers.
    bool stealable() const { return advert_.value.load(std::memory_order_relaxed); }
    StealOutcome steal(Deque& victim, BusyMark& busy, const StealPolicy& amount, const RemoteDelay& delay);
    void report(ThreadStats& s) const;

   private:
    void make_room(std::uint32_t n);
    void poll();       // check the cell, answer a request, refresh the advert
    void answer(int thief);
    void advertise();  // publish whether a request could be answered with work

    RequestCell cell_;
    Padded<std::atomic<bool>> advert_{false};
    // Owner only.
    alignas(kCacheLine) NodeArray array_;
    std::uint32_t base_ = 0, top_ = 0;
    std::uint32_t countdown_;
    bool advertised_ = false;
    Context& ctx_;
    int id_;
    std::uint64_t answers_ = 0, nodes_given_ = 0;
    // As a thief.
    std::uint64_t sent_ = 0, answered_ = 0, refused_ = 0, withdrawn_ = 0;
    double wait_seconds_ = 0;
  };
};

static_assert(StealProtocol<RequestProtocol>);

}  // namespace uts
