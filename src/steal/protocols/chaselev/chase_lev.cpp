// The Chase-Lev deque's arrays (chase_lev.hpp): allocation, and the
// owner's growth into a larger array.
#include "steal/protocols/chaselev/chase_lev.hpp"

#include <new>
#include <stdexcept>

namespace uts {

ChaseLevDeque::Array* ChaseLevDeque::new_array(std::uint32_t capacity) {
  auto* a = new Array{static_cast<std::int64_t>(capacity) - 1, nullptr};
  // Value-initialised: a doomed thief may read a slot nobody wrote yet.
  a->slots = new (std::align_val_t{kCacheLine}) PackedNode[capacity]();
  return a;
}

void ChaseLevDeque::free_array(Array* a) {
  ::operator delete[](a->slots, std::align_val_t{kCacheLine});
  delete a;
}

ChaseLevDeque::ChaseLevDeque(std::uint32_t initial_capacity) {
  array_ = new_array(initial_capacity);
  // release: the array is published to thieves with its (empty) contents.
  array_pub_.value.store(array_, std::memory_order_release);
}

ChaseLevDeque::~ChaseLevDeque() {
  for (Array* a : retired_) free_array(a);
  free_array(array_);
}

void ChaseLevDeque::refresh_or_grow(std::uint32_t n) {
  // acquire: thieves' reads of the slots below this top happened before (their
  // CAS is seq_cst), so those slots may be overwritten.
  top_cache_ = top_.value.load(std::memory_order_acquire);
  const std::int64_t live = bottom_own_ - top_cache_;
  if (live + n <= static_cast<std::int64_t>(capacity())) return;
  std::uint64_t cap = capacity();
  while (static_cast<std::int64_t>(cap) < live + n) cap *= 2;
  if (cap > (1u << 30)) throw std::length_error("a Chase-Lev deque needs more than 2^30 slots");
  Array* bigger = new_array(static_cast<std::uint32_t>(cap));
  for (std::int64_t i = top_cache_; i < bottom_own_; ++i)
    bigger->slots[i & bigger->mask].store(array_->slots[i & array_->mask].load());
  // release: a thief that loads the new array sees the copies.
  array_pub_.value.store(bigger, std::memory_order_release);
  retired_.push_back(array_);
  array_ = bigger;
}

}  // namespace uts
