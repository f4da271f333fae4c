// Expanding one node: the per-node work every traversal shares.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <type_traits>

#include "tree/counts.hpp"
#include "tree/node.hpp"
#include "tree/tree.hpp"
#if defined(__x86_64__)
#include "sha1/avx512_kernel.hpp"
#include "tree/visit_lanes_avx512.hpp"
#endif

namespace uts {

// Where expansion puts the children that have children of their own, a
// sink:
//   auto out = sink.pusher(n)   a cursor with room for n more nodes
//   out.push(node)              at most n times
//   sink.commit(out)            the pushed nodes join the sink
// The cursor is a local: the pushes of one expansion keep the sink's
// position in registers (steal/storage/packed_node.hpp says why that
// matters for the deques). Only a node with children is pushed, by a branch
// (measured: a branch beat an unconditional store, for the stack and the
// deque).
//
// A node with more than kHugeNode children (a binomial root has up to 2^31)
// is expanded in pieces, and between them `keep_going()` is asked whether to
// go on (a stop request, --max-nodes); false abandons the rest of the node.
// A batch whose hashing was abandoned (tree.hpp, -g) is dropped too, with
// everything else queued, and the node's remaining children are not queued.
// Either way the run is partial, and the expansion says so (false /
// abandoned()); an abandoned Expander holds nothing (pending() is false).
inline constexpr std::uint32_t kHugeNode = 1024;
// Rounds of the pair kernel between two steps (80 rounds: 6 steps: the
// deferred pair's visit where it runs in the kernel, the staging of its
// inner children, then refills: four or five).
// Measured on T1L and T3L, --sequential and 1 thread, pinned: 12 was best
// or within noise of it; 10 and 14 were 1-7% slower on T3L, 10 6% slower
// on T1L, 16 9% slower (results/benchmarks/2026-11-28-deferred-visit.md);
// with the visit in the kernel, 10 and 11 were 1-3% slower on T1L
// (results/benchmarks/2026-11-28-visit-in-kernel.md).
inline constexpr int kRefillEvery = 12;
// The first two steps visit and stage the deferred pair (run_pair):
// without them its children would be lost.
static_assert(kRefillEvery > 0 && kRefillEvery < 40);

struct AlwaysGoOn {
  bool operator()() const { return true; }
};

// Where the slot path (Expander) takes more parents while a pair of batches
// is hashed: refill(node) pops the traversal's next node, as the traversal
// would (false: none now, and refilling stops until the next pair; the
// engine's refill takes only what its owner pops without a call,
// steal/protocol.hpp's pop_private). A node whose children do not fit is
// pushed back.
struct NoRefill {
  bool operator()(Node&) const { return false; }
};

// Generate children [first, last) of `parent`, visiting each and keeping the
// ones with children. Ids are hashed a batch at a time, so the hashes of
// siblings overlap (sha1/batch.hpp). false: abandoned.
template <class Sink, class KeepGoing = AlwaysGoOn>
inline bool expand_range(const Tree& tree, const Node& parent, std::uint32_t first, std::uint32_t last,
                         Counts& counts, Sink& sink, KeepGoing&& keep_going = AlwaysGoOn{}) {
  constexpr std::uint32_t kBatch = 16;
  sha1::Words ids[kBatch];
  const std::uint32_t height = parent.height + 1;
  for (std::uint32_t i = first; i < last; i += kBatch) {
    static_assert(kHugeNode % kBatch == 0);
    if (i != first && (i - first) % kHugeNode == 0 && !keep_going()) return false;
    const std::uint32_t n = last - i < kBatch ? last - i : kBatch;
    if (!tree.child_ids(parent.id, i, n, ids)) return false;
    auto out = sink.pusher(n);
    for (std::uint32_t j = 0; j < n; ++j) {
      Node child;
      child.id = ids[j];
      child.height = height;
      child.children = static_cast<std::uint32_t>(tree.num_children(child.id[4], height));
      if (visit(child, counts)) out.push(child);
    }
    sink.commit(out);
  }
  return true;
}

template <class Sink>
inline bool expand(const Tree& tree, const Node& parent, Counts& counts, Sink& sink) {
  return expand_range(tree, parent, 0, parent.children, counts, sink);
}

// Expansion across nodes: children of successive nodes are queued and hashed
// a full batch at a time (6 lanes for SHA-NI: sha1::batch_lanes; for
// AVX-512 a pair of 16-lane batches, or a lone batch when flushed), so
// nodes with one to three children (a third of a geometric tree's nodes,
// every expanded node of a binomial tree with m = 2) still fill the lanes. A traversal calls add() for each node it pops and
// flush() when it has nothing left to pop; until then the queued children
// are work this thread holds.
//
// Two ways to queue, by path:
//   lanes (shani, cryptopp)  each parent's words written once, to a row at
//                            the lane its first child takes, and each lane
//                            told its row (sha1::RowBatch); hashed when the
//                            batch is full, into rows (sha1::RowIds), then
//                            visited in one call (Tree::visit_rows).
//   slots (avx512)           each parent written once to a slot
//                            (sha1::SlotBatch: its id, where its children
//                            start, and a byte per lane naming the slot; the
//                            children's height beside it, Slots::heights),
//                            spread over the lanes by permutes in the
//                            kernel. Slot batches go in pairs, hashed in one
//                            kernel call with their rounds interleaved (one
//                            batch's rounds are a chain of dependent
//                            instructions that leaves the vector pipes idle
//                            a tenth of the time). Three pairs in turn: one
//                            filling, one full and waiting, and the one being
//                            hashed. A pair is hashed when the next fills up,
//                            so the kernel's 64-byte loads read stores that
//                            committed a pair earlier (over stores still in
//                            the store buffer they would wait for all of
//                            them). While it is hashed, the third pair fills:
//                            between every kRefillEvery rounds the kernel
//                            calls refill() for the traversal's next node
//                            and queues its children, so the popping and
//                            queueing (integer pipes) run beside the rounds
//                            (vector pipes) instead of after them. A node
//                            whose children would complete the filling pair
//                            (with the rest of the node being queued, if
//                            the kernel ran inside add()) is pushed back,
//                            under the hashed pair's children, and
//                            refilling stops until the next pair. T1L --sequential: 99.96 against 93.41 M
//                            nodes/s without it (results/benchmarks/
//                            2026-11-25-refill.md).
// With a refill, a hashed pair's visit waits for the next pair's kernel
// (run_pair says why; for the fixed-shape geometric row it runs inside that
// kernel, Way::slots_visit_in_kernel): its 32 children are hashed but not
// yet counted, and its inner children are pushed (or taken by that
// kernel's refills) then.
// At most 4 x 16 - 1 children wait between calls on the slot path (a pair
// waiting, a pair filling) besides that hashed pair, and lanes - 1 on the
// lane path; the depth-first order moves by at most six batches: the
// parents refill() takes while a pair is hashed come from the deferred
// pair's children and then from under them, and the hashed pair's children
// are pushed one pair later.
class Expander {
 public:
  explicit Expander(sha1::Path path)
      : lanes_(sha1::batch_lanes(path)), slots_(path == sha1::Path::avx512) {}

  // How children are queued and hashed (see above), one per traversal:
  //   lanes                  shani, cryptopp
  //   slots                  avx512, each pair visited before the next
  //                          pair's kernel
  //   slots_visit_in_kernel  avx512, the visit inside that kernel (the
  //                          rules PairVisitInKernel has: run_pair)
  enum class Way { lanes, slots, slots_visit_in_kernel };
  Way way(const Tree& tree) const {
    if (!slots_) return Way::lanes;
#if defined(__x86_64__)
    if (PairVisitInKernel::available(tree)) return Way::slots_visit_in_kernel;
#endif
    (void)tree;
    return Way::slots;
  }

  // add() is always inlined: it is the per-node path, and the compiler's
  // budget otherwise goes to the engine's cold paths.
  template <class Sink, class KeepGoing = AlwaysGoOn, class Refill = NoRefill>
  [[gnu::always_inline]] void add(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing&& keep_going = AlwaysGoOn{}, Refill&& refill = NoRefill{}) {
    switch (way(tree)) {
      case Way::lanes: return add_as<Way::lanes>(tree, parent, counts, sink, keep_going, refill);
      case Way::slots: return add_as<Way::slots>(tree, parent, counts, sink, keep_going, refill);
      case Way::slots_visit_in_kernel:
        return add_as<Way::slots_visit_in_kernel>(tree, parent, counts, sink, keep_going, refill);
    }
  }
  // The same where the caller knows the way (kWay == way(tree)): a
  // traversal loop instantiated once per way has no test of the way per
  // node (measured: the SHA-NI path's --sequential was 1-2% slower with a
  // test of the path per node).
  template <Way kWay, class Sink, class KeepGoing = AlwaysGoOn, class Refill = NoRefill>
  [[gnu::always_inline]] void add_as(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                     KeepGoing&& keep_going = AlwaysGoOn{}, Refill&& refill = NoRefill{}) {
    assert(kWay == way(tree));
    if (parent.children > kHugeNode) return add_huge<kWay>(tree, parent, counts, sink, keep_going, refill);
    if constexpr (kWay == Way::lanes) add_lanes(tree, parent, counts, sink);
    else add_slots<kWay == Way::slots_visit_in_kernel>(tree, parent, 0, parent.children, counts, sink, refill);
  }

  // A child batch or the rest of a huge node was given up (the run stops).
  bool abandoned() const { return abandoned_; }
  // Parents taken while a pair was hashed (refill_one), pushed back or not:
  // from the deferred pair's staged children or the traversal's refill().
  std::uint64_t refilled() const { return refilled_; }
  // Children are queued, not yet hashed, or hashed and not yet visited
  // (counted and pushed).
  bool pending() const { return deferred_ || waiting_ || pending_ != 0 || half_ != 0; }

  // Hash what is queued, one batch (slot path: one pair) per call (on the
  // slot path the waiting pair first: it was queued first, so the
  // depth-first order moves least; either order is exact); false when
  // nothing was. Called until it returns false, it leaves nothing queued.
  template <class Sink>
  bool flush(const Tree& tree, Counts& counts, Sink& sink) {
    if (deferred_) {
      finish_deferred(tree, counts, sink);
      return true;
    }
    if (waiting_) {
      waiting_ = false;
      NoRefill none;
      run_pair(tree, waiting(), lanes_, counts, sink, none);
      return true;
    }
    if (pending_ == 0 && half_ == 0) return false;
    if (!slots_) {
      run_lanes(tree, counts, sink);
      return true;
    }
    const int n = pending_;
    const int half = half_;
    pending_ = 0;
    nslots_ = 0;
    half_ = 0;
    Slots* pair = slots_buf_[filling_];
    if (half == 0) run_slots(tree, pair[0], n, counts, sink);  // the first batch, part-filled
    else if (n == 0) run_slots(tree, pair[0], lanes_, counts, sink);  // the first full, the second empty
    else {
      NoRefill none;
      run_pair(tree, filling_, n, counts, sink, none);
    }
    return true;
  }

 private:
  struct Slots {
    sha1::SlotBatch batch;
    alignas(64) std::uint32_t heights[sha1::kMaxLanes] = {};  // slot s's children's height
  };

  // ---- lanes (shani, cryptopp) ----

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
      const auto room = std::min<std::uint32_t>(static_cast<std::uint32_t>(lanes_ - pending_), sha1::RowBatch::kFill);
      if (left < room) {
        pending_ += static_cast<int>(left);
        return;
      }
      pending_ += static_cast<int>(room);
      first += room;
      if (pending_ == lanes_) run_lanes(tree, counts, sink);
      if (first == parent.children || abandoned_) return;  // abandoned: queue nothing more
    }
  }

  // Hash the pending_ queued lanes, visit them, push the inner ones.
  template <class Sink>
  [[gnu::always_inline]] void run_lanes(const Tree& tree, Counts& counts, Sink& sink) {
    if (!tree.child_ids(batch_, pending_, row_ids_)) return abandon();  // -g: a stop came during the hashing
    const int n = pending_;
    alignas(64) std::uint32_t children[sha1::kMaxLanes];
    Tree::BatchVisit v;
    tree.visit_rows(row_ids_, heights_, n, children, v);
    push(row_ids_, n, v, children, counts, sink);
    pending_ = 0;
  }

  // ---- slots (avx512) ----

  // Children [first, last) of `parent` (last > first is not required): one
  // slot per batch the children land in. A refill while a pair is hashed
  // here leaves room for the parent's remaining children, so they never
  // complete a pair the refill filled: one call counts no refilled child,
  // and --max-nodes keeps its bound (docs/output.md section 8; refilling
  // to the brim let a node with 4 children push several pairs through).
  template <bool kVisitInKernel, class Sink, class Refill>
  [[gnu::always_inline]] void add_slots(const Tree& tree, const Node& parent, std::uint32_t first,
                                        std::uint32_t last, Counts& counts, Sink& sink, Refill& refill) {
    if (first == last) return;  // no lanes, no slot (so a batch has at most 16 slots)
    const std::uint32_t height = parent.height + 1;
    // The state in locals: the batch's stores could alias the members, and
    // GCC reloaded every one of them after each store.
    int pending = pending_, nslots = nslots_;
    for (;;) {
      Slots& b = slots_buf_[filling_][half_];
      b.batch.put(nslots, parent.id, pending, first);
      b.heights[nslots] = height;
      ++nslots;
      const std::uint32_t left = last - first;
      const auto room = static_cast<std::uint32_t>(sha1::kMaxLanes - pending);
      if (left < room) {
        pending_ = pending + static_cast<int>(left);
        nslots_ = nslots;
        return;
      }
      first += room;
      // A new batch, maybe with parents from refill() in it.
      full<kVisitInKernel>(tree, counts, sink, refill, last - first);
      if (first == last || abandoned_) return;  // abandoned: queue nothing more
      pending = pending_;
      nslots = nslots_;
    }
  }

  // The filling slot batch is full. The first of a pair: fill the second.
  // The second: hash the waiting pair (if any), and this pair waits in its
  // place.
  // Three pairs in turn: while the waiting one is hashed, the one after it
  // is filled (Refill) and the one just filled waits.
  // `reserve`: lanes the caller will still queue (refill leaves them room).
  template <bool kVisitInKernel, class Sink, class Refill>
  [[gnu::always_inline]] void full(const Tree& tree, Counts& counts, Sink& sink, Refill& refill,
                                   std::uint32_t reserve) {
    pending_ = 0;
    nslots_ = 0;
    if (half_ == 0) {
      half_ = 1;
      return;
    }
    half_ = 0;
    const bool was_waiting = waiting_;
    const int hashed = waiting();
    waiting_ = true;
    filling_ = filling_ == 2 ? 0 : filling_ + 1;  // waiting() is now the pair just filled
    if (was_waiting) run_pair<kVisitInKernel>(tree, hashed, lanes_, counts, sink, refill, reserve);
  }
  int waiting() const { return filling_ == 0 ? 2 : filling_ - 1; }

  // One parent from refill() into the filling pair, if it fits without
  // completing it (room: the lanes left in the pair, and one more, less
  // `reserve`); one that does not is kept in `back`, to be pushed back.
  // false: stop. A parent without children (never in a sink: only nodes
  // with children are pushed) is pushed back too: it would take a slot
  // without a lane, and a batch has slots for sixteen parents only.
  template <class Refill>
  [[gnu::always_inline]] bool refill_one(Refill& refill, std::uint32_t reserve, Node& back, bool& has_back) {
    const auto left = static_cast<std::uint32_t>(lanes_ - pending_);
    const std::uint32_t room = left + (half_ == 0 ? static_cast<std::uint32_t>(lanes_) : 0);
    if (reserve + 1 >= room) return false;  // no parent fits
    Node parent;
    if (!refill(parent)) return false;
    ++refilled_;
    if (parent.children + reserve >= room || parent.children == 0) {
      back = parent;
      has_back = true;
      return false;
    }
    const std::uint32_t height = parent.height + 1;
    Slots& b = slots_buf_[filling_][half_];
    b.batch.put(nslots_, parent.id, pending_, 0);
    b.heights[nslots_] = height;
    if (parent.children < left) {
      pending_ += static_cast<int>(parent.children);
      ++nslots_;
      return true;
    }
    // The first batch is full (half_ was 0: children < room); the rest in the second.
    half_ = 1;
    pending_ = static_cast<int>(parent.children - left);
    nslots_ = 0;
    if (pending_ != 0) {
      Slots& second = slots_buf_[filling_][1];
      second.batch.put(0, parent.id, 0, left);
      second.heights[0] = height;
      nslots_ = 1;
    }
    return true;
  }

  // The pair of slot batches slots_buf_[which]: the first full, the second
  // with n lanes.
  //
  // With a refill (a traversal's path), the pair is hashed now and visited
  // at the next run_pair (deferred_), just before that pair's kernel: the
  // visit is a chain of dependent lookups (the geometric rule's binary
  // search: vpermt2d, compare, masked add, five times), and placed right
  // after its own kernel it waited for that kernel's last rounds and then
  // stalled the traversal; placed before an independent kernel, the
  // processor runs the kernel's rounds beside it. kVisitInKernel (the
  // fixed-shape geometric row, PairVisitInKernel): the visit runs inside
  // the kernel, in its first step; 200 independent adds cost T1L 12% before
  // the kernel and 5% in its first step: work between two kernels stalls
  // the vector pipes, work inside one mostly fills their gaps
  // (results/benchmarks/2026-11-28-visit-in-kernel.md). The visited pair's
  // inner children are staged in the step after the visit (its results
  // are then ready) and taken by the refills after it (run_pair's body
  // says how), then what is left is pushed after the kernel, then `back`:
  // the order the sink would have had. Not pushed inside the kernel: a
  // deque's slots are written with atomic stores, and with those inside it
  // GCC kept part of the kernel's message window on the stack (414 zmm
  // loads and stores to the stack in the split deque's instantiation
  // against 218).
  // Measured, pinned (results/benchmarks/2026-11-28-deferred-visit.md):
  // --sequential and 1 thread 7-14% faster on T1, T3, T1L and T3L; the
  // visit in the kernel, T1 and T1L 1-5% more (2026-11-28-visit-in-kernel.md).
  template <bool kVisitInKernel = false, class Sink, class Refill>
  [[gnu::always_inline]] void run_pair(const Tree& tree, int which, int n, Counts& counts, Sink& sink,
                                       Refill& refill, std::uint32_t reserve = 0) {
    const Slots* pair = slots_buf_[which];
    if (tree.granularity() != 1) {  // -g: a batch at a time, through child_ids() (which polls for a stop)
      run_slots(tree, pair[0], lanes_, counts, sink);
      if (!abandoned_) run_slots(tree, pair[1], n, counts, sink);
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
      const bool visit_in_kernel = kVisitInKernel && deferred_;
      if (!kVisitInKernel && deferred_) visit_deferred(tree, counts, children, v);
      // The step that stages the visited pair's inner children: the one
      // after the visit (its results are then ready: step 1 with the visit
      // in the kernel, else step 0); the refills follow.
      // They take the children from the highest lane, as pops from the sink
      // would had they been pushed in lane order; the rest are pushed after
      // the kernel. Two forms, each the faster where it is used
      // (results/benchmarks/2026-11-28-visit-in-kernel.md):
      //   visit in the kernel  the lanes not yet taken, as a bit mask
      //                        (`lanes`): nothing is copied, a refill reads
      //                        its lane's words (a pair of height-12
      //                        children in T1L has about 26 inner ones, of
      //                        which the refills take 4)
      //   visit before it      packed in `packed`, lowest lane first (the
      //                        binomial trees ran 3-7% slower with the mask)
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
      // by k, T2, T5 and T2L ran 3-5% slower at 1 thread, with no other
      // difference in the code (results/benchmarks/2026-11-28-visit-in-kernel.md).
      // The visit must come before the first refill: the deferred pair's
      // buffer is the filling one, which the refills write (deferred_).
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
        push_inner(prev, lanes, children, out);
      } else {
        for (std::uint32_t i = 0; i < nstaged; ++i) out.push(packed[i].unpack());
      }
      if (has_back) out.push(back);
      sink.commit(out);
      deferred_ = true;
      deferred_pair_ = which;
      deferred_n_ = n;
      cur_ ^= 1;
      return;
    }
#endif
    finish_deferred(tree, counts, sink);
    tree.hash_visit_slot_pair_avx512(pair[0].batch, pair[0].heights, pair[1].batch, pair[1].heights, n, ids_[0],
                                     heights_, children, v);
    push(ids_[0], lanes_ + n, v, children, counts, sink);
  }

  // The deferred pair's visit, counts and pushes, outside a kernel (flush(),
  // and a run_pair without a refill).
  template <class Sink>
  void finish_deferred(const Tree& tree, Counts& counts, Sink& sink) {
    if (!deferred_) return;
    alignas(64) std::uint32_t children[2 * sha1::kMaxLanes];
    Tree::BatchVisit v;
    visit_deferred(tree, counts, children, v);
    auto out = sink.pusher(v.kept);
    push_inner(ids_[cur_ ^ 1], v.inner, children, out);
    sink.commit(out);
  }
  // The deferred pair visited and counted (no longer deferred): its lanes'
  // counts in children[], its lanes' heights in heights_, its ids in
  // ids_[cur_ ^ 1].
  void visit_deferred(const Tree& tree, Counts& counts, std::uint32_t* children, Tree::BatchVisit& v) {
    deferred_ = false;
    const Slots* d = slots_buf_[deferred_pair_];
    tree.visit_slot_pair_avx512(ids_[cur_ ^ 1], d[0].batch, d[0].heights, d[1].batch, d[1].heights, deferred_n_,
                                heights_, children, v);
    count(v, lanes_ + deferred_n_, counts);
  }

#if defined(__x86_64__)
  // visit_deferred() with the visit inlined (PairVisitInKernel), for the
  // kernel's first step.
  [[gnu::always_inline]] __attribute__((target("avx512f,avx512vl,popcnt"))) void visit_slot_pair_in_kernel(
      const Tree& tree, Counts& counts, std::uint32_t* children, Tree::BatchVisit& v) {
    deferred_ = false;
    const Slots* d = slots_buf_[deferred_pair_];
    PairVisitInKernel::run(tree, ids_[cur_ ^ 1], d[0].batch, d[0].heights, d[1].batch, d[1].heights, deferred_n_,
                           heights_, children, v);
    count(v, lanes_ + deferred_n_, counts);
  }
#endif

  template <class Sink>
  [[gnu::always_inline]] void run_slots(const Tree& tree, const Slots& b, int n, Counts& counts, Sink& sink) {
    alignas(64) std::uint32_t children[sha1::kMaxLanes];
    Tree::BatchVisit v;
    if (tree.granularity() == 1) {
      tree.hash_visit_slots_avx512(b.batch, b.heights, n, ids_[0], heights_, children, v);
    } else {
      if (!tree.child_ids(b.batch, ids_[0])) return abandon();  // -g: a stop came during the hashing
      tree.visit_slots_avx512(ids_[0], b.batch, b.heights, n, heights_, children, v);
    }
    push(ids_[0], n, v, children, counts, sink);
  }

  // ---- both ----

  // A huge node in pieces of kHugeNode children, asking between them.
  template <Way kWay, class Sink, class KeepGoing, class Refill>
  [[gnu::noinline]] void add_huge(const Tree& tree, const Node& parent, Counts& counts, Sink& sink,
                                  KeepGoing& keep_going, Refill& refill) {
    const std::uint32_t height = parent.height + 1;
    if constexpr (kWay != Way::lanes) {
      for (std::uint32_t i = 0; i < parent.children; i += kHugeNode) {
        if (i != 0 && !keep_going()) return abandon();
        add_slots<kWay == Way::slots_visit_in_kernel>(
            tree, parent, i, parent.children - i < kHugeNode ? parent.children : i + kHugeNode, counts, sink, refill);
        if (abandoned_) return;
      }
      return;
    }
    for (std::uint32_t i = 0; i < parent.children; ++i) {
      if (i % kHugeNode == kHugeNode - 1 && !keep_going()) return abandon();
      batch_.put(pending_, parent.id, i);
      heights_[pending_] = height;
      if (++pending_ == lanes_) {
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
    nslots_ = 0;
    half_ = 0;
    waiting_ = false;
    deferred_ = false;
    abandoned_ = true;
  }

  // A visit's counts: n children, `kept` of them inner.
  static void count(const Tree::BatchVisit& v, int n, Counts& counts) {
    counts.nodes += static_cast<std::uint64_t>(n);
    counts.leaves += static_cast<std::uint64_t>(n) - v.kept;
    counts.checksum += v.checksum;
    counts.max_depth = v.max_height > counts.max_depth ? v.max_height : counts.max_depth;
  }
  // The inner children (bits of `inner`) through a cursor with room for them.
  template <class IdsT, class Pusher>
  [[gnu::always_inline]] void push_inner(const IdsT& ids, std::uint32_t inner, const std::uint32_t* children,
                                         Pusher& out) {
    for (std::uint32_t m = inner; m != 0; m &= m - 1) {
      const int j = __builtin_ctz(m);
      Node child;
      child.id = ids.get(j);
      child.height = heights_[j];
      child.children = children[j];
      out.push(child);
    }
  }

  // Counts, then the inner children (bits of `inner`) to the sink. Whether
  // a child is a leaf is random (80% are), so nothing here branches on it
  // per child: the counts are summed over all lanes, the inner children
  // collected in a bit mask, and only the loop over the mask's bits has a
  // data-dependent exit, once per batch (a branch per child mispredicted on
  // a fifth of the nodes and cost a third of the traversal's time with the
  // AVX-512 kernel).
  template <class IdsT, class Sink>
  [[gnu::always_inline]] void push(const IdsT& ids, int n, const Tree::BatchVisit& v, const std::uint32_t* children,
                                   Counts& counts, Sink& sink) {
    count(v, n, counts);
    auto out = sink.pusher(v.kept);
    push_inner(ids, v.inner, children, out);
    sink.commit(out);
  }

  sha1::Ids ids_[2];       // the slot path's ids: ids_[cur_] the next pair's, ids_[cur_ ^ 1] the deferred pair's
  int cur_ = 0;
  sha1::RowIds row_ids_;   // the lane path's
  alignas(64) std::uint32_t heights_[2 * sha1::kMaxLanes] = {};  // lane heights
  sha1::RowBatch batch_;  // the lane path's batch
  Slots slots_buf_[3][2];  // the slot path's pairs of batches: filling_, waiting() and the one hashed
  int pending_ = 0;        // lanes queued in the batch being filled
  int nslots_ = 0;         // slots used in slots_buf_[filling_][half_]
  int filling_ = 0;
  int half_ = 0;          // the batch of pair filling_ being filled (0: the first is not full)
  bool waiting_ = false;  // pair slots_buf_[waiting()] is full, not yet hashed
  // Pair slots_buf_[deferred_pair_] (its second batch with deferred_n_
  // lanes) is hashed into ids_[cur_ ^ 1], not yet visited: uncounted, its
  // children not pushed (run_pair). Its buffer is the next to fill, and
  // the next run_pair reads it before its refills write there (the visit
  // at step 0 in the kernel, or before the kernel; refills from step 1 or
  // 2).
  bool deferred_ = false;
  int deferred_pair_ = 0;
  int deferred_n_ = 0;
  int lanes_;
  bool slots_;
  bool abandoned_ = false;
  std::uint64_t refilled_ = 0;
};

}  // namespace uts
