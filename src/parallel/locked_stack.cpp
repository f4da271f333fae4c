#include "parallel/locked_stack.hpp"

#include <cstring>
#include <new>
#include <stdexcept>

namespace uts {

namespace {
Node* allocate(std::uint32_t n) { return static_cast<Node*>(::operator new(sizeof(Node) * n)); }
}  // namespace

LockedStack::LockedStack(std::uint32_t chunk, std::uint32_t initial_capacity)
    : capacity_(initial_capacity), chunk_(chunk) {
  omp_init_lock(&lock_.lock);
  nodes_ = allocate(capacity_);
}

LockedStack::~LockedStack() {
  omp_destroy_lock(&lock_.lock);
  ::operator delete(nodes_);
}

void LockedStack::make_room(std::uint32_t n) {
  omp_set_lock(&lock_.lock);
  // Compact first: positions below shared_start_ were stolen and are dead.
  if (shared_start_ > 0) {
    std::memmove(nodes_, nodes_ + shared_start_, sizeof(Node) * (top_ - shared_start_));
    local_base_ -= shared_start_;
    top_ -= shared_start_;
    shared_start_ = 0;
  }
  if (capacity_ - top_ < n) {
    std::uint64_t cap = capacity_;
    while (cap - top_ < n) cap *= 2;
    if (cap > (1u << 30)) {
      omp_unset_lock(&lock_.lock);
      throw std::length_error("a locked stack needs more than 2^30 slots");
    }
    Node* bigger = allocate(static_cast<std::uint32_t>(cap));
    std::memcpy(bigger, nodes_, sizeof(Node) * top_);
    ::operator delete(nodes_);
    nodes_ = bigger;
    capacity_ = static_cast<std::uint32_t>(cap);
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
  std::memcpy(dest.nodes_ + dest.top_, nodes_ + shared_start_, sizeof(Node) * k);
  shared_start_ += k;
  --chunks_;
  // relaxed: a hint.
  chunks_hint_.value.store(chunks_, std::memory_order_relaxed);
  omp_unset_lock(&lock_.lock);
  dest.top_ += k;
  return k;
}

}  // namespace uts
