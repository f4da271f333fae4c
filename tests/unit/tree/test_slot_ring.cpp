// tree/slot_ring.hpp: the slot way's ring of three pairs of batches: what it
// holds, the order pairs come back to be hashed, and its capacity. Pure
// bookkeeping (no hashing), so it runs on every CPU.
#include <doctest/doctest.h>

#include <vector>

#include "tree/slot_ring.hpp"

using namespace uts;

namespace {
using Held = SlotRing::Held;

// Fills the filling batch (16 lanes in one slot) and says it is full.
int fill_batch(SlotRing& r) {
  r.queued(sha1::kMaxLanes - 1, 1);
  return r.batch_full();
}
// Fills the rest of the filling pair; returns the pair the ring hands back
// to be hashed, or kNoPair.
int fill_pair(SlotRing& r) {
  int hashed = SlotRing::kNoPair;
  if (r.first_half()) hashed = fill_batch(r);
  CHECK(hashed == SlotRing::kNoPair);  // a pair's first batch never hands one back
  return fill_batch(r);
}
// Which of the ring's pairs the filling batch belongs to.
int filling_pair(SlotRing& r) {
  for (int p = 0; p < SlotRing::kPairs; ++p)
    if (&r.filling() == &r.pair(p)[0] || &r.filling() == &r.pair(p)[1]) return p;
  FAIL("the filling batch is in no pair");
  return -1;
}
}  // namespace

TEST_CASE("SlotRing: a new ring holds nothing, and anything queued is held") {
  SlotRing r;
  CHECK_FALSE(r.holds());
  CHECK(r.held() == Held::nothing);
  CHECK(r.first_half());
  CHECK(r.lanes() == 0);
  CHECK(r.slots() == 0);
  r.queued(5, 2);
  CHECK(r.holds());
  CHECK(r.lanes() == 5);
  CHECK(r.slots() == 2);
  CHECK(r.held() == Held::nothing);  // nothing full yet
}

TEST_CASE("SlotRing: a full first batch moves to the pair's second, in the same pair") {
  SlotRing r;
  const int pair = filling_pair(r);
  CHECK(&r.filling() == &r.pair(pair)[0]);
  CHECK(fill_batch(r) == SlotRing::kNoPair);
  CHECK_FALSE(r.first_half());
  CHECK(&r.filling() == &r.pair(pair)[1]);
  CHECK(&r.second() == &r.pair(pair)[1]);
  CHECK(r.lanes() == 0);
  CHECK(r.holds());  // the full first batch
  CHECK(r.held() == Held::nothing);
}

TEST_CASE("SlotRing: pairs are handed back to be hashed in the order they were filled, one pair late") {
  SlotRing r;
  std::vector<int> filled, hashed;
  for (int i = 0; i < 8; ++i) {
    filled.push_back(filling_pair(r));
    const int h = fill_pair(r);
    if (i == 0) {
      CHECK(h == SlotRing::kNoPair);  // the first full pair waits for the next
      CHECK(r.held() == Held::waiting);
    } else {
      hashed.push_back(h);
    }
  }
  // The i-th pair handed back is the i-th filled; the three buffers in turn.
  REQUIRE(hashed.size() == 7);
  for (std::size_t i = 0; i < hashed.size(); ++i) {
    CAPTURE(i);
    CHECK(hashed[i] == filled[i]);
    CHECK(filled[i] == static_cast<int>(i % SlotRing::kPairs));
  }
  CHECK(r.held() == Held::waiting);  // the last full pair
}

TEST_CASE("SlotRing: at most three pairs: the deferred one's buffer is the next to fill") {
  // A pair handed back is hashed, its visit deferred; while the next pair is
  // hashed the ring holds one pair filling, one waiting and the deferred
  // one, and the deferred pair's buffer is the one filled after that.
  SlotRing r;
  CHECK(fill_pair(r) == SlotRing::kNoPair);
  const int h = fill_pair(r);
  REQUIRE(h != SlotRing::kNoPair);
  r.defer(h, sha1::kMaxLanes);
  CHECK(r.deferred());
  CHECK(r.held() == Held::waiting_and_deferred);
  const int waiting_pair = (filling_pair(r) + SlotRing::kPairs - 1) % SlotRing::kPairs;
  CHECK(h != filling_pair(r));
  CHECK(h != waiting_pair);
  // The next pair full: the waiting one is handed back, and the ring fills
  // the deferred pair's buffer, so its visit must come first.
  const int next = fill_pair(r);
  CHECK(next == waiting_pair);
  CHECK(filling_pair(r) == h);
  CHECK(r.deferred());  // still deferred until taken
  const SlotRing::Deferred d = r.take_deferred();
  CHECK(d.pair == h);
  CHECK(d.lanes == sha1::kMaxLanes);
  CHECK_FALSE(r.deferred());
  CHECK(r.held() == Held::waiting);
}

TEST_CASE("SlotRing: a flush takes the waiting pair, then the filling one as it is") {
  SlotRing r;
  const int first = filling_pair(r);
  CHECK(fill_pair(r) == SlotRing::kNoPair);  // waits
  const int second = filling_pair(r);
  CHECK(fill_batch(r) == SlotRing::kNoPair);  // the second pair's first batch
  r.queued(7, 3);                             // and 7 lanes in its second
  CHECK(r.take_waiting() == first);
  CHECK(r.held() == Held::nothing);
  CHECK(r.holds());
  const SlotRing::Taken t = r.take_filling();
  CHECK(t.pair == second);
  CHECK(t.half == 1);
  CHECK(t.lanes == 7);
  CHECK_FALSE(r.holds());
  CHECK(r.first_half());
  CHECK(&r.filling() == &r.pair(second)[0]);  // the same pair, from its start
}

TEST_CASE("SlotRing: a parent spilling into the pair's second batch") {
  SlotRing r;
  r.queued(10, 4);
  r.to_second(3, 1);  // 6 lanes finished the first batch, 3 in the second
  CHECK_FALSE(r.first_half());
  CHECK(r.lanes() == 3);
  CHECK(r.slots() == 1);
  CHECK(r.holds());
}

TEST_CASE("SlotRing: a dropped ring holds nothing, queued or waiting") {
  SlotRing r;
  CHECK(fill_pair(r) == SlotRing::kNoPair);
  r.queued(9, 2);
  REQUIRE(r.holds());
  r.drop();
  CHECK(r.dropped());
  CHECK_FALSE(r.holds());
  CHECK(r.lanes() == 0);
  CHECK(r.first_half());
}
