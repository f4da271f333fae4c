// A Lace-style split deque of nodes, owned by one thread and robbed by others.
//
// Positions are 32-bit counters; slot = position & mask in a power-of-two ring.
//
//      shallow end                                        deep end
//      top ............. split ................ bottom
//      [ shared: thieves claim here ][ private: owner only ]
//
// `word` packs top (high 32 bits) and split (low 32 bits); every change to it
// is a CAS, so a claim fails if the owner moved the split meanwhile.
//
// The design rests on one rule: **top and split only ever increase.**
//  - A thief claims from the shallow end: top += k.
//  - The owner shares by moving split toward the deep end: split += priv/2.
//  - The owner reclaims (its private part is dry, nodes are still shared) the
//    way a thief would: one CAS takes every shared node (top := split), and it
//    pushes copies of them back onto its private part, deepest on top, so its
//    depth-first order is kept. Split never moves back toward the shallow end.
// Hence the word never takes a value twice (see point 6 for wrap-around), and
// a thief can copy first and claim after:
//
// Why it is safe (tests/unit/steal/protocols/split/ exercises each point;
// tests/model/split_deque.pml checks the protocol exhaustively, with mutants):
//
// 1. The owner's private part [split, bottom) is touched only by the owner.
//    Thieves may *read* any slot speculatively, but keep what they read only
//    if their CAS succeeds. Every slot write and every thief's read is a
//    relaxed atomic, so a speculative read racing an owner write is a stale
//    value, not UB. Only an owner writes its slots, so its own reads meet no
//    concurrent write; pop_private() (pop()'s hot path) reads with plain
//    loads (a stale thief's atomic read of the same word is read against
//    read, no race, though std::atomic_ref formally asks every concurrent
//    access to be atomic), and the cold paths (grow, reclaim) read
//    atomically.
// 2. Steal = copy, then claim. A thief loads word w = (t, s), checks that the
//    ring it announced (point 4) is still the current one, copies slots
//    [t, t+k) into its own deque above its bottom (not yet visible to anyone),
//    then CASes w -> (t+k, s). Success means the word still equals w, and since
//    top and split never go back, it has not changed at all since the load
//    (no ABA). So during the copy [t, t+k) was shared and unclaimed: the owner
//    does not write shared positions (it writes only >= bottom >= split) and
//    does not wrap over them (it reuses a slot only below a top it has read,
//    and top was t <= every copied position). The values copied are the nodes.
// 3. Visibility. Share publishes nodes with a release CAS; the thief's load of
//    w synchronises with it (all later changes to the word are RMWs, so the
//    release sequence holds). Growth publishes a ring with a release store
//    after copying into it. A claim's CAS is a release, and the owner reads
//    top with acquire before reusing slots below it: a thief's copy
//    happens-before the owner overwrites what it copied.
// 4. Rings. Growth (only when live nodes fill the ring: memory stays O(peak
//    live nodes), whatever thieves do) copies [top, bottom) into a ring twice
//    the size and retires the old one, which is never written again. Thieves
//    announce the ring they read in a hazard pointer and re-check the ring
//    pointer after loading w; the owner frees a retired ring only when no
//    hazard names it (seq_cst publish-then-scan against seq_cst
//    announce-then-reload: one of the two sees the other). A thief that
//    copied from a ring current after its load of w finds there every
//    position of [t, s): those were pushed before the load, into that ring or
//    into an older one whose live range [top, bottom) growth carried over,
//    and top <= t at growth time because the ring was published before the
//    thief's reload and the claim succeeds only if top is still t.
// 5. Reclaim is a CAS on the same word, so owner and thieves never both get a
//    node; when the word shows top == split, nothing is shared and, because
//    only the owner raises split, nothing can become shared: the deque is
//    empty for certain.
// 6. Wrap-around. The word could repeat only if top advanced by 2^32 during
//    one steal attempt. Thieves mark each attempt in their ThiefRecord; every
//    time split passes a checkpoint (each 2^30 positions, `checkpoint_interval`
//    in tests) the owner waits for the attempts in progress to end. During an
//    attempt split therefore rises at most two intervals and top, which
//    starts at most one ring capacity (<= 2^30) below split, rises less than
//    2^32. The wait costs nothing unless a thief is preempted mid-attempt at
//    that moment, once per 2^30 shared positions.
// 7. Giving the shallowest nodes away (take_shallowest, for an MPI rank's
//    agent): the owner claims the way a thief does, copy then one CAS, from
//    (t, s) to (t + n, s + p), where p > 0 only when all s - t shared nodes
//    go too, so the new word is (x, x): nothing shared. Both halves rise, so
//    the word still never repeats (point 2); the p private positions
//    [s, s + p) are the owner's own until the CAS, and a thief's claim from
//    (t, s) fails once the word moved. Split passes checkpoints as a share
//    does (point 6). The shared nodes it takes count as reclaimed.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "base/cache_line.hpp"
#include "run/policy.hpp"
#include "steal/storage/packed_node.hpp"
#include "tree/node.hpp"

namespace uts {

// What one thread announces while it steals (it writes; deque owners read).
struct alignas(kCacheLine) ThiefRecord {
  std::atomic<const void*> hazard{nullptr};  // the ring being read, or null
  std::atomic<std::uint64_t> attempt{0};     // odd while inside a steal attempt
};

class SplitDeque {
 public:
  struct Options {
    std::uint32_t initial_capacity = 1u << 10;
    std::uint32_t start_position = 0;                // tests: start just below the 2^32 wrap
    std::uint32_t checkpoint_interval = 1u << 30;    // point 6; tests make it small
  };
  static constexpr std::uint32_t kMaxCapacity = 1u << 30;

  // Construct on the owning thread: the ring is first written here, so
  // first-touch places it on the owner's NUMA node. `thieves` holds every
  // thread's record (the owner's own included); it must outlive the deque.
  explicit SplitDeque(std::span<ThiefRecord> thieves, Options options);
  explicit SplitDeque(std::span<ThiefRecord> thieves) : SplitDeque(thieves, Options{}) {}
  ~SplitDeque();
  SplitDeque(const SplitDeque&) = delete;
  SplitDeque& operator=(const SplitDeque&) = delete;

  // ---- owner only ----------------------------------------------------------

  void push(const Node& node) {
    if (bottom_ == safe_end_) make_room(1);
    store_slot(ring_, bottom_, node);
    ++bottom_;
  }

  // The sink interface of expansion (tree/expand.hpp): a cursor with room
  // for n pushes, then commit().
  using Pusher = RingPusher<std::uint32_t>;
  Pusher pusher(std::uint32_t n) {
    ensure_room(n);
    return {slots_, mask_, bottom_};
  }
  // The pushed nodes are private: no thief reads above split (point 1).
  void commit(const Pusher& p) { bottom_ = p.pos; }

  // Deepest private node; reclaims the shared part when the private part is
  // empty. false: the deque is empty, for certain (point 5).
  bool pop(Node& out) { return pop_private(out) || reclaim_and_pop(out); }
  // The deepest private node, or false when the private part is empty (the
  // shared part may still hold nodes: pop() reclaims them). No atomic and no
  // call: the expander takes its refills with this while the hashing kernel
  // keeps its state in vector registers, which a call would make it spill.
  bool pop_private(Node& out) {
    if (bottom_ == split_) return false;
    --bottom_;
    out = slots_[bottom_ & mask_].load_own();
    return true;
  }

  // relaxed: a hint; a missed request is seen at the next check.
  bool share_requested() const { return request_.flag.load(std::memory_order_relaxed); }

  // The shallowest half of the private part becomes shared. Keeps a request
  // pending while fewer than 2 nodes are private.
  void share();
  // Every private node becomes shared (the pool workload's owner does this
  // when it leaves, so its items stay reachable). The same move of split as
  // share(), by a larger amount.
  void share_all();

  // Up to k of the shallowest nodes this owner holds (shared first, then the
  // shallowest private ones) move into out[0..n), shallowest first, by one
  // claim (point 7). Returns n; fewer than k only when fewer are held.
  std::uint32_t take_shallowest(std::uint32_t k, Node* out);
  // Nodes held, shared and private (the shared count may be stale).
  std::uint32_t size() const { return private_size() + shared_size(); }

  std::uint32_t private_size() const { return bottom_ - split_; }
  std::uint64_t shares() const { return shares_; }
  std::uint64_t nodes_shared() const { return nodes_shared_; }
  std::uint64_t reclaims() const { return reclaims_; }
  std::uint64_t nodes_reclaimed() const { return nodes_reclaimed_; }
  std::uint64_t checkpoint_waits() const { return checkpoint_waits_; }
  std::uint32_t capacity() const { return ring_->mask + 1; }
  std::size_t retired_rings() const { return retired_.size(); }
  // Bytes held in rings (current and retired, not yet freed).
  std::size_t ring_bytes() const;

  // ---- any thread ----------------------------------------------------------

  // Nodes shared right now (a snapshot; may be stale by the time it is used).
  std::uint32_t shared_size() const {
    // relaxed: only steers victim choice; the claim CAS re-validates.
    return shared_of(thief_.word.load(std::memory_order_relaxed));
  }

  void request_share() {
    // relaxed, and read before write so idle thieves polling a victim do not
    // keep pulling its cache line into exclusive state.
    if (!request_.flag.load(std::memory_order_relaxed)) request_.flag.store(true, std::memory_order_relaxed);
  }

  // Claim nodes from the shallow end by the policy into `dest` (the calling
  // thread's own deque; `me` its record). Returns how many were taken (0:
  // none shared, the policy's minimum not met, or every race lost).
  // `before_claim` runs between the copy and the CAS (tests stall thieves there).
  struct NoHook {
    void operator()() const {}
  };
  template <class BeforeClaim = NoHook>
  std::uint32_t steal(const StealPolicy& policy, SplitDeque& dest, ThiefRecord& me,
                      BeforeClaim&& before_claim = NoHook{});

 private:
  // A slot is a PackedNode: four 64-bit words, each accessed atomically
  // (point 1).
  struct Ring {
    std::uint32_t mask;
    PackedNode* slots;
  };

  static void store_slot(const Ring* ring, std::uint32_t position, const Node& node) {
    // relaxed (inside): ordering comes from the word's CAS and the ring pointer (point 3).
    ring->slots[position & ring->mask].store(node);
  }
  // A thief's read: it may race an owner's write to the same slot (a stale,
  // doomed attempt), so it is atomic; kept only if the CAS then succeeds.
  static Node load_slot(const Ring* ring, std::uint32_t position) { return ring->slots[position & ring->mask].load(); }

  static std::uint32_t top_of(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }
  static std::uint32_t split_of(std::uint64_t w) { return static_cast<std::uint32_t>(w); }
  static std::uint64_t pack(std::uint32_t top, std::uint32_t split) {
    return (std::uint64_t{top} << 32) | split;
  }
  static std::uint32_t shared_of(std::uint64_t w) { return split_of(w) - top_of(w); }

  static Ring* new_ring(std::uint32_t capacity);
  static void free_ring(Ring* ring);
  // Make at least `needed` positions writable from bottom_.
  void ensure_room(std::uint32_t needed) {
    if (safe_end_ - bottom_ < needed) make_room(needed);
  }
  void make_room(std::uint32_t needed);
  void grow(std::uint32_t top, std::uint32_t needed);
  void free_unreferenced_rings();
  void pass_checkpoint();
  void pass_checkpoints(std::uint32_t new_split);
  bool reclaim_and_pop(Node& out);
  void move_split(std::uint32_t give);

  // Thieves' line: the word every claim CASes, and the ring they read.
  struct alignas(kCacheLine) ThiefLine {
    std::atomic<std::uint64_t> word{0};  // top:32 | split:32
    std::atomic<Ring*> ring{nullptr};    // current ring, for thieves
  } thief_;
  // Request flag on its own line: the owner reads it at every node.
  struct alignas(kCacheLine) RequestLine {
    std::atomic<bool> flag{false};
  } request_;
  // Owner's line(s): plain fields, never touched by thieves.
  alignas(kCacheLine) Ring* ring_ = nullptr;
  PackedNode* slots_ = nullptr;  // ring_'s slots and mask, copied: pop and push
  std::uint32_t mask_ = 0;       // load them without going through ring_
  std::uint32_t bottom_ = 0;
  std::uint32_t split_ = 0;     // the owner's exact copy: only the owner moves split
  std::uint32_t safe_end_ = 0;  // positions below it are writable without checks
  std::uint32_t checkpoint_interval_;
  std::uint32_t next_checkpoint_;  // split may not pass it before the thieves' attempts are waited for
  std::uint64_t shares_ = 0;
  std::uint64_t nodes_shared_ = 0;
  std::uint64_t reclaims_ = 0;
  std::uint64_t nodes_reclaimed_ = 0;
  std::uint64_t checkpoint_waits_ = 0;
  std::span<ThiefRecord> thieves_;
  std::vector<Ring*> retired_;
  std::vector<Node> scratch_;  // reclaimed nodes in transit
};

template <class BeforeClaim>
std::uint32_t SplitDeque::steal(const StealPolicy& policy, SplitDeque& dest, ThiefRecord& me,
                                BeforeClaim&& before_claim) {
  // relaxed: only this thread writes its attempt counter.
  const std::uint64_t attempt = me.attempt.load(std::memory_order_relaxed);
  // seq_cst: the owner's checkpoint scan (seq_cst) either sees this attempt
  // or precedes it, and then our loads of the word see its split (point 6).
  me.attempt.store(attempt + 1, std::memory_order_seq_cst);
  // acquire: a ring published by growth is seen with its contents.
  const Ring* ring = thief_.ring.load(std::memory_order_acquire);
  // seq_cst: announce-then-reload against the owner's publish-then-scan (point 4).
  me.hazard.store(ring, std::memory_order_seq_cst);
  std::uint32_t taken = 0;
  for (;;) {
    // seq_cst: acquire for the shared nodes' contents (point 3), and a place
    // in the total order for the checkpoint argument (point 6).
    std::uint64_t w = thief_.word.load(std::memory_order_seq_cst);
    // seq_cst: the hazard validation of point 4, made after loading w so the
    // ring holds every position w shows shared (point 4).
    const Ring* now = thief_.ring.load(std::memory_order_seq_cst);
    if (now != ring) {
      ring = now;
      me.hazard.store(ring, std::memory_order_seq_cst);  // seq_cst: as the first announcement
      continue;
    }
    const std::uint32_t k = policy.claim_size(shared_of(w));
    if (k == 0) break;
    const std::uint32_t top = top_of(w);
    dest.ensure_room(k);
    for (std::uint32_t i = 0; i < k; ++i) store_slot(dest.ring_, dest.bottom_ + i, load_slot(ring, top + i));
    before_claim();
    // acq_rel on success: release orders our slot reads before the owner's
    // reuse of those slots (point 3). relaxed on failure: the loop reloads.
    if (thief_.word.compare_exchange_strong(w, pack(top + k, split_of(w)), std::memory_order_acq_rel,
                                            std::memory_order_relaxed)) {
      dest.bottom_ += k;
      taken = k;
      break;
    }
  }
  // release: our reads of the ring are done before the owner can see it unannounced.
  me.hazard.store(nullptr, std::memory_order_release);
  // release: the attempt is over (the owner's checkpoint wait reads it).
  me.attempt.store(attempt + 2, std::memory_order_release);
  return taken;
}

}  // namespace uts
