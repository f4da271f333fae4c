// The lane way of expanding across nodes (shani, cryptopp; docs/hashing.md):
// children of successive parents queued into one row batch of
// sha1::kShaniLanes lanes, hashed when it is full, visited in one call.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "sha1/batch.hpp"
#include "tree/counts.hpp"
#include "tree/expansion.hpp"
#include "tree/node.hpp"
#include "tree/tree.hpp"

namespace uts {

// Each parent's words are written once, to a row at the lane its first
// child takes, and each lane told its row (sha1::RowBatch); the batch is
// hashed when full, into rows (sha1::RowIds), then visited in one call
// (Tree::visit_rows). So nodes with one to three children still fill the
// lanes. At most kLanes - 1 children wait between calls; the lane way
// hashes as it fills, so it takes no refill.
class LaneExpander {
 public:
  // The SHA-NI kernel's widest interleaving; Crypto++ takes the same batch.
  static constexpr int kLanes = sha1::batch_lanes(sha1::Path::shani);
  static_assert(kLanes == sha1::batch_lanes(sha1::Path::cryptopp));
  static_assert(kLanes + sha1::RowBatch::kFill <= 2 * sha1::kMaxLanes);  // put()'s heights fit heights_

  // Queue `parent`'s children, hashing every batch they fill. `refill` is
  // not called (the signature is the other ways').
  template <class Sink, class KeepGoing = AlwaysGoOn, class Refill = NoRefill>
  [[gnu::always_inline]] void add(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing&& keep_going = AlwaysGoOn{}, Refill&& = NoRefill{}) {
    if (parent.children > kHugeNode) return add_huge(tree, parent, counts, sink, keep_going);
    add_lanes(tree, parent, counts, sink);
  }

  // Hash what is queued; false when nothing was. Called until it returns
  // false, it leaves nothing queued.
  template <class Sink>
  bool flush(const Tree& tree, Counts& counts, Sink& sink) {
    if (pending_ == 0) return false;
    run_lanes(tree, counts, sink);
    return true;
  }

  // A child batch or the rest of a huge node was given up (the run stops).
  bool abandoned() const { return abandoned_; }
  // Children are queued, not yet hashed.
  bool pending() const { return pending_ != 0; }
  // The lane way takes no parents while it hashes.
  std::uint64_t refilled() const { return 0; }

 private:
  // RowBatch::kFill lanes are written whatever the child count (fixed-length
  // stores, no branch on the count), then pending_ moves by the children that
  // fit; a node with more children writes the next kFill, running the batch
  // whenever it is full.
  template <class Sink>
  [[gnu::always_inline]] void add_lanes(const Tree& tree, const Node& parent, Counts& counts, Sink& sink) {
    const std::uint32_t height = parent.height + 1;
    std::uint32_t first = 0;
    for (;;) {
      batch_.put(pending_, parent.id, first);
      for (int l = 0; l < sha1::RowBatch::kFill; ++l) heights_[pending_ + l] = height;
      const std::uint32_t left = parent.children - first;
      const auto room = std::min<std::uint32_t>(static_cast<std::uint32_t>(kLanes - pending_), sha1::RowBatch::kFill);
      if (left < room) {
        pending_ += static_cast<int>(left);
        return;
      }
      pending_ += static_cast<int>(room);
      first += room;
      if (pending_ == kLanes) run_lanes(tree, counts, sink);
      if (first == parent.children || abandoned_) return;  // abandoned: queue nothing more
    }
  }

  // Hash the pending_ queued lanes, visit them, push the inner ones.
  template <class Sink>
  [[gnu::always_inline]] void run_lanes(const Tree& tree, Counts& counts, Sink& sink) {
    assert(pending_ > 0 && pending_ <= kLanes);
    if (!tree.child_ids(batch_, pending_, row_ids_)) return abandon();  // -g: a stop came during the hashing
    const int n = pending_;
    alignas(64) std::uint32_t children[sha1::kMaxLanes];
    Tree::BatchVisit v;
    tree.visit_rows(row_ids_, heights_, n, children, v);
    expansion::push(row_ids_, heights_, n, v, children, counts, sink);
    pending_ = 0;
  }

  // A huge node in pieces of kHugeNode children, asking between them.
  template <class Sink, class KeepGoing>
  [[gnu::noinline]] void add_huge(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing& keep_going) {
    const std::uint32_t height = parent.height + 1;
    for (std::uint32_t i = 0; i < parent.children; ++i) {
      if (i % kHugeNode == kHugeNode - 1 && !keep_going()) return abandon();
      batch_.put(pending_, parent.id, i);
      heights_[pending_] = height;
      if (++pending_ == kLanes) {
        run_lanes(tree, counts, sink);
        // -g: a stop came during the hashing. Without this the loop went on
        // through the node's 2^31 children: nothing was counted, so
        // keep_going() never polled (a 1-thread run ignored SIGINT).
        if (abandoned_) return;
      }
    }
  }

  // The run stops: drop everything queued (it was never counted).
  void abandon() {
    pending_ = 0;
    abandoned_ = true;
  }

  sha1::RowIds row_ids_;
  alignas(64) std::uint32_t heights_[2 * sha1::kMaxLanes] = {};  // lane l's child's height
  sha1::RowBatch batch_;
  int pending_ = 0;  // lanes queued in batch_, 0 .. kLanes - 1 between calls
  bool abandoned_ = false;
};

}  // namespace uts
