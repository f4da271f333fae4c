// The request/response handshake (request_cell.hpp) and its protocol. The
// thief's withdrawal timeout is set per test so that each outcome is certain:
// long where the answer must come, short where the owner never polls.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "steal/protocols/request/request_protocol.hpp"
#include "support/protocol_stress.hpp"

using namespace uts;
using namespace uts::test;
using namespace std::chrono_literals;

namespace {

constexpr StealPolicy kHalf{StealAmount::half, 0};

// Two request-protocol deques: 0 the owner, 1 the thief.
struct RequestPair {
  explicit RequestPair(std::chrono::microseconds withdraw_after)
      : ctx(2, settings_for(RequestProtocol::traits, kHalf)) {
    ctx.withdraw_after = withdraw_after;
    owner = std::make_unique<RequestProtocol::Deque>(ctx, 0);
    thief = std::make_unique<RequestProtocol::Deque>(ctx, 1);
    thief->on_dry();
  }
  // The thief steals on its own thread while the owner polls until it is done.
  StealOutcome steal_while_owner_polls() {
    std::atomic<bool> finished{false};
    StealOutcome o;
    std::thread t([&] {
      BusyMark busy(termination, 1);
      o = thief->steal(*owner, busy, kHalf, RemoteDelay{});
      finished.store(true);
    });
    // The owner polls only once the request is in its cell (or the thief
    // gave up without posting), so the advert it had is the one the thief saw.
    while (!owner->request_pending() && !finished.load()) std::this_thread::yield();
    while (!finished.load()) {
      owner->serve_thieves();
      std::this_thread::yield();
    }
    t.join();
    return o;
  }
  ThreadStats thief_stats() const {
    ThreadStats ts;
    thief->report(ts);
    return ts;
  }
  Termination termination{2};
  RequestProtocol::Context ctx;
  std::unique_ptr<RequestProtocol::Deque> owner, thief;
};

}  // namespace

TEST_CASE("request: the owner answers at its poll with the shallowest half, keeping one") {
  RequestPair p(3600s);  // never withdrawn: the owner keeps polling
  for (std::uint32_t i = 0; i < 9; ++i) p.owner->push(tree_node(i, 1000));
  p.owner->serve_thieves();  // a poll: advertises that it has work
  REQUIRE(p.owner->stealable());
  const StealOutcome o = p.steal_while_owner_polls();
  CHECK(o.attempted);
  CHECK(o.nodes == 4);  // floor(9/2): the owner keeps at least one
  CHECK(p.owner->size() == 5);
  Node n;
  std::vector<std::uint32_t> got;
  while (p.thief->pop(n)) got.push_back(n.id[0]);
  CHECK(got == std::vector<std::uint32_t>{3, 2, 1, 0});  // the shallowest, deepest of them on top
  const ThreadStats ts = p.thief_stats();
  CHECK(ts.requests_sent == 1);
  CHECK(ts.requests_answered == 1);
  CHECK(ts.requests_withdrawn == 0);
}

TEST_CASE("request: an owner with one node refuses; an owner going idle refuses what is pending") {
  SUBCASE("one node") {
    RequestPair p(3600s);
    p.owner->push(tree_node(0, 10));
    p.owner->push(tree_node(1, 10));
    p.owner->serve_thieves();  // 2 nodes: advertised
    Node n;
    REQUIRE(p.owner->pop(n));  // down to one, advert not yet refreshed
    const StealOutcome o = p.steal_while_owner_polls();
    CHECK(o.attempted);
    CHECK(o.nodes == 0);
    CHECK(p.owner->size() == 1);
    CHECK(p.thief_stats().requests_refused == 1);
  }
  SUBCASE("owner goes idle with a request in its cell") {
    RequestPair p(3600s);
    for (std::uint32_t i = 0; i < 4; ++i) p.owner->push(tree_node(i, 10));
    p.owner->serve_thieves();
    std::atomic<bool> finished{false};
    StealOutcome o;
    std::thread t([&] {
      BusyMark busy(p.termination, 1);
      o = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
      finished.store(true);
    });
    while (!p.owner->request_pending()) std::this_thread::yield();  // the request is in the cell
    Node n;
    while (p.owner->pop(n)) {
    }
    p.owner->on_dry();  // never polled: the pending request is refused here
    t.join();
    CHECK(finished.load());
    CHECK(o.nodes == 0);
    const ThreadStats ts = p.thief_stats();
    CHECK(ts.requests_answered == 0);
    CHECK(ts.requests_sent == 1);
    CHECK(ts.requests_refused == 1);
    // A closed cell takes no request.
    BusyMark busy(p.termination, 1);
    const StealOutcome again = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
    CHECK_FALSE(again.attempted);
  }
}

TEST_CASE("request: a thief withdraws a request its victim never polls for, and may ask again") {
  RequestPair p(1us);
  for (std::uint32_t i = 0; i < 4; ++i) p.owner->push(tree_node(i, 10));
  p.owner->serve_thieves();  // advertised; from here on the owner does not poll
  BusyMark busy(p.termination, 1);
  const StealOutcome o = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
  CHECK(o.attempted);
  CHECK(o.nodes == 0);
  ThreadStats ts = p.thief_stats();
  CHECK(ts.requests_withdrawn == 1);
  CHECK(ts.request_wait_seconds > 0);
  // The cell is free again: a later request is answered normally.
  p.ctx.withdraw_after = 3600s;
  const StealOutcome o2 = p.steal_while_owner_polls();
  CHECK(o2.nodes == 2);
  ts = p.thief_stats();
  CHECK(ts.requests_sent == 2);
  CHECK(ts.requests_answered == 1);
}

TEST_CASE("request: give_shallowest hands out the oldest nodes and nothing else") {
  RequestPair p(3600s);
  for (std::uint32_t i = 0; i < 5; ++i) p.owner->push(tree_node(i, 10));
  std::vector<Node> out;
  CHECK(p.owner->give_shallowest(2, out) == 2);
  CHECK(p.owner->give_shallowest(9, out) == 3);
  REQUIRE(out.size() == 5);
  for (std::uint32_t i = 0; i < 5; ++i) CHECK(out[i].id[0] == i);
  CHECK(p.owner->size() == 0);
}

TEST_CASE("request: nodes sent are nodes received; every request answered, refused or withdrawn") {
  for (int threads : {2, 4, 8, 16}) {
    for (StealPolicy amount : {StealPolicy{StealAmount::half, 0}, StealPolicy{StealAmount::one, 0},
                               StealPolicy{StealAmount::chunk, 3}}) {
      for (std::uint32_t poll : {1u, 7u}) {
        CAPTURE(threads);
        CAPTURE(to_string(amount));
        CAPTURE(poll);
        const auto r = stress<RequestProtocol>(threads, 200000, settings_for(RequestProtocol::traits, amount, poll), 13,
                                               threads >= 4 ? 61 : 0);
        CHECK(r.exact());
        CHECK(r.steals > 0);
        CHECK(r.sum.nodes_shared == r.nodes_stolen);  // what owners sent is what thieves got
        CHECK(r.sum.requests_answered == r.steals);
        CHECK(r.sum.requests_sent == r.sum.requests_answered + r.sum.requests_refused + r.sum.requests_withdrawn);
      }
    }
  }
}
