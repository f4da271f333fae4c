// The split deque (split_deque.hpp) on its own: owner and thief operations,
// growth, wrap-around and checkpoints, retired rings, and every node
// conserved under concurrent steals.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "steal/protocols/split/split_deque.hpp"
#include "workload/items.hpp"

using namespace uts;

namespace {

Node node_with_serial(std::uint32_t serial) { return make_item(serial, 1, 1); }

// Steal from `d` into a fresh deque and return the stolen serials in claim
// order (shallowest first).
std::uint32_t steal_into(SplitDeque& d, std::vector<ThiefRecord>& records, const StealPolicy& p,
                         std::vector<std::uint32_t>& out) {
  SplitDeque mine(records);
  const std::uint32_t got = d.steal(p, mine, records[1]);
  std::vector<std::uint32_t> popped;
  Node n;
  while (mine.pop(n)) popped.push_back(n.id[0]);
  out.insert(out.end(), popped.rbegin(), popped.rend());
  return got;
}

struct StressOutcome {
  std::size_t produced = 0, lost = 0, duplicated = 0, corrupt = 0;
  std::uint64_t stolen = 0, shares = 0, nodes_shared = 0, reclaims = 0, nodes_reclaimed = 0;
  std::uint32_t final_capacity = 0;
};

// One owner pushes bursts, pops, shares on request; `thieves` threads copy
// and claim with mixed policies into their own deques and request shares.
// More threads than this machine's cores on purpose: preemption between copy
// and claim is what the protocol must survive.
StressOutcome stress(int thieves, int rounds, SplitDeque::Options options, int max_burst, unsigned seed) {
  const std::size_t max_nodes = static_cast<std::size_t>(rounds) * static_cast<std::size_t>(max_burst) + 16;
  Ledger ledger(max_nodes);
  std::vector<ThiefRecord> records(static_cast<std::size_t>(thieves) + 1);
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> stolen{0};
  std::unique_ptr<SplitDeque> deque;
  std::atomic<bool> ready{false};
  std::atomic<int> started{0};
  StressOutcome out;

  std::vector<std::thread> pool;
  for (int t = 0; t < thieves; ++t) {
    pool.emplace_back([&, t] {
      SplitDeque mine(records, {16, options.start_position, options.checkpoint_interval});
      ThiefRecord& me = records[static_cast<std::size_t>(t) + 1];
      while (!ready.load(std::memory_order_acquire)) std::this_thread::yield();
      started.fetch_add(1);
      std::mt19937 rng(seed * 7919u + static_cast<unsigned>(t));
      const StealPolicy policies[] = {{StealAmount::half, 0}, {StealAmount::one, 0}, {StealAmount::chunk, 3}};
      std::uint64_t count = 0;
      Node n;
      while (!done.load(std::memory_order_acquire)) {
        const StealPolicy& p = policies[rng() % 3];
        const std::uint32_t got = deque->steal(p, mine, me);
        count += got;
        while (mine.pop(n)) ledger.take(n);
        if (got == 0) {
          deque->request_share();
          if (rng() % 4 == 0) std::this_thread::yield();
        }
      }
      stolen.fetch_add(count);
    });
  }

  std::thread owner([&] {
    deque = std::make_unique<SplitDeque>(records, options);  // first touch by the owner
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
    out.nodes_shared = deque->nodes_shared();
    out.reclaims = deque->reclaims();
    out.nodes_reclaimed = deque->nodes_reclaimed();
    out.final_capacity = deque->capacity();
  });
  owner.join();
  done.store(true, std::memory_order_release);
  for (auto& t : pool) t.join();
  out.lost = ledger.lost(out.produced);
  out.duplicated = ledger.duplicated();
  out.corrupt = ledger.corrupted();
  out.stolen = stolen.load();
  return out;
}

void check_exact(const StressOutcome& o) {
  CHECK(o.lost == 0);
  CHECK(o.duplicated == 0);
  CHECK(o.corrupt == 0);
  // Conservation: every node shared was either stolen or reclaimed.
  CHECK(o.nodes_shared == o.stolen + o.nodes_reclaimed);
}

// A thief that stops inside its attempt, between its copy and its claim,
// until released: what preemption does to a thief on a busy machine.
class StalledThief {
 public:
  StalledThief(SplitDeque& victim, std::vector<ThiefRecord>& records, std::size_t record, Ledger* ledger)
      : thread_([this, &victim, &records, record, ledger] {
          SplitDeque mine(records);
          got_ = victim.steal({StealAmount::half, 0}, mine, records[record], [this] {
            inside_.store(true);
            while (!release_.load()) std::this_thread::yield();
          });
          Node n;
          while (mine.pop(n))
            if (ledger) ledger->take(n);
        }) {
    while (!inside_.load()) std::this_thread::yield();
  }
  ~StalledThief() {
    release();
    if (thread_.joinable()) thread_.join();
  }
  void release() { release_.store(true); }
  std::uint32_t join() {
    release();
    thread_.join();
    return got_;
  }

 private:
  std::atomic<bool> inside_{false}, release_{false};
  std::uint32_t got_ = 0;
  std::thread thread_;
};

// Serials 0 .. n-1 pushed, then a requested share: the shallowest n/2 shared.
void push_and_share_half(SplitDeque& d, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) d.push(node_with_serial(i));
  d.request_share();
  d.share();
}

}  // namespace

TEST_CASE("owner alone: LIFO at the deep end, empty after the last pop") {
  std::vector<ThiefRecord> records(1);
  SplitDeque d(records, {4, 0, 1u << 30});
  for (std::uint32_t i = 0; i < 100; ++i) d.push(node_with_serial(i));  // grows past 4
  CHECK(d.capacity() == 128);
  CHECK(d.retired_rings() == 0);  // no hazard held: every retired ring was freed at once
  Node n;
  for (std::uint32_t i = 100; i-- > 0;) {
    REQUIRE(d.pop(n));
    CHECK(n.id[0] == i);
  }
  CHECK_FALSE(d.pop(n));
  CHECK(d.shared_size() == 0);
}

TEST_CASE("share moves the shallowest half; steals take from the shallow end by policy") {
  std::vector<ThiefRecord> records(2);
  SplitDeque d(records, {64, 0, 1u << 30});
  for (std::uint32_t i = 0; i < 20; ++i) d.push(node_with_serial(i));
  CHECK(d.shared_size() == 0);
  CHECK_FALSE(d.share_requested());
  d.request_share();
  CHECK(d.share_requested());
  d.share();
  CHECK_FALSE(d.share_requested());
  CHECK(d.shared_size() == 10);
  CHECK(d.private_size() == 10);
  CHECK(d.shares() == 1);
  CHECK(d.nodes_shared() == 10);
  std::vector<std::uint32_t> got;
  CHECK(steal_into(d, records, {StealAmount::half, 0}, got) == 5);  // ceil(10/2), oldest first
  CHECK(got == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  got.clear();
  CHECK(steal_into(d, records, {StealAmount::one, 0}, got) == 1);
  CHECK(got == std::vector<std::uint32_t>{5});
  got.clear();
  CHECK(steal_into(d, records, {StealAmount::chunk, 5}, got) == 0);  // only 4 shared: chunk needs 5
  CHECK(steal_into(d, records, {StealAmount::chunk, 3}, got) == 3);
  CHECK(got == std::vector<std::uint32_t>{6, 7, 8});
  CHECK(steal_into(d, records, {StealAmount::half, 0}, got) == 1);  // ceil(1/2)
  CHECK(d.shared_size() == 0);
  CHECK(d.reclaims() == 0);
}

TEST_CASE("reclaim takes every shared node back, deepest on top, when the private part is dry") {
  std::vector<ThiefRecord> records(2);
  SplitDeque d(records, {64, 0, 1u << 30});
  push_and_share_half(d, 8);  // shared 0..3, private 4..7
  Node n;
  for (std::uint32_t i = 8; i-- > 4;) {
    REQUIRE(d.pop(n));
    CHECK(n.id[0] == i);
  }
  std::vector<std::uint32_t> got;
  CHECK(steal_into(d, records, {StealAmount::one, 0}, got) == 1);  // a thief takes node 0
  REQUIRE(d.pop(n));  // reclaims 1..3, pops 3
  CHECK(n.id[0] == 3);
  CHECK(d.reclaims() == 1);
  CHECK(d.nodes_reclaimed() == 3);
  CHECK(d.shared_size() == 0);
  got.clear();
  CHECK(steal_into(d, records, {StealAmount::half, 0}, got) == 0);  // nothing shared any more
  REQUIRE(d.pop(n));
  CHECK(n.id[0] == 2);
  REQUIRE(d.pop(n));
  CHECK(n.id[0] == 1);
  CHECK_FALSE(d.pop(n));
  CHECK(d.nodes_shared() == 1 + d.nodes_reclaimed());  // shared = stolen + reclaimed
}

TEST_CASE("pop_private takes only private nodes, never reclaims; pop then reclaims the rest") {
  std::vector<ThiefRecord> records(2);
  SplitDeque d(records, {64, 0, 1u << 30});
  push_and_share_half(d, 8);  // shared 0..3, private 4..7
  Node n;
  for (std::uint32_t i = 8; i-- > 4;) {
    REQUIRE(d.pop_private(n));
    CHECK(n.id[0] == i);
  }
  CHECK_FALSE(d.pop_private(n));  // private part dry, shared nodes stay shared
  CHECK(d.shared_size() == 4);
  CHECK(d.reclaims() == 0);
  std::vector<std::uint32_t> got;
  CHECK(steal_into(d, records, {StealAmount::one, 0}, got) == 1);  // still stealable: node 0
  CHECK(got == std::vector<std::uint32_t>{0});
  REQUIRE(d.pop(n));  // reclaims 1..3
  CHECK(n.id[0] == 3);
  CHECK(d.reclaims() == 1);
  REQUIRE(d.pop_private(n));  // reclaimed nodes are private again
  CHECK(n.id[0] == 2);
  REQUIRE(d.pop_private(n));
  CHECK(n.id[0] == 1);
  CHECK_FALSE(d.pop_private(n));
  CHECK_FALSE(d.pop(n));
}

TEST_CASE("a fully stolen deque is known empty and reusable") {
  std::vector<ThiefRecord> records(2);
  SplitDeque d(records, {16, 0, 1u << 30});
  for (int round = 0; round < 50; ++round) {  // positions advance past the ring many times
    for (std::uint32_t i = 0; i < 6; ++i) d.push(node_with_serial(i));
    d.request_share();
    d.share();
    std::vector<std::uint32_t> got;
    while (steal_into(d, records, {StealAmount::one, 0}, got) > 0) {
    }
    Node n;
    int popped = 0;
    while (d.pop(n)) ++popped;
    CHECK(popped == 3);
    CHECK(got.size() == 3);
  }
  CHECK(d.capacity() == 16);  // 6 live nodes: wrap-around reuses the ring
}

TEST_CASE("stress: conservation of every node under concurrent claims (oversubscribed)") {
  for (int thieves : {1, 3, 8}) {
    CAPTURE(thieves);
    const StressOutcome o = stress(thieves, 20000, {64, 0, 1u << 30}, 24, 17u + static_cast<unsigned>(thieves));
    CHECK(o.produced > 10000);
    check_exact(o);
    CHECK(o.stolen > 0);  // the thieves really raced the owner
    CHECK(o.shares > 0);
    CHECK(o.reclaims > 0);
    CHECK(o.nodes_reclaimed > 0);
  }
}

TEST_CASE("growth under concurrent steals: start tiny, push long bursts") {
  const StressOutcome o = stress(6, 600, {2, 0, 1u << 30}, 3000, 99u);
  CHECK(o.final_capacity >= 1024);
  check_exact(o);
  CHECK(o.stolen > 0);
}

TEST_CASE("positions wrap past 2^32 and checkpoints pass often: still exact") {
  // Start 5000 positions below the wrap, with a checkpoint every 64 shared
  // positions, so owner waits for in-flight attempts happen all the time.
  const StressOutcome o = stress(3, 20000, {32, 0xFFFFFFFFu - 5000u, 64}, 24, 5u);
  CHECK(o.produced > 10000);
  check_exact(o);
  CHECK(o.stolen > 0);
  CHECK(o.reclaims > 0);
}

TEST_CASE("a thief stalled between copy and claim does not make the ring grow") {
  // The old protocol doubled the ring at every wrap while a copy was in
  // flight: 2^21 slots and 11 retired rings here. Now memory follows the
  // live nodes, whatever the stalled thief does.
  constexpr std::uint32_t kRounds = 200000;
  std::vector<ThiefRecord> records(3);
  Ledger ledger(16 * kRounds + 64);
  SplitDeque d(records, {16, 0, 1u << 30});
  std::uint32_t serial = 0;
  for (int i = 0; i < 8; ++i) d.push(node_with_serial(serial++));
  d.share();  // 4 shared: the stalled thief copies 2 of them
  std::uint64_t stolen = 0;
  {
    StalledThief stalled(d, records, 1, &ledger);
    SplitDeque second(records);
    Node n;
    for (std::uint32_t round = 0; round < kRounds; ++round) {
      for (int i = 0; i < 12; ++i) d.push(node_with_serial(serial++));  // at most 16 live
      d.share();
      stolen += d.steal({StealAmount::half, 0}, second, records[2]);
      while (d.shared_size() > 0) stolen += d.steal({StealAmount::one, 0}, second, records[2]);
      while (second.pop(n)) ledger.take(n);
      while (d.private_size() > 0 && d.pop(n)) ledger.take(n);
    }
    // One growth at the start (20 live > 16); the 16-slot ring it retired
    // is the one the stalled thief reads, so it stays until the next scan.
    CHECK(d.capacity() <= 32);
    CHECK(d.retired_rings() <= 1);
    CHECK(d.ring_bytes() <= (32 + 16) * 32);
    const std::uint32_t late = stalled.join();
    CHECK(late == 0);  // its claim failed: top moved on long ago
    Node last;
    while (d.pop(last)) ledger.take(last);
  }
  CHECK(ledger.lost(serial) == 0);
  CHECK(ledger.duplicated() == 0);
  CHECK(ledger.corrupted() == 0);
  CHECK(stolen > 0);
}

TEST_CASE("a retired ring is freed only once no thief can still read it") {
  std::vector<ThiefRecord> records(2);
  Ledger ledger(4096);
  SplitDeque d(records, {8, 0, 1u << 30});
  std::uint32_t serial = 0;
  for (int i = 0; i < 6; ++i) d.push(node_with_serial(serial++));
  d.share();  // 3 shared
  StalledThief stalled(d, records, 1, &ledger);  // holds a hazard on the first ring
  for (int i = 0; i < 20; ++i) d.push(node_with_serial(serial++));  // 26 live > 8: grows twice
  CHECK(d.capacity() == 32);
  CHECK(d.retired_rings() == 1);  // the 8-slot ring stays; the 16-slot one was freed
  const std::uint32_t got = stalled.join();
  CHECK(got == 2);  // nothing moved top: its copy from the retired ring is valid
  for (int i = 0; i < 40; ++i) d.push(node_with_serial(serial++));  // grows again, scans again
  CHECK(d.retired_rings() == 0);
  Node n;
  while (d.pop(n)) ledger.take(n);
  CHECK(ledger.lost(serial) == 0);
  CHECK(ledger.duplicated() == 0);
  CHECK(ledger.corrupted() == 0);
}

TEST_CASE("split does not pass a checkpoint while a steal attempt is in progress") {
  std::vector<ThiefRecord> records(2);
  SplitDeque d(records, {64, 0, 16});
  std::uint32_t serial = 0;
  for (int i = 0; i < 4; ++i) d.push(node_with_serial(serial++));
  d.share();  // split 2: below the first checkpoint (16)
  StalledThief stalled(d, records, 1, nullptr);
  for (int i = 0; i < 60; ++i) d.push(node_with_serial(serial++));
  std::atomic<bool> shared{false};
  std::thread owner([&] {
    d.share();  // split 2 + 31 = 33: passes 16 and 32, so it waits for the attempt
    shared.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(shared.load());  // still waiting (the thief has not moved)
  stalled.join();
  owner.join();
  CHECK(shared.load());
  CHECK(d.checkpoint_waits() == 1);
}

TEST_CASE("pusher/commit: the pushed nodes, in order, across growth") {
  std::vector<ThiefRecord> records(1);
  SplitDeque d(records, {2, 0xFFFFFFF0u, 1u << 30});  // grows, and positions wrap past 2^32
  std::vector<std::uint32_t> kept;
  for (std::uint32_t i = 0; i < 300; i += 10) {
    auto out = d.pusher(10);
    for (std::uint32_t j = i; j < i + 10; ++j) {
      if (j % 3 == 0) continue;  // room for 10, fewer pushed
      out.push(node_with_serial(j));
      kept.push_back(j);
    }
    d.commit(out);
    CHECK(d.private_size() == kept.size());
  }
  Node n;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    REQUIRE(d.pop(n));
    CHECK(n.id[0] == *it);
    CHECK(n.id[4] == *it * 2654435761u);  // every word survives the 64-bit packing
    CHECK(n.height == 1);
    CHECK(n.children == 1);
  }
  CHECK_FALSE(d.pop(n));
}

TEST_CASE("a ring grown by a steal into this deque, or by a pusher, is where its owner then pushes and pops") {
  // The owner keeps its own copy of the ring's slots and mask for pop() and
  // pusher(); every path that grows the ring must refresh it.
  std::vector<ThiefRecord> records(2);
  SplitDeque victim(records, {64, 0, 1u << 30});
  for (std::uint32_t i = 0; i < 40; ++i) victim.push(node_with_serial(i));
  victim.share_all();
  SplitDeque thief(records, {2, 0xFFFFFFFCu, 1u << 30});  // tiny, and positions wrap
  thief.push(node_with_serial(1000));
  REQUIRE(thief.capacity() == 2);
  REQUIRE(victim.steal({StealAmount::half, 0}, thief, records[1]) == 20);  // the steal grows the thief's ring
  REQUIRE(thief.capacity() >= 21);
  std::vector<std::uint32_t> want{1000};
  for (std::uint32_t i = 0; i < 20; ++i) want.push_back(i);
  const std::uint32_t cap = thief.capacity();
  auto out = thief.pusher(cap);  // and now a pusher grows it again
  for (std::uint32_t i = 0; i < cap; ++i) {
    out.push(node_with_serial(2000 + i));
    want.push_back(2000 + i);
  }
  thief.commit(out);
  CHECK(thief.capacity() > cap);
  // Share all, then pop: the reclaim (which reuses the ring: nothing is
  // live once it claims) copies into the ring the owner pops from.
  thief.share_all();
  Node n;
  for (auto it = want.rbegin(); it != want.rend(); ++it) {
    REQUIRE(thief.pop(n));
    CHECK(n.id[0] == *it);
  }
  CHECK_FALSE(thief.pop(n));
}

TEST_CASE("take_shallowest: shared nodes first, then the shallowest private ones, oldest first") {
  std::vector<ThiefRecord> records(2);
  SplitDeque d(records, {64, 0, 1u << 30});
  for (std::uint32_t i = 0; i < 10; ++i) d.push(node_with_serial(i));
  d.share();  // shared 0..4, private 5..9
  Node out[16];
  REQUIRE(d.take_shallowest(3, out) == 3);  // shared only
  CHECK(out[0].id[0] == 0);
  CHECK(out[2].id[0] == 2);
  CHECK(d.shared_size() == 2);
  CHECK(d.reclaims() == 1);
  CHECK(d.nodes_reclaimed() == 3);
  REQUIRE(d.take_shallowest(4, out) == 4);  // shared 3, 4 and private 5, 6
  CHECK(out[0].id[0] == 3);
  CHECK(out[3].id[0] == 6);
  CHECK(d.shared_size() == 0);
  CHECK(d.nodes_reclaimed() == 5);  // only the two shared ones count as reclaimed
  CHECK(d.size() == 3);
  CHECK(d.take_shallowest(100, out) == 3);  // what is held, no more
  CHECK(out[2].id[0] == 9);
  Node n;
  CHECK_FALSE(d.pop(n));
  CHECK(d.take_shallowest(5, out) == 0);
  // The deque works on: a thief holding an old view fails, new nodes flow.
  for (std::uint32_t i = 20; i < 24; ++i) d.push(node_with_serial(i));
  d.share();
  std::vector<std::uint32_t> got;
  CHECK(steal_into(d, records, {StealAmount::one, 0}, got) == 1);
  CHECK(got == std::vector<std::uint32_t>{20});
  CHECK(d.nodes_shared() == 5 + 2);
  CHECK(d.nodes_shared() == 1 + d.nodes_reclaimed() + d.shared_size());  // stolen + reclaimed + still shared
}

TEST_CASE("take_shallowest racing thieves, across wrap-around and checkpoints: every node once") {
  // The owner pushes, pops, shares and gives its shallowest nodes away (as an
  // MPI rank's agent does) while thieves claim; every serial is taken once.
  for (std::uint32_t start : {0u, 0xFFFFFFFFu - 3000u}) {
    CAPTURE(start);
    constexpr int kThieves = 3, kRounds = 4000;
    std::vector<ThiefRecord> records(kThieves + 1);
    Ledger ledger(kRounds * 16 + 16);
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> stolen{0};
    SplitDeque d(records, {16, start, 64});
    std::vector<std::thread> thieves;
    for (int t = 0; t < kThieves; ++t)
      thieves.emplace_back([&, t] {
        SplitDeque mine(records, {16, start, 64});
        Node n;
        while (!done.load(std::memory_order_acquire)) {
          const std::uint32_t got = d.steal({StealAmount::half, 0}, mine, records[static_cast<std::size_t>(t) + 1]);
          stolen.fetch_add(got, std::memory_order_relaxed);
          while (mine.pop(n)) ledger.take(n);
          if (got == 0) {
            d.request_share();
            std::this_thread::yield();
          }
        }
      });
    std::uint32_t serial = 0;
    std::uint64_t given = 0;
    Node n, out[8];
    for (int round = 0; round < kRounds; ++round) {
      for (int i = 0; i < 12; ++i) d.push(node_with_serial(serial++));
      if (d.share_requested() || round % 3 == 0) d.share();
      const std::uint32_t k = d.take_shallowest(static_cast<std::uint32_t>(round % 8), out);
      given += k;
      for (std::uint32_t i = 0; i < k; ++i) ledger.take(out[i]);
      for (int i = 0; i < 10 && d.pop(n); ++i) ledger.take(n);
    }
    done.store(true, std::memory_order_release);
    for (auto& t : thieves) t.join();
    while (d.pop(n)) ledger.take(n);
    CHECK(ledger.lost(serial) == 0);
    CHECK(ledger.duplicated() == 0);
    CHECK(ledger.corrupted() == 0);
    CHECK(given > 0);
    CHECK(d.nodes_shared() == stolen.load() + d.nodes_reclaimed());  // shared = stolen + reclaimed
  }
}
