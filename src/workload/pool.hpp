// The concurrent-pool experiment (docs/engine.md, section 8): Kotz and Ellis's study of
// Manber's concurrent pool on the BBN Butterfly, rerun with today's split
// deque as the segment. Threads share nothing but the pool: one segment per
// thread, halving steals (or --steal), linear / random / Manber tree search.
//
// Each of --ops operations (taken from one shared counter, so the threads
// together perform exactly that many) is an add or a remove:
//  - random model (--mix P): an add with probability P%;
//  - producer/consumer (--producers K, --arrangement contiguous|spread):
//    producers only add, consumers only remove.
// An add pushes a new item (a serial number) onto the thread's own segment.
// A remove pops from the own segment; an empty segment makes the thread
// search the others by the victim policy and steal; a remove aborts (and is
// counted) when every thread still performing operations is searching and a
// full round of the search found nothing (the study's rule).
#pragma once

#include <vector>

#include "workload/pool_types.hpp"

namespace uts {

// Which threads produce: contiguous 0..K-1, or spread evenly around the ring.
std::vector<bool> producer_map(int threads, int producers, Arrangement arrangement);

PoolResult run_pool(const PoolSettings& settings);

}  // namespace uts
