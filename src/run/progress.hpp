// Live progress without a shared counter on the hot path: each thread
// publishes its own node count every few hundred expansions into its own
// cache line; a reader (the progress line, --max-nodes) sums them.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/cache_line.hpp"

namespace uts {

class ProgressBoard {
 public:
  explicit ProgressBoard(int slots) : slots_(static_cast<std::size_t>(slots)) {}
  // relaxed: a statistic; readers only need some recent value.
  void publish(int slot, std::uint64_t nodes) {
    slots_[static_cast<std::size_t>(slot)].value.store(nodes, std::memory_order_relaxed);
  }
  // relaxed: an approximate sum is all progress and --max-nodes need.
  std::uint64_t total() const {
    std::uint64_t sum = 0;
    for (const auto& s : slots_) sum += s.value.load(std::memory_order_relaxed);
    return sum;
  }

 private:
  std::vector<Padded<std::atomic<std::uint64_t>>> slots_;
};

}  // namespace uts
