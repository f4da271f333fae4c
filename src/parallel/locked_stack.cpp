#include "parallel/locked_stack.hpp"

#include <cstring>
#include <new>
#include <stdexcept>

namespace uts {

LockedStack::LockedStack(std::uint32_t chunk, std::uint32_t initial_capacity)
    : array_(initial_capacity), chunk_(chunk) {
  omp_init_lock(&lock_.lock);
}

LockedStack::~LockedStack() { omp_destroy_lock(&lock_.lock); }

void LockedStack::make_room(std::uint32_t n) {
  omp_set_lock(&lock_.lock);
  try {
    // Positions below shared_start_ were stolen and are dead.
    const std::uint32_t moved = array_.compact_and_grow(shared_start_, top_, n, "a locked stack");
    local_base_ -= moved;
    top_ -= moved;
    shared_start_ = 0;
  } catch (...) {
    omp_unset_lock(&lock_.lock);
    throw;
  }
  omp_unset_lock(&lock_.lock);
}

void LockedStack::release() {
  omp_set_lock(&lock_.lock);
  local_base_ += chunk_;
  ++chunks_;
  // relaxed: a hint (see chunks_shared()).
  chunks_hint_.value.store(chunks_, std::memory_order_relaxed);
  omp_unset_lock(&lock_.lock);
  ++releases_;
}

bool LockedStack::reacquire() {
  omp_set_lock(&lock_.lock);
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
  omp_unset_lock(&lock_.lock);
  if (got) ++reacquires_;
  return got;
}

std::uint32_t LockedStack::steal_into(LockedStack& dest) {
  const std::uint32_t k = chunk_;
  dest.reserve(k);  // our own stack: outside the victim's lock
  omp_set_lock(&lock_.lock);
  if (chunks_ == 0) {
    omp_unset_lock(&lock_.lock);
    return 0;
  }
  std::memcpy(dest.array_.nodes + dest.top_, array_.nodes + shared_start_, sizeof(Node) * k);
  shared_start_ += k;
  --chunks_;
  // relaxed: a hint.
  chunks_hint_.value.store(chunks_, std::memory_order_relaxed);
  omp_unset_lock(&lock_.lock);
  dest.top_ += k;
  return k;
}

}  // namespace uts
