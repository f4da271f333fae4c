// Live progress without a shared counter on the hot path: each thread
// publishes its own node count every few hundred expansions into its own cache
// line; a reporter thread sums them about once a second.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <condition_variable>
#include <mutex>
#include <vector>

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
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> value{0};
  };
  std::vector<Slot> slots_;
};

// Prints "nodes, rate, elapsed" on one updating stderr line while alive.
class ProgressReporter {
 public:
  explicit ProgressReporter(const ProgressBoard& board);
  ~ProgressReporter();  // stops the thread and clears the line

 private:
  void loop();
  const ProgressBoard& board_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool printed_ = false;
  std::thread thread_;
};

}  // namespace uts
