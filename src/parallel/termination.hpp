// Exact termination: a count of the threads that may hold work.
//
// Invariant: every node not yet expanded is in the deque of a busy thread, or
// in the hands of a busy thief copying it. Hence `busy == 0` means the whole
// tree has been visited, and the run may end.
//
//  - A thread with an empty deque (pop returned false: its private part is
//    empty and its CAS-validated word showed top == split) calls idle().
//  - A thief calls busy() *before* its claim can succeed and idle() again if
//    the claim fails. So when a victim empties and goes idle, each thief that
//    took its last nodes was already counted: the victim's decrement follows
//    (in the seq_cst total order) its load of the word that showed the claim,
//    which follows the claim CAS, which follows the thief's increment.
//  - The count starts at the number of threads; threads that begin without
//    work go idle at once.
// The count cannot reach zero early, and it reaches zero once the last node is
// expanded because every thread then finds every deque empty and stays idle.
#pragma once

#include <atomic>
#include <cstdint>

#include "parallel/split_deque.hpp"

namespace uts {

class Termination {
 public:
  // relaxed: written before the parallel region starts, which synchronises.
  explicit Termination(int threads) { count_.value.store(threads, std::memory_order_relaxed); }

  // seq_cst on all three: the argument above uses their place in the single
  // total order relative to the deque's word operations.
  void busy() { count_.value.fetch_add(1, std::memory_order_seq_cst); }
  void idle() { count_.value.fetch_sub(1, std::memory_order_seq_cst); }
  bool finished() const { return count_.value.load(std::memory_order_seq_cst) == 0; }

 private:
  struct alignas(kCacheLine) {
    std::atomic<std::int32_t> value{0};
  } count_;
};

}  // namespace uts
