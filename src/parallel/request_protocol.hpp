// Protocol `request`: the request/response design of the UPC Queues paper
// (Jose, Luo, Sur, Panda, PGAS 2010/2011), which replaced uts_upc_enhanced's
// lock-protected request cells with contention-free requests.
//
// Each thread's deque is private: push and pop are plain loads and stores,
// no atomics at all. Work moves only when its owner hands it over:
//  - an idle thief posts a request into the victim's request cell, one CAS
//    (EMPTY -> its id); one outstanding request per thief;
//  - the owner checks its cell every N expansions (--poll-interval N, -I N)
//    and answers: it copies up to half of its shallowest nodes (or what the
//    thief's steal policy asks: one, or a chunk of K; always keeping at
//    least one for itself) into the thief's mailbox and publishes them, or
//    refuses;
//  - a thief whose victim does not answer within a while withdraws its
//    request (CAS its id -> EMPTY) and moves on, unless the owner has already
//    taken it, in which case the answer is on its way and it waits for it.
//
// The cell: EMPTY | CLOSED | ANSWERING | kThief + t (thief t asks).
//
// Why it is safe (tests/model/request.pml checks the handshake, with mutants):
//  - Exactly one party decides a posted request's fate: the owner claims it by
//    CAS (t -> ANSWERING) or by exchange (going idle: -> CLOSED), the thief
//    withdraws it by CAS (t -> EMPTY). Each is a read-modify-write of the
//    same word from the value kThief + t, so exactly one succeeds. Only the
//    owner that claimed it writes thief t's mailbox, and thief t does not
//    touch its mailbox until the status leaves WAITING (or its withdrawal
//    won, in which case nobody writes it): the mailbox changes hands
//    through the cell (release CAS by the thief, acquire by the owner) and
//    back through the status (release store, acquire load).
//  - No request is lost: an owner closes its cell with an exchange when it
//    goes idle and refuses whatever request it finds there; a closed cell
//    cannot take a request. So a thief never waits on an idle or finished
//    thread, and a working owner answers within N expansions.
//  - Termination: the thief marks itself busy before posting, and stays busy
//    until it is answered (nodes arrive in its mailbox), refused or has
//    withdrawn. Nodes in a mailbox are thus always held by a busy thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "parallel/node_array.hpp"
#include "parallel/protocol.hpp"
#include "parallel/split_deque.hpp"  // kCacheLine

namespace uts {

// A thief's mailbox: written by the owner that claimed its request.
struct alignas(kCacheLine) Mailbox {
  enum : std::uint32_t { kIdle, kWaiting, kAnswered, kRefused };
  std::atomic<std::uint32_t> status{kIdle};
  StealPolicy want;         // how much the thief asks for (written before it posts)
  std::vector<Node> nodes;  // the answer (owned by whoever the handshake says)
};

struct RequestProtocol {
  struct Context {
    Context(int threads, const EngineSettings& settings);
    std::uint32_t poll_interval;
    std::unique_ptr<Mailbox[]> mailboxes;  // one per thread
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
    void push_if(const Node& node, bool keep) {
      if (keep) array_.nodes[top_++] = node;  // inside the room reserve() made
    }
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
    void maintain() {
      if (--countdown_ == 0) poll();
    }
    bool offer();
    void go_idle();
    void got_work();
    // relaxed: a hint; the owner decides when it answers.
    bool stealable() const { return advert_.value.load(std::memory_order_relaxed); }
    StealOutcome steal(Deque& victim, BusyMark& busy, const StealPolicy& amount, const RemoteDelay& delay);
    void report(ThreadStats& s) const;

    // The number of nodes this deque holds (owner only).
    std::uint32_t size() const { return top_ - base_; }

   private:
    static constexpr std::uint32_t kEmpty = 0, kClosed = 1, kAnswering = 2, kThief = 3;

    void make_room(std::uint32_t n);
    void poll();       // check the cell, answer a request, refresh the advert
    void answer(std::uint32_t thief);
    void advertise();  // publish whether a request could be answered with work

    struct alignas(kCacheLine) CellLine {
      std::atomic<std::uint32_t> value{kEmpty};
    } cell_;
    struct alignas(kCacheLine) AdvertLine {
      std::atomic<bool> value{false};
    } advert_;
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
