// Why a run stopped early; shared by its threads, written at most a few times.
#pragma once

#include <atomic>

#include "base/cache_line.hpp"
#include "run/status.hpp"

namespace uts {

class StopFlag {
 public:
  // relaxed: a request to stop carries no data; threads poll it.
  void raise(RunStatus why) {
    int expected = 0;
    reason_.value.compare_exchange_strong(expected, static_cast<int>(why), std::memory_order_relaxed);
  }
  // relaxed: as raise().
  bool raised() const { return reason_.value.load(std::memory_order_relaxed) != 0; }
  // relaxed: as raise().
  RunStatus reason() const {
    const int r = reason_.value.load(std::memory_order_relaxed);
    return r == 0 ? RunStatus::complete : static_cast<RunStatus>(r);
  }

 private:
  static_assert(static_cast<int>(RunStatus::complete) == 0);
  Padded<std::atomic<int>> reason_;
};

}  // namespace uts
