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
//  - Giving the shallowest nodes away (take_shallowest, for an MPI rank's
//    agent) happens under the lock too: the owner takes from shared_start
//    on, as a thief would but any number of nodes; if that leaves a partial
//    chunk, the owner takes its nodes back into the local region (local_base
//    moves down, as in a reacquire), so the shared region stays whole chunks
//    and a reacquire never finds a stranded remainder.
//  - Termination: a thief marks itself busy before taking the lock.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/cache_line.hpp"
#include "steal/storage/node_array.hpp"
#include "tree/node.hpp"

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
  // The sink interface of expansion (tree/expand.hpp): a cursor with room
  // for n pushes, then commit().
  using Pusher = NodeArray::Pusher;
  Pusher pusher(std::uint32_t n) {
    reserve(n);
    return {array_.nodes, top_};
  }
  void commit(const Pusher& p) { top_ = p.top; }
  void push(const Node& node) {
    reserve(1);
    array_.nodes[top_++] = node;
  }
  // reacquire() true: a chunk came back, so pop_local() has a node.
  bool pop(Node& out) { return pop_local(out) || (reacquire() && pop_local(out)); }
  // The deepest local node, or false when the local region is empty (shared
  // chunks may remain: pop() reacquires them). No lock and no call, for the
  // expander's refills inside the hashing kernel (steal/protocol.hpp).
  bool pop_local(Node& out) {
    if (top_ == local_base_) return false;
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
  // Nodes held, local and shared (the shared count may be stale).
  std::uint64_t size() const { return local_size() + std::uint64_t{chunks_shared()} * chunk_; }
  // Up to k of the shallowest nodes (the oldest shared chunks first, then the
  // local region's oldest) move into `out`, shallowest first; returns how many.
  std::uint32_t take_shallowest(std::uint32_t k, Node* out);
  std::uint64_t releases() const { return releases_; }
  std::uint64_t reacquires() const { return reacquires_; }
  std::uint64_t nodes_released() const { return releases_ * chunk_; }
  // Shared nodes the owner took back: whole chunks reacquired, and those
  // take_shallowest gave away or took back.
  std::uint64_t nodes_reacquired() const { return nodes_reacquired_; }
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

  Padded<omp_lock_t> lock_;
  Padded<std::atomic<std::uint32_t>> chunks_hint_;
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
  std::uint64_t nodes_reacquired_ = 0;
};

}  // namespace uts
