#include "parallel/request_protocol.hpp"

#include <chrono>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace uts {

namespace {

// A thief withdraws a request its victim has not taken within this time (a
// working owner answers within --poll-interval expansions, each well under a
// microsecond, so with the default -I 1 at once; a preempted one may not run
// for a scheduler time slice; with a huge -I requests mostly end withdrawn).
constexpr std::chrono::microseconds kWithdrawAfter{50};

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace

RequestProtocol::Context::Context(int threads, const EngineSettings& settings)
    : poll_interval(settings.poll_interval),
      mailboxes(new Mailbox[static_cast<std::size_t>(threads)]) {}

RequestProtocol::Deque::Deque(Context& ctx, int id)
    : array_(1u << 10), countdown_(ctx.poll_interval), ctx_(ctx), id_(id) {
  // Room for answers, allocated (and first touched) by this thread.
  ctx_.mailboxes[id_].nodes.reserve(256);
}

void RequestProtocol::Deque::make_room(std::uint32_t n) {
  // Answers leave dead slots below base_.
  top_ -= array_.compact_and_grow(base_, top_, n, "a request-protocol deque");
  base_ = 0;
}

void RequestProtocol::Deque::advertise() {
  const bool has = size() >= 2;
  if (has != advertised_) {
    advertised_ = has;
    // relaxed: a hint for thieves choosing whom to ask.
    advert_.value.store(has, std::memory_order_relaxed);
  }
}

void RequestProtocol::Deque::poll() {
  countdown_ = ctx_.poll_interval;
  // relaxed: a look; the claim below is the CAS.
  std::uint32_t c = cell_.value.load(std::memory_order_relaxed);
  // acquire on success: the thief's mailbox as it left it before its
  // release CAS. relaxed on failure: the thief withdrew, nothing to read.
  if (c >= kThief && cell_.value.compare_exchange_strong(c, kAnswering, std::memory_order_acquire,
                                                         std::memory_order_relaxed)) {
    answer(c - kThief);
    // relaxed: the next thief's post needs nothing from us.
    cell_.value.store(kEmpty, std::memory_order_relaxed);
  }
  advertise();
}

void RequestProtocol::Deque::answer(std::uint32_t thief) {
  Mailbox& box = ctx_.mailboxes[thief];
  const std::uint32_t held = size();
  // Up to half of the shallowest nodes, and always keep one.
  const std::uint32_t n = held > 0 ? box.want.claim_size(held - 1) : 0;
  if (n > 0) {
    box.nodes.assign(array_.nodes + base_, array_.nodes + base_ + n);
    base_ += n;
    ++answers_;
    nodes_given_ += n;
    // release: the thief's acquire load of the status sees the nodes.
    box.status.store(Mailbox::kAnswered, std::memory_order_release);
  } else {
    // release: hands the mailbox back.
    box.status.store(Mailbox::kRefused, std::memory_order_release);
  }
}

bool RequestProtocol::Deque::offer() {
  advertise();
  return size() >= 2;
}

void RequestProtocol::Deque::go_idle() {
  // acquire: if a request is there, its thief's mailbox as the thief left it.
  const std::uint32_t c = cell_.value.exchange(kClosed, std::memory_order_acquire);
  if (c >= kThief) {
    // release: hands the mailbox back.
    ctx_.mailboxes[c - kThief].status.store(Mailbox::kRefused, std::memory_order_release);
  }
  advertise();
}

void RequestProtocol::Deque::got_work() {
  // relaxed: reopening needs no ordering; a thief's post is a CAS from EMPTY.
  cell_.value.store(kEmpty, std::memory_order_relaxed);
  advertise();
}

StealOutcome RequestProtocol::Deque::steal(Deque& victim, BusyMark& busy, const StealPolicy& amount,
                                           const RemoteDelay& delay) {
  if (!victim.stealable()) return {};
  // relaxed: look before the CAS, so a crowd of thieves does not keep pulling
  // a busy cell's line into exclusive state.
  if (victim.cell_.value.load(std::memory_order_relaxed) != kEmpty) return {};
  Mailbox& box = ctx_.mailboxes[id_];
  busy.busy();  // before the request can be answered
  delay();
  box.want = amount;
  // relaxed: published, with `want`, by the release CAS below.
  box.status.store(Mailbox::kWaiting, std::memory_order_relaxed);
  std::uint32_t expected = kEmpty;
  // release: the owner that claims the request sees our mailbox as left here.
  if (!victim.cell_.value.compare_exchange_strong(expected, kThief + static_cast<std::uint32_t>(id_),
                                                  std::memory_order_release, std::memory_order_relaxed)) {
    busy.idle();
    return {};
  }
  ++sent_;
  const auto start = std::chrono::steady_clock::now();
  bool may_withdraw = true;
  std::uint32_t status;
  for (unsigned spins = 1;; ++spins) {
    // acquire: pairs with the owner's release store of the answer.
    status = box.status.load(std::memory_order_acquire);
    if (status != Mailbox::kWaiting) break;
    if (spins < 64) {
      cpu_relax();
      continue;
    }
    if (may_withdraw && std::chrono::steady_clock::now() - start > kWithdrawAfter) {
      may_withdraw = false;
      std::uint32_t mine = kThief + static_cast<std::uint32_t>(id_);
      // relaxed: on success nobody will write our mailbox; on failure the
      // owner took the request and we wait for its answer (acquire above).
      if (victim.cell_.value.compare_exchange_strong(mine, kEmpty, std::memory_order_relaxed,
                                                     std::memory_order_relaxed)) {
        ++withdrawn_;
        wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        busy.idle();
        return {true, 0};
      }
    }
    std::this_thread::yield();
  }
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status == Mailbox::kRefused) {
    ++refused_;
    busy.idle();
    return {true, 0};
  }
  ++answered_;
  const auto n = static_cast<std::uint32_t>(box.nodes.size());
  reserve(n);
  for (const Node& node : box.nodes) array_.nodes[top_++] = node;  // shallowest first: deepest ends on top
  box.nodes.clear();
  return {true, n};
}

void RequestProtocol::Deque::report(ThreadStats& s) const {
  s.shares = answers_;
  s.nodes_shared = nodes_given_;
  s.requests_sent = sent_;
  s.requests_answered = answered_;
  s.requests_refused = refused_;
  s.requests_withdrawn = withdrawn_;
  s.request_wait_seconds = wait_seconds_;
}

}  // namespace uts
