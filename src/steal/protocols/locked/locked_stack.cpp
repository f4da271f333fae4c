// The locked chunk stack's out-of-line operations (locked_stack.hpp):
// room, release and reacquire of chunks, steals and take_shallowest.
#include "steal/protocols/locked/locked_stack.hpp"

#include <cstring>
#include <new>
#include <stdexcept>

namespace uts {

LockedStack::LockedStack(std::uint32_t chunk, std::uint32_t initial_capacity)
    : array_(initial_capacity), chunk_(chunk) {
  omp_init_lock(&lock_.value);
}

LockedStack::~LockedStack() { omp_destroy_lock(&lock_.value); }

void LockedStack::make_room(std::uint32_t n) {
  omp_set_lock(&lock_.value);
  try {
    // Positions below shared_start_ were stolen and are dead.
    const std::uint32_t moved = array_.compact_and_grow(shared_start_, top_, n, "a locked stack");
    local_base_ -= moved;
    top_ -= moved;
    shared_start_ = 0;
  } catch (...) {
    omp_unset_lock(&lock_.value);
    throw;
  }
  omp_unset_lock(&lock_.value);
}

void LockedStack::release() {
  omp_set_lock(&lock_.value);
  local_base_ += chunk_;
  ++chunks_;
  // relaxed: a hint (see chunks_shared()).
  chunks_hint_.value.store(chunks_, std::memory_order_relaxed);
  omp_unset_lock(&lock_.value);
  ++releases_;
}

bool LockedStack::reacquire() {
  omp_set_lock(&lock_.value);
  bool got = false;
  if (chunks_ > 0) {
    --chunks_;
    local_base_ -= chunk_;
    // relaxed: a hint.
    chunks_hint_.value.store(chunks_, std::memory_order_relaxed);
    got = true;
  } else {
    // Empty: everything below top was stolen. Start over at 0.
    shared_start_ = local_base_ = top_ = 0;
  }
  omp_unset_lock(&lock_.value);
  if (got) {
    ++reacquires_;
    nodes_reacquired_ += chunk_;
  }
  return got;
}

std::uint32_t LockedStack::take_shallowest(std::uint32_t k, Node* out) {
  omp_set_lock(&lock_.value);
  const std::uint32_t held = top_ - shared_start_;
  const std::uint32_t n = k < held ? k : held;
  std::memcpy(out, array_.nodes + shared_start_, sizeof(Node) * n);
  const std::uint32_t shared_before = local_base_ - shared_start_;
  shared_start_ += n;
  if (shared_start_ > local_base_) local_base_ = shared_start_;  // local nodes went too
  // A partial chunk left at the shared region's local end goes back to the
  // local region, so the shared region stays whole chunks.
  local_base_ -= (local_base_ - shared_start_) % chunk_;
  chunks_ = (local_base_ - shared_start_) / chunk_;
  // Read under the lock: a thief changes chunks_ as soon as we release it.
  const std::uint32_t shared_after = chunks_ * chunk_;
  // relaxed: a hint.
  chunks_hint_.value.store(chunks_, std::memory_order_relaxed);
  omp_unset_lock(&lock_.value);
  // Every shared node that left the shared region here went by its owner's hand.
  if (shared_after < shared_before) {
    ++reacquires_;
    nodes_reacquired_ += shared_before - shared_after;
  }
  return n;
}

std::uint32_t LockedStack::steal_into(LockedStack& dest) {
  const std::uint32_t k = chunk_;
  dest.reserve(k);  // our own stack: outside the victim's lock
  omp_set_lock(&lock_.value);
  if (chunks_ == 0) {
    omp_unset_lock(&lock_.value);
    return 0;
  }
  std::memcpy(dest.array_.nodes + dest.top_, array_.nodes + shared_start_, sizeof(Node) * k);
  shared_start_ += k;
  --chunks_;
  // relaxed: a hint.
  chunks_hint_.value.store(chunks_, std::memory_order_relaxed);
  omp_unset_lock(&lock_.value);
  dest.top_ += k;
  return k;
}

}  // namespace uts
