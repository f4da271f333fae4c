// Why a run stopped early; shared by its threads, written at most a few times.
#pragma once

#include <atomic>

#include "base/cache_line.hpp"
#include "run/status.hpp"

namespace uts {

class StopFlag {
 public:
  // The first reason wins. `signal`: the signal behind an interrupted run.
  // relaxed: a request to stop carries no data; threads poll it.
  void raise(RunStatus why, int signal = 0) {
    int expected = 0;
    if (reason_.value.compare_exchange_strong(expected, static_cast<int>(why), std::memory_order_relaxed))
      signal_.store(signal, std::memory_order_relaxed);
  }
  // relaxed: as raise().
  bool raised() const { return reason_.value.load(std::memory_order_relaxed) != 0; }
  // relaxed: as raise().
  RunStatus reason() const {
    const int r = reason_.value.load(std::memory_order_relaxed);
    return r == 0 ? RunStatus::complete : static_cast<RunStatus>(r);
  }
  // relaxed: read after the run's threads joined.
  int signal() const { return signal_.load(std::memory_order_relaxed); }
  // For interrupt::watch(): non-zero once raised.
  const std::atomic<int>* watchable() const { return &reason_.value; }

 private:
  static_assert(static_cast<int>(RunStatus::complete) == 0);
  Padded<std::atomic<int>> reason_;
  std::atomic<int> signal_{0};
};

}  // namespace uts
