// Protocol `locked`: the shared-memory stack of the 2003 UPC report
// (Olivier & Prins et al.) as the UTS reference's uts_shm implements it.
//
//      0 ... shared_start ........ local_base ............ top
//            [ shared: chunks of K ][ local: owner only      ]
//
// The owner pushes and pops its local region with plain loads and stores.
// When the local region holds more than 2K nodes it releases the K oldest of
// them as one chunk (local_base += K, chunks += 1); when the local region runs
// dry it reacquires the newest shared chunk (local_base -= K, chunks -= 1). A
// thief takes the oldest chunk (shared_start += K, chunks -= 1). Every change
// to shared_start, local_base, chunks and the array itself (growth,
// compaction) happens under the owner's lock, and a thief reads the shared
// region only while holding it.
//
// The lock is the OpenMP lock (omp_lock_t), as uts_shm uses under OpenMP
// (its SET_LOCK is omp_set_lock): the reference comparison stays fair, and
// both libgomp and libomp implement it as a spin-then-futex lock.
//
// Why it is safe:
//  - The owner writes only positions >= local_base and moves local_base only
//    under the lock; a thief reads only [shared_start, local_base) under the
//    lock. The regions are disjoint, and the lock orders every handover
//    (release, reacquire, theft) between the owner and thieves.
//  - Growth and compaction move the array under the lock, so no thief copies
//    from memory being freed or moved.
//  - `chunks` is also stored (relaxed) in an atomic that thieves read without
//    the lock, only to skip victims with nothing to take; the claim itself
//    re-checks under the lock.
//  - Termination: a thief marks itself busy before taking the lock.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "parallel/node_array.hpp"
#include "parallel/protocol.hpp"
#include "parallel/split_deque.hpp"  // kCacheLine

namespace uts {

class LockedStack {
 public:
  explicit LockedStack(std::uint32_t chunk, std::uint32_t initial_capacity = 1u << 10);
  ~LockedStack();
  LockedStack(const LockedStack&) = delete;
  LockedStack& operator=(const LockedStack&) = delete;

  // ---- owner only ----------------------------------------------------------
  void reserve(std::uint32_t n) {
    if (array_.capacity - top_ < n) make_room(n);
  }
  void push_if(const Node& node, bool keep) {
    if (keep) array_.nodes[top_++] = node;  // inside the room reserve() made
  }
  void push(const Node& node) {
    reserve(1);
    array_.nodes[top_++] = node;
  }
  bool pop(Node& out) {
    if (top_ == local_base_ && !reacquire()) return false;
    out = array_.nodes[--top_];
    return true;
  }
  // uts_shm releases in its push, one chunk at a time; here the check
  // follows every expansion and also releases one chunk, so after a node
  // with many children the local region can stay above 2K for a while.
  void release_surplus() {
    if (top_ - local_base_ > 2 * chunk_) release();
  }
  std::uint32_t local_size() const { return top_ - local_base_; }
  std::uint64_t releases() const { return releases_; }
  std::uint64_t reacquires() const { return reacquires_; }
  std::uint32_t chunk() const { return chunk_; }

  // ---- any thread ----------------------------------------------------------
  // relaxed: a hint for victim choice; the claim re-checks under the lock.
  std::uint32_t chunks_shared() const { return chunks_hint_.value.load(std::memory_order_relaxed); }
  // Take the oldest chunk into `dest` (the calling thread's own stack).
  // Returns the nodes taken: the chunk size, or 0 when none was shared.
  std::uint32_t steal_into(LockedStack& dest);

 private:
  void make_room(std::uint32_t n);
  void release();
  bool reacquire();

  struct alignas(kCacheLine) LockLine {
    omp_lock_t lock;
  } lock_;
  struct alignas(kCacheLine) HintLine {
    std::atomic<std::uint32_t> value{0};
  } chunks_hint_;
  // Under the lock.
  alignas(kCacheLine) NodeArray array_;
  std::uint32_t shared_start_ = 0;
  std::uint32_t chunks_ = 0;
  // Owner only. local_base_ changes only under the lock, but only the owner
  // reads or writes it, so it lives here, off the line thieves write.
  alignas(kCacheLine) std::uint32_t local_base_ = 0;
  std::uint32_t top_ = 0;
  std::uint32_t chunk_;
  std::uint64_t releases_ = 0;
  std::uint64_t reacquires_ = 0;
};

struct LockedProtocol {
  struct Context {
    Context(int, const EngineSettings& settings) : chunk(settings.steal.chunk) {}
    std::uint32_t chunk;
  };

  class Deque {
   public:
    Deque(Context& ctx, int) : stack_(ctx.chunk) {}
    void reserve(std::uint32_t n) { stack_.reserve(n); }
    void push_if(const Node& node, bool keep) { stack_.push_if(node, keep); }
    void push(const Node& node) { stack_.push(node); }
    bool pop(Node& out) { return stack_.pop(out); }
    void maintain() { stack_.release_surplus(); }
    // The design shares only whole chunks, past 2K local nodes: nothing to force.
    bool offer() { return stack_.chunks_shared() > 0; }
    void go_idle() {}
    void got_work() {}
    bool stealable() const { return stack_.chunks_shared() > 0; }
    StealOutcome steal(Deque& victim, BusyMark& busy, const StealPolicy&, const RemoteDelay& delay) {
      // Always one chunk of K.
      if (!victim.stealable()) return {};
      busy.busy();  // before the claim can succeed
      delay();
      const std::uint32_t got = victim.stack_.steal_into(stack_);
      if (got == 0) busy.idle();
      return {true, got};
    }
    void report(ThreadStats& s) const {
      s.shares = stack_.releases();
      s.nodes_shared = stack_.releases() * stack_.chunk();
      s.reclaims = stack_.reacquires();
      s.nodes_reclaimed = stack_.reacquires() * stack_.chunk();
    }

   private:
    LockedStack stack_;
  };
};

static_assert(StealProtocol<LockedProtocol>);

}  // namespace uts
