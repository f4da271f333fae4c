// The request/response handshake of the UPC Queues paper (Jose, Luo, Sur,
// Panda, PGAS 2010/2011), which replaced uts_upc_enhanced's lock-protected
// request cells with contention-free requests: one request cell per owner,
// one mailbox per thief. request_protocol.hpp builds the protocol on it.
//
//  - an idle thief posts a request into the victim's request cell, one CAS
//    (EMPTY -> its id); one outstanding request per thief;
//  - the owner checks its cell every N expansions (--poll-interval N, -I N)
//    and answers: it copies nodes into the thief's mailbox and publishes
//    them, or refuses;
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
#include <vector>

#include "base/cache_line.hpp"
#include "run/policy.hpp"
#include "tree/node.hpp"

namespace uts {

// A thief's mailbox: written by the owner that claimed its request.
struct alignas(kCacheLine) Mailbox {
  enum : std::uint32_t { kIdle, kWaiting, kAnswered, kRefused };
  std::atomic<std::uint32_t> status{kIdle};
  StealPolicy want;         // how much the thief asks for (written before it posts)
  std::vector<Node> nodes;  // the answer (owned by whoever the handshake says)

  // ---- the owner that claimed the request ----
  // release: the thief's acquire load of the status sees the nodes.
  void answer() { status.store(kAnswered, std::memory_order_release); }
  // release: hands the mailbox back.
  void refuse() { status.store(kRefused, std::memory_order_release); }

  // ---- the thief ----
  // relaxed: published, with `want`, by the release CAS of RequestCell::post.
  void prepare(const StealPolicy& amount) {
    want = amount;
    status.store(kWaiting, std::memory_order_relaxed);
  }
  // acquire: pairs with the owner's release store of the answer.
  std::uint32_t look() const { return status.load(std::memory_order_acquire); }
};

class RequestCell {
 public:
  static constexpr int kNone = -1;

  // ---- the owner ----
  // Claim a posted request for answering: the thief's id, or kNone (no
  // request, or its thief withdrew first). Then answer its mailbox and call
  // done_answering().
  int claim() {
    // relaxed: a look; the claim below is the CAS.
    std::uint32_t c = cell_.value.load(std::memory_order_relaxed);
    // acquire on success: the thief's mailbox as it left it before its
    // release CAS. relaxed on failure: the thief withdrew, nothing to read.
    if (c >= kThief && cell_.value.compare_exchange_strong(c, kAnswering, std::memory_order_acquire,
                                                           std::memory_order_relaxed))
      return static_cast<int>(c - kThief);
    return kNone;
  }
  // relaxed: the next thief's post needs nothing from us.
  void done_answering() { cell_.value.store(kEmpty, std::memory_order_relaxed); }
  // Going idle: close the cell; the thief whose request was pending (its
  // mailbox must be refused), or kNone.
  int close() {
    // acquire: if a request is there, its thief's mailbox as the thief left it.
    const std::uint32_t c = cell_.value.exchange(kClosed, std::memory_order_acquire);
    return c >= kThief ? static_cast<int>(c - kThief) : kNone;
  }
  // relaxed: reopening needs no ordering; a thief's post is a CAS from EMPTY.
  void reopen() { cell_.value.store(kEmpty, std::memory_order_relaxed); }
  // relaxed: a look (tests wait on it); claim() decides.
  bool has_request() const { return cell_.value.load(std::memory_order_relaxed) >= kThief; }

  // ---- a thief ----
  // relaxed: look before the CAS, so a crowd of thieves does not keep
  // pulling a busy cell's line into exclusive state.
  bool looks_open() const { return cell_.value.load(std::memory_order_relaxed) == kEmpty; }
  bool post(int thief) {
    std::uint32_t expected = kEmpty;
    // release: the owner that claims the request sees our mailbox as left here.
    return cell_.value.compare_exchange_strong(expected, kThief + static_cast<std::uint32_t>(thief),
                                               std::memory_order_release, std::memory_order_relaxed);
  }
  // true: withdrawn, nobody will write our mailbox; false: the owner took
  // the request and its answer is on the way.
  bool withdraw(int thief) {
    std::uint32_t mine = kThief + static_cast<std::uint32_t>(thief);
    // relaxed: on success nobody will write our mailbox; on failure we wait
    // for the answer with an acquire load of the mailbox's status.
    return cell_.value.compare_exchange_strong(mine, kEmpty, std::memory_order_relaxed, std::memory_order_relaxed);
  }

 private:
  static constexpr std::uint32_t kEmpty = 0, kClosed = 1, kAnswering = 2, kThief = 3;
  Padded<std::atomic<std::uint32_t>> cell_{kEmpty};
};

}  // namespace uts
