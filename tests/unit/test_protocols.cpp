// Deque-level tests of every steal protocol (protocol.hpp): a stress run per
// protocol that counts every node's serial exactly once, and the behaviours
// each design promises.
#include <doctest/doctest.h>
#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "parallel/chase_lev.hpp"
#include "parallel/locked_stack.hpp"
#include "parallel/protocol.hpp"
#include "parallel/request_protocol.hpp"
#include "parallel/split_protocol.hpp"
#include "parallel/termination.hpp"

using namespace uts;

namespace {

constexpr std::uint32_t kCheck = 2654435761u;

// A tree of `total` serials: serial s has children kFanout*s+1 ..
// kFanout*s+kFanout (those below total), so any node may be expanded by any
// thread. Wide enough that a depth-first stack passes 2K = 40 nodes (the
// locked stack's default chunk K = 20 is released).
constexpr std::uint32_t kFanout = 16;
Node tree_node(std::uint32_t serial, std::uint32_t total) {
  const std::uint64_t first = std::uint64_t{kFanout} * serial + 1;
  const std::uint64_t end = first + kFanout < total ? first + kFanout : (first < total ? total : first);
  return Node{{serial, 0, 0, 0, serial * kCheck}, 0, static_cast<std::uint32_t>(end - first)};
}

struct StressResult {
  std::uint32_t total = 0;
  std::uint64_t lost = 0, duplicated = 0, corrupt = 0;
  std::uint64_t steals = 0, nodes_stolen = 0, attempts = 0;
  ThreadStats sum;
};

// Threads expand the tree from serial 0 through the protocol's owner
// operations and steal from each other with it; a ledger counts each serial.
// The stop rule is the engine's: the termination double scan.
template <class P>
StressResult stress(int threads, std::uint32_t total, EngineSettings settings, unsigned seed) {
  settings.threads = threads;
  typename P::Context ctx(threads, settings);
  std::vector<std::unique_ptr<typename P::Deque>> deques(static_cast<std::size_t>(threads));
  std::vector<std::atomic<std::uint32_t>> seen(total);
  std::atomic<std::uint64_t> corrupt{0}, steals{0}, stolen{0}, attempts{0};
  Termination termination(threads);
  std::vector<ThreadStats> stats(static_cast<std::size_t>(threads));
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
    deques[static_cast<std::size_t>(id)] = std::make_unique<typename P::Deque>(ctx, id);
#pragma omp barrier
    auto& mine = *deques[static_cast<std::size_t>(id)];
    BusyMark busy(termination, id);
    std::mt19937 rng(seed + static_cast<unsigned>(id));
    std::vector<std::uint64_t> scratch;
    if (id == 0) mine.push(tree_node(0, total));
    for (;;) {
      Node n;
      while (mine.pop(n)) {
        const std::uint32_t s = n.id[0];
        if (s >= total || n.id[4] != s * kCheck) {
          corrupt.fetch_add(1);
          continue;
        }
        seen[s].fetch_add(1, std::memory_order_relaxed);
        mine.reserve(kFanout);
        for (std::uint32_t c = kFanout * s + 1; c <= kFanout * s + kFanout; ++c)
          mine.push_if(tree_node(c, total), c < total);
        mine.maintain();
        if ((rng() & 15) == 0) std::this_thread::yield();  // let thieves in on 2 cores
      }
      mine.go_idle();
      termination.idle(id);
      bool found = false;
      while (!termination.done()) {
        if (threads == 1) {
          termination.detect(scratch);
          continue;
        }
        int v = static_cast<int>(rng() % static_cast<unsigned>(threads - 1));
        if (v >= id) ++v;
        const StealOutcome o = mine.steal(*deques[static_cast<std::size_t>(v)], busy, settings.steal, RemoteDelay{});
        if (o.attempted) attempts.fetch_add(1);
        if (o.nodes > 0) {
          steals.fetch_add(1);
          stolen.fetch_add(o.nodes);
          found = true;
          break;
        }
        if (termination.detect(scratch)) break;
        std::this_thread::yield();
      }
      if (!found) break;
      mine.got_work();
    }
    mine.report(stats[static_cast<std::size_t>(id)]);
#pragma omp barrier
  }
  StressResult r;
  r.total = total;
  for (auto& s : seen) {
    const std::uint32_t k = s.load();
    r.lost += k == 0;
    r.duplicated += k > 1;
  }
  r.corrupt = corrupt.load();
  r.steals = steals.load();
  r.nodes_stolen = stolen.load();
  r.attempts = attempts.load();
  for (const ThreadStats& s : stats) {
    r.sum.shares += s.shares;
    r.sum.nodes_shared += s.nodes_shared;
    r.sum.reclaims += s.reclaims;
    r.sum.nodes_reclaimed += s.nodes_reclaimed;
    r.sum.requests_sent += s.requests_sent;
    r.sum.requests_answered += s.requests_answered;
    r.sum.requests_refused += s.requests_refused;
    r.sum.requests_withdrawn += s.requests_withdrawn;
  }
  return r;
}

void check_exact(const StressResult& r) {
  CHECK(r.lost == 0);
  CHECK(r.duplicated == 0);
  CHECK(r.corrupt == 0);
}

EngineSettings settings_for(Protocol p, StealPolicy steal) {
  EngineSettings s;
  s.protocol = p;
  s.steal = steal;
  s.poll_interval = 1;
  return s;
}

}  // namespace

TEST_CASE("stress per protocol: every serial exactly once, oversubscribed") {
  const std::uint32_t total = 200000;
  for (int threads : {1, 2, 4, 8, 16}) {
    CAPTURE(threads);
    SUBCASE("split") {
      for (StealPolicy p : {StealPolicy{StealAmount::half, 0}, StealPolicy{StealAmount::one, 0},
                            StealPolicy{StealAmount::chunk, 3}}) {
        const auto r = stress<SplitProtocol>(threads, total, settings_for(Protocol::split, p), 11);
        check_exact(r);
        if (threads > 1) CHECK(r.steals > 0);
        CHECK(r.sum.nodes_shared == r.nodes_stolen + r.sum.nodes_reclaimed);
      }
    }
    SUBCASE("locked") {
      for (std::uint32_t k : {1u, 4u, 20u}) {
        CAPTURE(k);
        const auto r =
            stress<LockedProtocol>(threads, total, settings_for(Protocol::locked, {StealAmount::chunk, k}), 12);
        check_exact(r);
        if (threads > 1) CHECK(r.steals > 0);
        CHECK(r.nodes_stolen == r.steals * k);  // whole chunks only
        CHECK(r.sum.nodes_shared == r.nodes_stolen + r.sum.nodes_reclaimed);
      }
    }
    SUBCASE("request") {
      for (StealPolicy p : {StealPolicy{StealAmount::half, 0}, StealPolicy{StealAmount::one, 0},
                            StealPolicy{StealAmount::chunk, 3}}) {
        for (std::uint32_t poll : {1u, 7u}) {
          EngineSettings s = settings_for(Protocol::request, p);
          s.poll_interval = poll;
          const auto r = stress<RequestProtocol>(threads, total, s, 13);
          check_exact(r);
          if (threads > 1) CHECK(r.steals > 0);
          CHECK(r.sum.nodes_shared == r.nodes_stolen);  // what owners sent is what thieves got
          CHECK(r.sum.requests_answered == r.steals);
          CHECK(r.sum.requests_sent == r.sum.requests_answered + r.sum.requests_refused + r.sum.requests_withdrawn);
        }
      }
    }
    SUBCASE("chaselev") {
      const auto r = stress<ChaseLevProtocol>(threads, total, settings_for(Protocol::chaselev, {StealAmount::one, 0}), 14);
      check_exact(r);
      if (threads > 1) CHECK(r.steals > 0);
      CHECK(r.nodes_stolen == r.steals);  // one node per steal
    }
  }
}

TEST_CASE("Chase-Lev: owner LIFO, thieves take the oldest, growth keeps every node") {
  ChaseLevDeque d(2);
  for (std::uint32_t i = 0; i < 10; ++i) d.push(tree_node(i, 1000));
  CHECK(d.capacity() >= 10);
  Node n;
  REQUIRE(d.steal(n) == ChaseLevDeque::Steal::won);
  CHECK(n.id[0] == 0);
  REQUIRE(d.pop(n));
  CHECK(n.id[0] == 9);
  std::uint32_t left = 0;
  while (d.pop(n)) ++left;
  CHECK(left == 8);
  CHECK(d.steal(n) == ChaseLevDeque::Steal::empty);
  CHECK(d.size_estimate() == 0);
}

TEST_CASE("Chase-Lev: the last node goes to exactly one of owner and thief") {
  ChaseLevDeque d(4);
  const int rounds = 20000;
  std::atomic<int> round{-1}, thief_ready{-1}, thief_done{0};
  std::mt19937 rng_owner(1), rng_thief(2);
  std::uniform_int_distribution<unsigned> jitter(0, 100);
  auto spin_pause = [] {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
  };
  std::vector<std::uint8_t> owner_got(rounds), thief_got(rounds);
  std::thread thief([&] {
    for (int r = 0; r < rounds; ++r) {
      while (round.load(std::memory_order_acquire) < r) std::this_thread::yield();
      thief_ready.store(r, std::memory_order_release);
      for (unsigned i = jitter(rng_thief); i > 0; --i) spin_pause();
      Node n;
      if (d.steal(n) == ChaseLevDeque::Steal::won) thief_got[static_cast<std::size_t>(r)] = n.id[0] == static_cast<std::uint32_t>(r) ? 1 : 2;
      thief_done.store(r + 1, std::memory_order_release);
    }
  });
  for (int r = 0; r < rounds; ++r) {
    d.push(tree_node(static_cast<std::uint32_t>(r), 1u << 30));
    round.store(r, std::memory_order_release);
    // Odd rounds: wait until the thief is about to steal, then race it after
    // a random short delay (head on when the two run on separate cores).
    // Even rounds: pop at once, so the owner wins some rounds whatever the
    // scheduler does.
    if (r % 2) {
      for (int spin = 0; thief_ready.load(std::memory_order_acquire) < r; ++spin)
        if (spin > 1000) std::this_thread::yield();
      for (unsigned i = jitter(rng_owner); i > 0; --i) spin_pause();
    }
    Node n;
    if (d.pop(n)) owner_got[static_cast<std::size_t>(r)] = n.id[0] == static_cast<std::uint32_t>(r) ? 1 : 2;
    while (thief_done.load(std::memory_order_acquire) < r + 1) std::this_thread::yield();
  }
  thief.join();
  int both = 0, neither = 0, wrong = 0, stolen = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto o = owner_got[static_cast<std::size_t>(r)], t = thief_got[static_cast<std::size_t>(r)];
    both += o && t;
    neither += !o && !t;
    wrong += o == 2 || t == 2;
    stolen += t == 1;
  }
  CHECK(both == 0);
  CHECK(neither == 0);
  CHECK(wrong == 0);
  INFO("thief won ", stolen, " of ", rounds);
  CHECK(stolen > 0);  // the thief won some races (or the test proves nothing)
  CHECK(stolen < rounds);
}

TEST_CASE("locked stack: chunks of K are released past 2K local nodes, stolen oldest first, reacquired when dry") {
  LockedStack owner(3), thief(3);
  for (std::uint32_t i = 0; i < 7; ++i) {
    owner.push(tree_node(i, 1000));
    owner.release_surplus();
  }
  // 7 > 2*3: the oldest 3 (serials 0..2) became one shared chunk.
  CHECK(owner.chunks_shared() == 1);
  CHECK(owner.local_size() == 4);
  CHECK(thief.chunks_shared() == 0);
  REQUIRE(owner.steal_into(thief) == 3);
  CHECK(owner.chunks_shared() == 0);
  Node n;
  std::vector<std::uint32_t> got;
  while (thief.pop(n)) got.push_back(n.id[0]);
  CHECK(got == std::vector<std::uint32_t>{2, 1, 0});
  CHECK(owner.steal_into(thief) == 0);  // nothing shared
  // Refill, release, then drain the local part: the owner reacquires its chunk.
  for (std::uint32_t i = 7; i < 10; ++i) {
    owner.push(tree_node(i, 1000));
    owner.release_surplus();
  }
  CHECK(owner.chunks_shared() == 1);  // serials 3..5
  got.clear();
  while (owner.pop(n)) got.push_back(n.id[0]);
  CHECK(got == std::vector<std::uint32_t>{9, 8, 7, 6, 5, 4, 3});
  CHECK(owner.releases() == 2);
  CHECK(owner.reacquires() == 1);
}

namespace {

constexpr StealPolicy kHalf{StealAmount::half, 0};

// Two request-protocol deques: 0 the owner, 1 the thief.
struct RequestPair {
  explicit RequestPair(StealPolicy steal = {StealAmount::half, 0}) : ctx(2, settings_for(Protocol::request, steal)) {
    owner = std::make_unique<RequestProtocol::Deque>(ctx, 0);
    thief = std::make_unique<RequestProtocol::Deque>(ctx, 1);
    thief->go_idle();
  }
  Termination termination{2};
  RequestProtocol::Context ctx;
  std::unique_ptr<RequestProtocol::Deque> owner, thief;
};

}  // namespace

TEST_CASE("request: the owner answers at its poll with the shallowest half, keeping one") {
  RequestPair p;
  for (std::uint32_t i = 0; i < 9; ++i) p.owner->push(tree_node(i, 1000));
  p.owner->maintain();  // a poll: advertises that it has work
  REQUIRE(p.owner->stealable());
  std::atomic<bool> finished{false};
  StealOutcome o;
  std::thread t([&] {
    BusyMark busy(p.termination, 1);
    o = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
    finished.store(true);
  });
  while (!finished.load()) {
    p.owner->maintain();
    std::this_thread::yield();
  }
  t.join();
  CHECK(o.attempted);
  CHECK(o.nodes + p.thief->size() >= 0);
  ThreadStats ts;
  p.thief->report(ts);
  if (ts.requests_withdrawn == 0) {  // answered (not withdrawn because the owner was descheduled)
    CHECK(o.nodes == 4);             // floor(9/2): the owner keeps at least one
    CHECK(p.owner->size() == 5);
    Node n;
    std::vector<std::uint32_t> got;
    while (p.thief->pop(n)) got.push_back(n.id[0]);
    CHECK(got == std::vector<std::uint32_t>{3, 2, 1, 0});  // the shallowest, deepest of them on top
  } else {
    CHECK(o.nodes == 0);
    CHECK(p.owner->size() == 9);
  }
}

TEST_CASE("request: an owner with one node refuses; an owner going idle refuses what is pending") {
  SUBCASE("one node") {
    RequestPair p;
    p.owner->push(tree_node(0, 10));
    p.owner->push(tree_node(1, 10));
    p.owner->maintain();  // 2 nodes: advertised
    Node n;
    REQUIRE(p.owner->pop(n));  // down to one, advert not yet refreshed
    std::atomic<bool> finished{false};
    StealOutcome o;
    std::thread t([&] {
      BusyMark busy(p.termination, 1);
      o = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
      finished.store(true);
    });
    while (!finished.load()) {
      p.owner->maintain();
      std::this_thread::yield();
    }
    t.join();
    CHECK(o.nodes == 0);
    CHECK(p.owner->size() == 1);
  }
  SUBCASE("owner goes idle with a request in its cell") {
    RequestPair p;
    for (std::uint32_t i = 0; i < 4; ++i) p.owner->push(tree_node(i, 10));
    p.owner->maintain();
    std::atomic<bool> finished{false};
    StealOutcome o;
    std::thread t([&] {
      BusyMark busy(p.termination, 1);
      o = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
      finished.store(true);
    });
    Node n;
    while (p.owner->pop(n)) {
    }
    p.owner->go_idle();  // never polled: the request (if posted) is refused here
    t.join();
    CHECK(finished.load());
    CHECK(o.nodes == 0);
    ThreadStats ts;
    p.thief->report(ts);
    CHECK(ts.requests_answered == 0);
    CHECK(ts.requests_sent == ts.requests_refused + ts.requests_withdrawn);
    // A closed cell takes no request.
    BusyMark busy(p.termination, 1);
    const StealOutcome again = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
    CHECK_FALSE(again.attempted);
  }
}

TEST_CASE("request: a thief withdraws a request its victim never polls for, and may ask again") {
  RequestPair p;
  for (std::uint32_t i = 0; i < 4; ++i) p.owner->push(tree_node(i, 10));
  p.owner->maintain();  // advertised; from here on the owner never polls
  BusyMark busy(p.termination, 1);
  const StealOutcome o = p.thief->steal(*p.owner, busy, kHalf, RemoteDelay{});
  CHECK(o.attempted);
  CHECK(o.nodes == 0);
  ThreadStats ts;
  p.thief->report(ts);
  CHECK(ts.requests_withdrawn == 1);
  CHECK(ts.request_wait_seconds > 0);
  // The cell is free again: a later request is answered normally.
  std::atomic<bool> finished{false};
  StealOutcome o2;
  std::thread t([&] {
    BusyMark b(p.termination, 1);
    o2 = p.thief->steal(*p.owner, b, kHalf, RemoteDelay{});
    finished.store(true);
  });
  while (!finished.load()) {
    p.owner->maintain();
    std::this_thread::yield();
  }
  t.join();
  ThreadStats ts2;
  p.thief->report(ts2);
  CHECK(ts2.requests_sent == 2);
  CHECK(o2.nodes + ts2.requests_withdrawn >= 2);  // answered (2 nodes), or withdrawn again if descheduled
}
