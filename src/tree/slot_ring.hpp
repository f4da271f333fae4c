// The slot way's buffers (docs/hashing.md): three pairs of slot batches used
// in turn, and where the one being filled stands. The ring says which pair
// fills, which waits and which was hashed and not yet visited; the slot
// expander (tree/slot_expander.hpp) does the hashing and the visits.
#pragma once

#include <cassert>
#include <cstdint>

#include "sha1/batch.hpp"

namespace uts {

// One slot batch and, beside it, each slot's children's height.
struct SlotBuffer {
  sha1::SlotBatch batch;
  alignas(64) std::uint32_t heights[sha1::kMaxLanes] = {};
};

// Three pairs of slot batches in turn:
//
//     filling ──(full)──> waiting ──(next pair full)──> hashed ──> filling ...
//
//   filling   the pair being written, batch `half` of it; `lanes` lanes and
//             `slots` slots of that batch taken
//   waiting   full, not yet hashed: it is hashed when the filling pair is
//             full, so the kernel's loads never read stores still in flight
//   hashed    hashed (its ids in the expander), its visit deferred to the
//             next pair's kernel (`deferred`); its buffer is the next to fill,
//             so that visit must come before the refills write there
//
// Invariants, checked after every change in a debug build (check(); an
// assert, compiled out under NDEBUG):
//   - a batch being filled is never full: 0 <= lanes < kMaxLanes;
//   - every slot has at least one lane: slots <= lanes;
//   - a pair waits whenever one is deferred (Held says so by construction);
//   - the deferred pair is the one after the filling pair, so the next to
//     fill;
//   - a dropped ring holds nothing.
class SlotRing {
 public:
  static constexpr int kPairs = 3;
  static constexpr int kNoPair = -1;

  // What the ring holds besides the filling pair.
  enum class Held : std::uint8_t {
    nothing,
    waiting,               // a full pair waits
    waiting_and_deferred,  // that, and a hashed pair waits for its visit
    dropped,               // the run stopped: everything was dropped, nothing is queued again
  };

  // ---- the filling pair ----
  [[gnu::always_inline]] SlotBuffer& filling() { return buf_[filling_][half_]; }
  // The filling pair's second batch (a parent's children spilling into it).
  [[gnu::always_inline]] SlotBuffer& second() { return buf_[filling_][1]; }
  [[gnu::always_inline]] int lanes() const { return lanes_; }
  [[gnu::always_inline]] int slots() const { return slots_; }
  // Whether the filling batch is the pair's first.
  [[gnu::always_inline]] bool first_half() const { return half_ == 0; }
  // The filling batch now has `lanes` lanes in `slots` slots.
  [[gnu::always_inline]] void queued(int lanes, int slots) {
    lanes_ = lanes;
    slots_ = slots;
    check();
  }
  // The first batch is full; the second starts with `lanes` lanes in `slots`
  // slots.
  [[gnu::always_inline]] void to_second(int lanes, int slots) {
    assert(half_ == 0);
    half_ = 1;
    lanes_ = lanes;
    slots_ = slots;
    check();
  }

  // The filling batch is full. The first of its pair: the second fills
  // next (kNoPair). The second: the pair waits and the next pair fills;
  // if a pair was waiting already, it is returned, to be hashed now.
  [[gnu::always_inline]] int batch_full() {
    lanes_ = 0;
    slots_ = 0;
    if (half_ == 0) {
      half_ = 1;
      check();
      return kNoPair;
    }
    half_ = 0;
    assert(held_ != Held::dropped);
    const int hashed = waiting();
    const bool was_waiting = held_ != Held::nothing;
    if (!was_waiting) held_ = Held::waiting;
    filling_ = filling_ == kPairs - 1 ? 0 : filling_ + 1;  // waiting() is now the pair just filled
    check_rotated();
    return was_waiting ? hashed : kNoPair;
  }

  // ---- the pair that waits ----
  [[gnu::always_inline]] Held held() const { return held_; }
  // The waiting pair, taken to be hashed now (flush); nothing waits after.
  int take_waiting() {
    assert(held_ == Held::waiting);
    held_ = Held::nothing;
    check();
    return waiting();
  }

  // ---- the hashed pair whose visit is deferred ----
  [[gnu::always_inline]] bool deferred() const { return held_ == Held::waiting_and_deferred; }
  // Pair `which` (just hashed: its first batch full, `lanes` lanes in its
  // second) is deferred. Only a full pair is (batch_full hands back no
  // other), so `lanes` is always kMaxLanes; it is kept as a value all the
  // same: as a constant, GCC unrolled the in-kernel visit's loop over the
  // columns and kept more of the kernel's state on the stack
  // (results/benchmarks/2026-11-28-expander-figures.md).
  [[gnu::always_inline]] void defer(int which, int lanes) {
    assert(held_ == Held::waiting);
    assert(which == (filling_ == kPairs - 1 ? 0 : filling_ + 1));  // the next to fill
    assert(lanes == sha1::kMaxLanes);
    held_ = Held::waiting_and_deferred;
    deferred_ = which;
    deferred_lanes_ = lanes;
    check();
  }
  // The deferred pair, taken to be visited now: which, and the lanes of its
  // second batch.
  struct Deferred {
    int pair, lanes;
  };
  [[gnu::always_inline]] Deferred take_deferred() {
    assert(held_ == Held::waiting_and_deferred);
    held_ = Held::waiting;
    return {deferred_, deferred_lanes_};
  }

  // The filling pair's batches, taken to be hashed as they are (flush):
  // `half` full batches, then `lanes` lanes in the next. The ring then fills
  // the same pair from its start.
  struct Taken {
    int pair, half, lanes;
  };
  Taken take_filling() {
    const Taken t{filling_, half_, lanes_};
    lanes_ = 0;
    slots_ = 0;
    half_ = 0;
    check();
    return t;
  }

  [[gnu::always_inline]] const SlotBuffer* pair(int which) const { return buf_[which]; }

  // Children are queued in the ring (filling, waiting or deferred).
  bool holds() const {
    return held_ == Held::waiting || held_ == Held::waiting_and_deferred || lanes_ != 0 || half_ != 0;
  }
  // The run stops: everything queued is dropped, for good.
  void drop() {
    lanes_ = 0;
    slots_ = 0;
    half_ = 0;
    held_ = Held::dropped;
    check();
  }
  [[gnu::always_inline]] bool dropped() const { return held_ == Held::dropped; }

 private:
  int waiting() const { return filling_ == 0 ? kPairs - 1 : filling_ - 1; }

  [[gnu::always_inline]] void check() const {
    assert(filling_ >= 0 && filling_ < kPairs);
    assert(half_ == 0 || half_ == 1);
    assert(lanes_ >= 0 && lanes_ < sha1::kMaxLanes);
    assert(slots_ >= 0 && slots_ <= lanes_);
    assert(held_ != Held::dropped || (lanes_ == 0 && half_ == 0));
  }
  // After a rotation: a deferred pair (hashed at the previous rotation) is
  // the one about to be filled; its visit comes before the refills write it.
  [[gnu::always_inline]] void check_rotated() const {
    check();
    assert(held_ != Held::waiting_and_deferred || deferred_ == filling_);
  }

  SlotBuffer buf_[kPairs][2];
  int lanes_ = 0;     // lanes taken in buf_[filling_][half_]
  int slots_ = 0;     // slots taken in it
  int filling_ = 0;   // the pair being filled
  int half_ = 0;      // its batch being filled (0: the first is not full)
  Held held_ = Held::nothing;
  int deferred_ = 0;  // the deferred pair, when held_ says there is one
  int deferred_lanes_ = 0;  // and the lanes of its second batch
};

}  // namespace uts
