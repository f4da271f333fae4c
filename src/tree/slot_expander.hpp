// The slot way of expanding across nodes (avx512; docs/hashing.md): parents
// written to slot batches in a ring of pairs (tree/slot_ring.hpp), each pair
// hashed in one kernel call while the traversal's next parents are queued
// (refills), and visited just before, or inside, the next pair's kernel.
#pragma once

#include <cassert>
#include <cstdint>
#include <type_traits>

#include "sha1/batch.hpp"
#include "tree/counts.hpp"
#include "tree/expansion.hpp"
#include "tree/node.hpp"
#include "tree/slot_ring.hpp"
#include "tree/tree.hpp"
#if defined(__x86_64__)
#include "sha1/avx512_kernel.hpp"
#include "tree/visit_lanes_avx512.hpp"
#endif

namespace uts {

// Rounds of the pair kernel between two steps (80 rounds: 6 steps: the
// deferred pair's visit where it runs in the kernel, the staging of its
// inner children, then refills: four or five). A trade between more
// refills and more rounds to hide each step's scalar work, settled by
// benchmark on both kinds of tree, with the visit in the kernel or before
// it (results/benchmarks/2026-11-28-deferred-visit.md,
// results/benchmarks/2026-11-28-visit-in-kernel.md).
inline constexpr int kRefillEvery = 12;
// The first two steps visit and stage the deferred pair (run_pair):
// without them its children would be lost.
static_assert(kRefillEvery > 0 && kRefillEvery < 40);

// Each parent is written once to a slot (sha1::SlotBatch: its id, where its
// children start, and a byte per lane naming the slot; the children's height
// beside it, SlotBuffer::heights), spread over the lanes by permutes in the
// kernel. Slot batches go in pairs, hashed in one kernel call with their
// rounds interleaved: one batch's rounds are a chain of dependent
// instructions that leaves the vector pipes partly idle, and the second
// chain fills them (results/benchmarks/2026-11-24-kernel-ceiling.md).
//
// The pairs rotate through a ring of three (SlotRing): one filling, one
// full and waiting, and the one being hashed. A pair is hashed when the next
// fills up, so the kernel's 64-byte loads read stores that committed a pair
// earlier (over stores still in the store buffer they would wait for all of
// them). While it is hashed, the filling pair takes more: between every
// kRefillEvery rounds the kernel calls refill() for the traversal's next
// node and queues its children, so the popping and queueing (integer pipes)
// run beside the rounds (vector pipes) instead of after them
// (results/benchmarks/2026-11-25-refill.md). A node whose children would
// complete the filling pair (with the rest of the node being queued, if the
// kernel ran inside add()) is pushed back, under the hashed pair's children,
// and refilling stops until the next pair.
//
// With a refill, a hashed pair's visit waits for the next pair's kernel
// (run_pair says why; with kVisitInKernel, the fixed-shape geometric row,
// it runs inside that kernel): its 32 children are hashed but not yet
// counted, and its inner children are pushed (or taken by that kernel's
// refills) then.
// Bounds (docs/hashing.md): at most 4 x 16 - 1 children wait between calls
// (a pair waiting, a pair filling) besides that hashed pair; the depth-first
// order moves by at most six batches: the parents refill() takes while a
// pair is hashed come from the deferred pair's children and then from under
// them, and the hashed pair's children are pushed one pair later.
//
// kVisitInKernel: the deferred visit runs inside the next kernel
// (PairVisitInKernel::available, ExpandWay::slots_visit_in_kernel); else
// just before it.
template <bool kVisitInKernel>
class SlotPairExpander {
 public:
  static constexpr int kLanes = sha1::kMaxLanes;

  // Queue `parent`'s children, hashing every pair they complete (and taking
  // more parents from `refill` meanwhile).
  template <class Sink, class KeepGoing = AlwaysGoOn, class Refill = NoRefill>
  [[gnu::always_inline]] void add(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing&& keep_going = AlwaysGoOn{}, Refill&& refill = NoRefill{}) {
    if (parent.children > kHugeNode) return add_huge(tree, parent, counts, sink, keep_going, refill);
    add_slots(tree, parent, 0, parent.children, counts, sink, refill);
  }

  // Hash what is queued, one pair per call: the deferred pair's visit
  // first, then the waiting pair (it was queued first, so the depth-first
  // order moves least; either order is exact), then the filling one; false
  // when nothing was. Called until it returns false, it leaves nothing
  // queued.
  template <class Sink>
  bool flush(const Tree& tree, Counts& counts, Sink& sink) {
    if (ring_.deferred()) {
      finish_deferred(tree, counts, sink);
      return true;
    }
    NoRefill none;
    if (ring_.held() == SlotRing::Held::waiting) {
      run_pair(tree, ring_.take_waiting(), kLanes, counts, sink, none);
      return true;
    }
    if (!ring_.holds()) return false;
    const SlotRing::Taken t = ring_.take_filling();
    const SlotBuffer* pair = ring_.pair(t.pair);
    if (t.half == 0) run_slots(tree, pair[0], t.lanes, counts, sink);  // the first batch, part-filled
    else if (t.lanes == 0) run_slots(tree, pair[0], kLanes, counts, sink);  // the first full, the second empty
    else run_pair(tree, t.pair, t.lanes, counts, sink, none);
    return true;
  }

  // A child batch or the rest of a huge node was given up (the run stops).
  bool abandoned() const { return ring_.dropped(); }
  // Parents taken while a pair was hashed (refill_one), pushed back or not:
  // from the deferred pair's staged children or the traversal's refill().
  std::uint64_t refilled() const { return refilled_; }
  // Children are queued, not yet hashed, or hashed and not yet visited
  // (counted and pushed).
  bool pending() const { return ring_.holds(); }

 private:
  // Children [first, last) of `parent` (last > first is not required): one
  // slot per batch the children land in. A refill while a pair is hashed
  // here leaves room for the parent's remaining children, so they never
  // complete a pair the refill filled: one call counts no refilled child,
  // and --max-nodes keeps its bound (docs/output.md section 8; refilling
  // to the brim let a node with 4 children push several pairs through).
  template <class Sink, class Refill>
  [[gnu::always_inline]] void add_slots(const Tree& tree, const Node& parent, std::uint32_t first,
                                        std::uint32_t last, Counts& counts, Sink& sink, Refill& refill) {
    if (first == last) return;  // no lanes, no slot (so a batch has at most 16 slots)
    const std::uint32_t height = parent.height + 1;
    // The ring's state in locals: the batch's stores could alias it, and
    // GCC would reload it after each store.
    int pending = ring_.lanes(), nslots = ring_.slots();
    for (;;) {
      SlotBuffer& b = ring_.filling();
      b.batch.put(nslots, parent.id, pending, first);
      b.heights[nslots] = height;
      ++nslots;
      const std::uint32_t left = last - first;
      const auto room = static_cast<std::uint32_t>(kLanes - pending);
      if (left < room) {
        ring_.queued(pending + static_cast<int>(left), nslots);
        return;
      }
      first += room;
      // A new batch, maybe with parents from refill() in it.
      batch_full(tree, counts, sink, refill, last - first);
      if (first == last || ring_.dropped()) return;  // dropped: queue nothing more
      pending = ring_.lanes();
      nslots = ring_.slots();
    }
  }

  // The filling slot batch is full: the ring moves on, and hashes the
  // waiting pair if there is one. `reserve`: lanes the caller will still
  // queue (the refills leave them room).
  template <class Sink, class Refill>
  [[gnu::always_inline]] void batch_full(const Tree& tree, Counts& counts, Sink& sink, Refill& refill,
                                         std::uint32_t reserve) {
    const int hashed = ring_.batch_full();
    if (hashed != SlotRing::kNoPair) run_pair(tree, hashed, kLanes, counts, sink, refill, reserve);
  }

  // One parent from refill() into the filling pair, if it fits without
  // completing it (room: the lanes left in the pair, and one more, less
  // `reserve`); one that does not is kept in `back`, to be pushed back.
  // false: stop. A parent without children (never in a sink: only nodes
  // with children are pushed) is pushed back too: it would take a slot
  // without a lane, and a batch has slots for sixteen parents only.
  template <class Take>
  [[gnu::always_inline]] bool refill_one(Take& take, std::uint32_t reserve, Node& back, bool& has_back) {
    const auto left = static_cast<std::uint32_t>(kLanes - ring_.lanes());
    const std::uint32_t room = left + (ring_.first_half() ? static_cast<std::uint32_t>(kLanes) : 0);
    if (reserve + 1 >= room) return false;  // no parent fits
    Node parent;
    if (!take(parent)) return false;
    ++refilled_;
    if (parent.children + reserve >= room || parent.children == 0) {
      back = parent;
      has_back = true;
      return false;
    }
    const std::uint32_t height = parent.height + 1;
    SlotBuffer& b = ring_.filling();
    const int nslots = ring_.slots(), pending = ring_.lanes();
    b.batch.put(nslots, parent.id, pending, 0);
    b.heights[nslots] = height;
    if (parent.children < left) {
      ring_.queued(pending + static_cast<int>(parent.children), nslots + 1);
      return true;
    }
    // The first batch is full (children < room); the rest in the second.
    const int rest = static_cast<int>(parent.children - left);
    ring_.to_second(rest, rest != 0 ? 1 : 0);
    if (rest != 0) {
      SlotBuffer& second = ring_.second();
      second.batch.put(0, parent.id, 0, left);
      second.heights[0] = height;
    }
    return true;
  }

  // The pair of slot batches `which`: the first full, the second with n
  // lanes.
  //
  // With a refill (a traversal's path), the pair is hashed now and visited
  // at the next run_pair (SlotRing::defer), just before that pair's kernel:
  // the visit is a chain of dependent lookups (the geometric rule's binary
  // search: vpermt2d, compare, masked add, five times), and placed right
  // after its own kernel it waited for that kernel's last rounds and then
  // stalled the traversal; placed before an independent kernel, the
  // processor runs the kernel's rounds beside it. kVisitInKernel (the
  // fixed-shape geometric row, PairVisitInKernel): the visit runs inside
  // the kernel, in its first step: work between two kernels stalls the
  // vector pipes, work inside one mostly fills their gaps
  // (results/benchmarks/2026-11-28-visit-in-kernel.md). The visited pair's
  // inner children are staged in the step after the visit (its results
  // are then ready) and taken by the refills after it (run_pair's body
  // says how), then what is left is pushed after the kernel, then `back`:
  // the order the sink would have had. Not pushed inside the kernel: a
  // deque's slots are written with atomic stores, and with those inside it
  // GCC kept part of the kernel's message window on the stack
  // (results/benchmarks/2026-11-28-deferred-visit.md, which also has what
  // the deferred visit gained).
  template <class Sink, class Refill>
  [[gnu::always_inline]] void run_pair(const Tree& tree, int which, int n, Counts& counts, Sink& sink,
                                       Refill& refill, std::uint32_t reserve = 0) {
    const SlotBuffer* pair = ring_.pair(which);
    if (tree.granularity() != 1) {  // -g: a batch at a time, through child_ids() (which polls for a stop)
      run_slots(tree, pair[0], kLanes, counts, sink);
      if (!ring_.dropped()) run_slots(tree, pair[1], n, counts, sink);
      return;
    }
    alignas(64) std::uint32_t children[2 * sha1::kMaxLanes];
    Tree::BatchVisit v;
#if defined(__x86_64__)
    if constexpr (!std::is_same_v<std::decay_t<Refill>, NoRefill>) {
      bool has_back = false;  // refill() took `back`, and it did not fit
      Node back;
      const sha1::Ids& prev = ids_[cur_ ^ 1];
      // The deferred pair's visit: in the kernel's first step where the
      // rule has an inline form (kVisitInKernel), else here.
      const bool visit_in_kernel = kVisitInKernel && ring_.deferred();
      if (!kVisitInKernel && ring_.deferred()) visit_deferred(tree, counts, children, v);
      // The step that stages the visited pair's inner children: the one
      // after the visit (its results are then ready: step 1 with the visit
      // in the kernel, else step 0); the refills follow.
      // They take the children from the highest lane, as pops from the sink
      // would had they been pushed in lane order; the rest are pushed after
      // the kernel. Two forms, each the faster where it is used
      // (results/benchmarks/2026-11-28-visit-in-kernel.md):
      //   visit in the kernel  the lanes not yet taken, as a bit mask
      //                        (`lanes`): nothing is copied, a refill reads
      //                        its lane's words (a pair of inner children
      //                        in the fixed-shape trees has many more than
      //                        the refills take)
      //   visit before it      packed in `packed`, lowest lane first (the
      //                        binomial trees ran slower with the mask)
      std::uint32_t lanes = 0;
      NodeWords packed[kVisitInKernel ? 1 : 2 * sha1::kMaxLanes];
      std::uint32_t nstaged = 0;
      auto take = [&](Node& parent) __attribute__((always_inline)) {
        if (nstaged == 0) return refill(parent);
        --nstaged;
        if constexpr (kVisitInKernel) {
          const int j = 31 - __builtin_clz(lanes);
          lanes ^= 1u << j;
          parent = Node{prev.get(j), heights_[j], children[j]};
        } else {
          parent = packed[nstaged].unpack();
        }
        return true;
      };
      bool more = true, first = true;
      // k: the step's number, a constant at each of the kernel's inlined
      // calls, so the visit's code is there once, at step 0. The packed
      // form's staging is chosen by a flag instead (the first step): chosen
      // by k, the binomial trees' engine at 1 thread ran slower, with no
      // other difference in the code
      // (results/benchmarks/2026-11-28-visit-in-kernel.md).
      // The visit must come before the first refill: the deferred pair's
      // buffer is the filling one, which the refills write (SlotRing).
      auto step = [&](int k) __attribute__((target("avx512f,avx512vl,popcnt"), always_inline)) {
        if (k == 0 && visit_in_kernel) {
          visit_slot_pair_in_kernel(tree, counts, children, v);
          return;
        }
        if (kVisitInKernel ? k == 1 : first) {
          first = false;
          if constexpr (kVisitInKernel) {
            lanes = v.inner;
            nstaged = v.kept;
          } else {
            for (std::uint32_t m = v.inner; m != 0; m &= m - 1) {
              const int j = __builtin_ctz(m);
              packed[nstaged++] = NodeWords::pack(Node{prev.get(j), heights_[j], children[j]});
            }
          }
          return;
        }
        if (more) more = refill_one(take, reserve, back, has_back);
      };
      sha1::avx512_kernel::hash_slot_pair<kRefillEvery>(pair[0].batch, pair[1].batch, ids_[cur_], step);
      // The staged children left, then `back` over them (taken last, from
      // their top or, when they ran out, from the sink's); this pair's
      // children go over both at the next run_pair.
      auto out = sink.pusher(nstaged + (has_back ? 1u : 0u));
      if constexpr (kVisitInKernel) {
        expansion::push_inner(prev, heights_, lanes, children, out);
      } else {
        for (std::uint32_t i = 0; i < nstaged; ++i) out.push(packed[i].unpack());
      }
      if (has_back) out.push(back);
      sink.commit(out);
      ring_.defer(which, n);
      cur_ ^= 1;
      return;
    }
#endif
    finish_deferred(tree, counts, sink);
    tree.hash_visit_slot_pair_avx512(pair[0].batch, pair[0].heights, pair[1].batch, pair[1].heights, n, ids_[0],
                                     heights_, children, v);
    expansion::push(ids_[0], heights_, kLanes + n, v, children, counts, sink);
  }

  // The deferred pair's visit, counts and pushes, outside a kernel (flush(),
  // and a run_pair without a refill).
  template <class Sink>
  void finish_deferred(const Tree& tree, Counts& counts, Sink& sink) {
    if (!ring_.deferred()) return;
    alignas(64) std::uint32_t children[2 * sha1::kMaxLanes];
    Tree::BatchVisit v;
    visit_deferred(tree, counts, children, v);
    auto out = sink.pusher(v.kept);
    expansion::push_inner(ids_[cur_ ^ 1], heights_, v.inner, children, out);
    sink.commit(out);
  }
  // The deferred pair visited and counted (no longer deferred): its lanes'
  // counts in children[], its lanes' heights in heights_, its ids in
  // ids_[cur_ ^ 1].
  void visit_deferred(const Tree& tree, Counts& counts, std::uint32_t* children, Tree::BatchVisit& v) {
    const SlotRing::Deferred deferred = ring_.take_deferred();
    const SlotBuffer* d = ring_.pair(deferred.pair);
    tree.visit_slot_pair_avx512(ids_[cur_ ^ 1], d[0].batch, d[0].heights, d[1].batch, d[1].heights, deferred.lanes,
                                heights_, children, v);
    expansion::count(v, kLanes + deferred.lanes, counts);
  }

#if defined(__x86_64__)
  // visit_deferred() with the visit inlined (PairVisitInKernel), for the
  // kernel's first step.
  [[gnu::always_inline]] __attribute__((target("avx512f,avx512vl,popcnt"))) void visit_slot_pair_in_kernel(
      const Tree& tree, Counts& counts, std::uint32_t* children, Tree::BatchVisit& v) {
    const SlotRing::Deferred deferred = ring_.take_deferred();
    const SlotBuffer* d = ring_.pair(deferred.pair);
    PairVisitInKernel::run(tree, ids_[cur_ ^ 1], d[0].batch, d[0].heights, d[1].batch, d[1].heights, deferred.lanes,
                           heights_, children, v);
    expansion::count(v, kLanes + deferred.lanes, counts);
  }
#endif

  // One slot batch of n lanes, hashed and visited on its own (flush, -g).
  template <class Sink>
  [[gnu::always_inline]] void run_slots(const Tree& tree, const SlotBuffer& b, int n, Counts& counts, Sink& sink) {
    alignas(64) std::uint32_t children[sha1::kMaxLanes];
    Tree::BatchVisit v;
    if (tree.granularity() == 1) {
      tree.hash_visit_slots_avx512(b.batch, b.heights, n, ids_[0], heights_, children, v);
    } else {
      if (!tree.child_ids(b.batch, ids_[0])) return abandon();  // -g: a stop came during the hashing
      tree.visit_slots_avx512(ids_[0], b.batch, b.heights, n, heights_, children, v);
    }
    expansion::push(ids_[0], heights_, n, v, children, counts, sink);
  }

  // A huge node in pieces of kHugeNode children, asking between them.
  template <class Sink, class KeepGoing, class Refill>
  [[gnu::noinline]] void add_huge(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing& keep_going, Refill& refill) {
    for (std::uint32_t i = 0; i < parent.children; i += kHugeNode) {
      if (i != 0 && !keep_going()) return abandon();
      add_slots(tree, parent, i, parent.children - i < kHugeNode ? parent.children : i + kHugeNode, counts, sink,
                refill);
      if (ring_.dropped()) return;
    }
  }

  // The run stops: drop everything queued (it was never counted).
  void abandon() { ring_.drop(); }

  sha1::Ids ids_[2];  // ids_[cur_]: the next pair's; ids_[cur_ ^ 1]: the deferred pair's
  int cur_ = 0;
  alignas(64) std::uint32_t heights_[2 * sha1::kMaxLanes] = {};  // lane l's child's height, of the last visit
  SlotRing ring_;
  std::uint64_t refilled_ = 0;
};

}  // namespace uts
