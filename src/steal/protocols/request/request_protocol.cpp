// Protocol `request` (request_protocol.hpp): the owner's private deque, its
// polls and answers, and a thief's request posted and waited on.
#include "steal/protocols/request/request_protocol.hpp"

#include <thread>

#include "base/clock.hpp"
#include "base/cpu_relax.hpp"

namespace uts {

RequestProtocol::Context::Context(int threads, const EngineSettings& settings)
    : poll_interval(settings.poll_interval), mailboxes(new Mailbox[static_cast<std::size_t>(threads)]) {}

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

std::uint32_t RequestProtocol::Deque::give_shallowest(std::uint32_t k, std::vector<Node>& out) {
  const std::uint32_t n = k < size() ? k : size();
  out.insert(out.end(), array_.nodes + base_, array_.nodes + base_ + n);
  base_ += n;
  return n;
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
  const int thief = cell_.claim();
  if (thief != RequestCell::kNone) {
    answer(thief);
    cell_.done_answering();
  }
  advertise();
}

void RequestProtocol::Deque::answer(int thief) {
  Mailbox& box = ctx_.mailboxes[thief];
  const std::uint32_t held = size();
  // Up to half of the shallowest nodes, and always keep one.
  const std::uint32_t n = held > 0 ? box.want.claim_size(held - 1) : 0;
  if (n == 0) {
    box.refuse();
    return;
  }
  box.nodes.assign(array_.nodes + base_, array_.nodes + base_ + n);
  base_ += n;
  ++answers_;
  nodes_given_ += n;
  box.answer();
}

bool RequestProtocol::Deque::expose_work() {
  advertise();
  return size() >= 2;
}

void RequestProtocol::Deque::on_dry() {
  const int thief = cell_.close();
  if (thief != RequestCell::kNone) ctx_.mailboxes[thief].refuse();
  advertise();
}

void RequestProtocol::Deque::on_refilled() {
  cell_.reopen();
  advertise();
}

StealOutcome RequestProtocol::Deque::steal(Deque& victim, BusyMark& busy, const StealPolicy& amount,
                                           const RemoteDelay& delay) {
  if (!victim.stealable() || !victim.cell_.looks_open()) return {};
  Mailbox& box = ctx_.mailboxes[id_];
  busy.busy();  // before the request can be answered
  delay();
  box.prepare(amount);
  if (!victim.cell_.post(id_)) {
    busy.idle();
    return {};
  }
  ++sent_;
  const auto start = Clock::now();
  bool may_withdraw = true;
  std::uint32_t status;
  for (unsigned spins = 1;; ++spins) {
    status = box.look();
    if (status != Mailbox::kWaiting) break;
    if (spins < 64) {
      cpu_relax();
      continue;
    }
    if (may_withdraw && Clock::now() - start > ctx_.withdraw_after) {
      may_withdraw = false;
      if (victim.cell_.withdraw(id_)) {
        ++withdrawn_;
        wait_seconds_ += seconds_since(start);
        busy.idle();
        return {true, 0};
      }
      // The owner took the request: its answer is on the way.
    }
    std::this_thread::yield();
  }
  wait_seconds_ += seconds_since(start);
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
