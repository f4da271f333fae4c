#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "parallel/split_deque.hpp"
#include "parallel/victim.hpp"

using namespace uts;

namespace {

Node node_with_serial(std::uint32_t serial) { return Node{{serial, 0, 0, 0, serial * 2654435761u}, 1, 1}; }

std::uint64_t steal_into(SplitDeque& d, const StealPolicy& p, std::vector<std::uint32_t>& out) {
  return d.steal(p, [&](const Node& n) { out.push_back(n.id[0]); });
}

// Every serial must be taken exactly once: duplicates and losses both count.
class Ledger {
 public:
  explicit Ledger(std::size_t n) : seen_(n) {}
  void take(const Node& n) {
    const std::uint32_t serial = n.id[0];
    if (serial >= seen_.size() || n.id[4] != serial * 2654435761u) {
      corrupt_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    seen_[serial].fetch_add(1, std::memory_order_relaxed);
  }
  std::size_t lost(std::size_t produced) const {
    std::size_t lost = 0;
    for (std::size_t i = 0; i < produced; ++i) lost += seen_[i].load() == 0;
    return lost;
  }
  std::size_t duplicated() const {
    std::size_t dup = 0;
    for (const auto& s : seen_) dup += s.load() > 1;
    return dup;
  }
  std::size_t corrupt() const { return corrupt_.load(); }

 private:
  std::vector<std::atomic<std::uint32_t>> seen_;
  std::atomic<std::size_t> corrupt_{0};
};

struct StressOutcome {
  std::size_t produced = 0, lost = 0, duplicated = 0, corrupt = 0;
  std::uint64_t stolen = 0, shares = 0, reclaims = 0;
  std::uint32_t final_capacity = 0;
};

// One owner pushes bursts, pops, shares on request; `thieves` threads claim
// with mixed policies and request shares. More threads than this machine's
// cores on purpose: preemption mid-claim is what the protocol must survive.
StressOutcome stress(int thieves, int rounds, std::uint32_t initial_capacity, int max_burst, unsigned seed) {
  const std::size_t max_nodes = static_cast<std::size_t>(rounds) * static_cast<std::size_t>(max_burst) + 16;
  Ledger ledger(max_nodes);
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> stolen{0};
  std::unique_ptr<SplitDeque> deque;
  std::atomic<bool> ready{false};
  std::atomic<int> started{0};
  StressOutcome out;

  std::vector<std::thread> pool;
  for (int t = 0; t < thieves; ++t) {
    pool.emplace_back([&, t] {
      while (!ready.load(std::memory_order_acquire)) std::this_thread::yield();
      started.fetch_add(1);
      std::mt19937 rng(seed * 7919u + static_cast<unsigned>(t));
      const StealPolicy policies[] = {{StealAmount::half, 0}, {StealAmount::one, 0}, {StealAmount::chunk, 3}};
      std::uint64_t mine = 0;
      while (!done.load(std::memory_order_acquire)) {
        const StealPolicy& p = policies[rng() % 3];
        const std::uint32_t got = deque->steal(p, [&](const Node& n) { ledger.take(n); });
        mine += got;
        if (got == 0) {
          deque->request_share();
          if (rng() % 4 == 0) std::this_thread::yield();
        }
      }
      stolen.fetch_add(mine);
    });
  }

  std::thread owner([&] {
    deque = std::make_unique<SplitDeque>(initial_capacity);  // first touch by the owner
    ready.store(true, std::memory_order_release);
    while (started.load() < thieves) std::this_thread::yield();  // race for real
    std::mt19937 rng(seed);
    std::uint32_t serial = 0;
    Node n;
    for (int round = 0; round < rounds; ++round) {
      const int burst = static_cast<int>(rng() % static_cast<unsigned>(max_burst));
      for (int i = 0; i < burst; ++i) {
        deque->push(node_with_serial(serial++));
        if (deque->share_requested()) deque->share();
      }
      if (round % 64 == 0) std::this_thread::yield();  // let thieves run on a 2-core machine
      // Share unprompted now and then, and sometimes drain completely, so the
      // shared part is often non-empty when the private part runs dry:
      // reclaims then happen whatever the scheduling.
      if (rng() % 4 == 0) deque->share();
      const bool drain = rng() % 8 == 0;
      const int pops = drain ? 1 << 30 : static_cast<int>(rng() % static_cast<unsigned>(burst + 4));
      for (int i = 0; i < pops; ++i) {
        if (!deque->pop(n)) break;  // everything was stolen
        ledger.take(n);
        if (deque->share_requested()) deque->share();
      }
    }
    while (deque->pop(n)) ledger.take(n);
    out.produced = serial;
    out.shares = deque->shares();
    out.reclaims = deque->reclaims();
    out.final_capacity = deque->capacity();
  });
  owner.join();
  done.store(true, std::memory_order_release);
  for (auto& t : pool) t.join();
  out.lost = ledger.lost(out.produced);
  out.duplicated = ledger.duplicated();
  out.corrupt = ledger.corrupt();
  out.stolen = stolen.load();
  return out;
}

}  // namespace

TEST_CASE("owner alone: LIFO at the deep end, empty after the last pop") {
  SplitDeque d(4);
  for (std::uint32_t i = 0; i < 100; ++i) d.push(node_with_serial(i));  // grows past 4
  CHECK(d.capacity() >= 128);
  Node n;
  for (std::uint32_t i = 100; i-- > 0;) {
    REQUIRE(d.pop(n));
    CHECK(n.id[0] == i);
  }
  CHECK_FALSE(d.pop(n));
  CHECK(d.shared_size() == 0);
}

TEST_CASE("share moves the shallowest half; steals take from the shallow end by policy") {
  SplitDeque d(64);
  for (std::uint32_t i = 0; i < 20; ++i) d.push(node_with_serial(i));
  CHECK(d.shared_size() == 0);
  CHECK_FALSE(d.share_requested());
  d.request_share();
  CHECK(d.share_requested());
  d.share();
  CHECK_FALSE(d.share_requested());
  CHECK(d.shared_size() == 10);
  CHECK(d.private_size() == 10);
  std::vector<std::uint32_t> got;
  CHECK(steal_into(d, {StealAmount::half, 0}, got) == 5);  // ceil(10/2), oldest first
  CHECK(got == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  got.clear();
  CHECK(steal_into(d, {StealAmount::one, 0}, got) == 1);
  CHECK(got == std::vector<std::uint32_t>{5});
  got.clear();
  CHECK(steal_into(d, {StealAmount::chunk, 5}, got) == 0);  // only 4 shared: chunk needs 5
  CHECK(steal_into(d, {StealAmount::chunk, 3}, got) == 3);
  CHECK(got == std::vector<std::uint32_t>{6, 7, 8});
  CHECK(steal_into(d, {StealAmount::half, 0}, got) == 1);  // ceil(1/2)
  CHECK(d.shared_size() == 0);
}

TEST_CASE("reclaim takes back the deeper half of the shared part when the private part is dry") {
  SplitDeque d(64);
  for (std::uint32_t i = 0; i < 8; ++i) d.push(node_with_serial(i));
  d.request_share();
  d.share();  // shared 0..3, private 4..7
  Node n;
  for (std::uint32_t i = 8; i-- > 4;) {
    REQUIRE(d.pop(n));
    CHECK(n.id[0] == i);
  }
  REQUIRE(d.pop(n));  // reclaims ceil(4/2) = 2 (nodes 2, 3), pops 3
  CHECK(n.id[0] == 3);
  CHECK(d.reclaims() == 1);
  CHECK(d.shared_size() == 2);
  std::vector<std::uint32_t> got;
  CHECK(steal_into(d, {StealAmount::half, 0}, got) == 1);
  CHECK(got == std::vector<std::uint32_t>{0});
  REQUIRE(d.pop(n));
  CHECK(n.id[0] == 2);
  REQUIRE(d.pop(n));  // reclaims the last shared node
  CHECK(n.id[0] == 1);
  CHECK_FALSE(d.pop(n));
}

TEST_CASE("a fully stolen deque is known empty and reusable") {
  SplitDeque d(16);
  for (int round = 0; round < 50; ++round) {  // positions advance past the ring many times
    for (std::uint32_t i = 0; i < 6; ++i) d.push(node_with_serial(i));
    d.request_share();
    d.share();
    std::vector<std::uint32_t> got;
    while (steal_into(d, {StealAmount::one, 0}, got) > 0) {
    }
    Node n;
    int popped = 0;
    while (d.pop(n)) ++popped;
    CHECK(popped == 3);
    CHECK(got.size() == 3);
  }
  CHECK(d.capacity() == 16);  // 6 live nodes < 16/2: wrap-around reuses the ring
}

TEST_CASE("stress: conservation of every node under concurrent claims (oversubscribed)") {
  for (int thieves : {1, 3, 8}) {
    CAPTURE(thieves);
    const StressOutcome o = stress(thieves, 20000, 64, 24, 17u + static_cast<unsigned>(thieves));
    CHECK(o.produced > 10000);
    CHECK(o.lost == 0);
    CHECK(o.duplicated == 0);
    CHECK(o.corrupt == 0);
    CHECK(o.stolen > 0);   // the thieves really raced the owner
    CHECK(o.shares > 0);
    CHECK(o.reclaims > 0);
  }
}

TEST_CASE("growth under concurrent steals: start tiny, push long bursts") {
  const StressOutcome o = stress(6, 600, 2, 3000, 99u);
  CHECK(o.final_capacity >= 1024);
  CHECK(o.lost == 0);
  CHECK(o.duplicated == 0);
  CHECK(o.corrupt == 0);
  CHECK(o.stolen > 0);
}

TEST_CASE("Manber search: one round visits every other real deque once, then the round advances") {
  for (int threads : {2, 3, 5, 8}) {
    for (int self = 0; self < threads; ++self) {
      CAPTURE(threads);
      CAPTURE(self);
      ManberTree tree(threads);
      VictimSelector s(VictimOrder::tree, self, threads, &tree, 1);
      s.begin_search();
      std::vector<int> visits(static_cast<std::size_t>(threads), 0);
      while (s.round() == 1) {
        const int v = s.next();
        if (s.round() != 1) break;
        REQUIRE(v != self);
        REQUIRE(v >= 0);
        REQUIRE(v < threads);
        ++visits[static_cast<std::size_t>(v)];
        s.missed();
      }
      for (int v = 0; v < threads; ++v) CHECK(visits[static_cast<std::size_t>(v)] == (v == self ? 0 : 1));
    }
  }
}

TEST_CASE("Manber search: a thread behind adopts the newer round and restarts at its own leaf") {
  ManberTree tree(4);
  VictimSelector fast(VictimOrder::tree, 0, 4, &tree, 1);
  VictimSelector slow(VictimOrder::tree, 3, 4, &tree, 2);
  fast.begin_search();
  for (int i = 0; i < 20 && fast.round() < 3; ++i) {
    fast.next();
    fast.missed();
  }
  REQUIRE(fast.round() >= 3);
  slow.begin_search();
  slow.next();
  slow.missed();
  for (int i = 0; i < 4; ++i) {
    slow.next();
    slow.missed();
  }
  CHECK(slow.round() >= fast.round() - 1);
}

TEST_CASE("Manber search starts where work was last found") {
  ManberTree tree(8);
  VictimSelector s(VictimOrder::tree, 0, 8, &tree, 1);
  s.begin_search();
  s.found_work(6);
  s.begin_search();
  CHECK(s.next() == 6);
}

TEST_CASE("random and linear victims never pick the thief itself") {
  for (VictimOrder order : {VictimOrder::random, VictimOrder::linear}) {
    VictimSelector s(order, 2, 5, nullptr, 3);
    s.begin_search();
    std::vector<int> seen(5, 0);
    for (int i = 0; i < 400; ++i) {
      const int v = s.next();
      REQUIRE(v != 2);
      ++seen[static_cast<std::size_t>(v)];
      s.missed();
    }
    for (int v : {0, 1, 3, 4}) CHECK(seen[static_cast<std::size_t>(v)] > 50);
  }
  VictimSelector lone(VictimOrder::random, 0, 1, nullptr, 3);
  CHECK(lone.next() == -1);
}
