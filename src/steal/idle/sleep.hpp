// Where idle threads sleep, and how they are woken.
//
// A sleeper registers (`sleepers`), re-checks whether it should still sleep,
// and waits on a futex word (`seq`) with a timeout. Wakers bump `seq` before
// the futex wake, and the kernel compares the word atomically with queueing
// the sleeper, so a wake between the sleeper's read of `seq` and its wait is
// never lost: the wait returns at once.
//
// Who wakes whom (engine/worker.hpp):
//  - the end of the run (termination detected, stop flag raised): everyone;
//  - a busy owner that, at one of its periodic polls, sees sleepers and has
//    shared nodes nobody has taken: one sleeper, with a hint to try it first.
//    An owner with sleepers and two or more private nodes shares first.
// The timeout is a safety net for liveness only: every wake the protocol
// needs is sent explicitly (a busy owner polls again every few hundred nodes).
// The line is written when a thread falls asleep or is woken, never per steal
// attempt; busy owners only read `sleepers`, which stays in shared state.
#pragma once

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

#include "base/cache_line.hpp"

namespace uts {

class SleepBoard {
 public:
  // relaxed: a hint; a missed sleeper is seen at the owner's next poll.
  std::uint32_t sleepers() const { return line_.sleepers.load(std::memory_order_relaxed); }

  // Sleep until woken or `timeout`, unless `stay_awake()` says otherwise once
  // registered. Returns the hinted victim: -1 when there is none or the
  // sleep ended by timeout (a hint left from an earlier wake is stale).
  template <class StayAwake>
  int sleep(std::chrono::microseconds timeout, StayAwake&& stay_awake) {
    // seq_cst: read before registering, so a wake after this read changes the
    // word and the futex wait returns at once.
    const std::uint32_t seq = line_.seq.load(std::memory_order_seq_cst);
    // seq_cst: registering is ordered before the re-check below (Dekker with
    // the waker's change-then-read of `sleepers`).
    line_.sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (!stay_awake()) wait(seq, timeout);
    // relaxed: a count; the waker re-reads it at its next poll.
    line_.sleepers.fetch_sub(1, std::memory_order_relaxed);
    // relaxed: only whether a wake happened while we slept.
    if (line_.seq.load(std::memory_order_relaxed) == seq) return -1;
    // relaxed: a hint, validated by the claim CAS.
    return line_.hint.load(std::memory_order_relaxed);
  }

  void wake_one(int hint) {
    // relaxed: a hint only.
    line_.hint.store(hint, std::memory_order_relaxed);
    // seq_cst: the change the sleeper's futex compare must see.
    line_.seq.fetch_add(1, std::memory_order_seq_cst);
    wake(1);
  }

  void wake_all() {
    // relaxed: no hint, the run is over or stopping.
    line_.hint.store(-1, std::memory_order_relaxed);
    // seq_cst: as in wake_one; callers made done/stop visible before this.
    line_.seq.fetch_add(1, std::memory_order_seq_cst);
    wake(INT_MAX);
  }

 private:
  void wait(std::uint32_t seq, std::chrono::microseconds timeout) {
#if defined(__linux__)
    timespec ts{static_cast<time_t>(timeout.count() / 1000000), static_cast<long>(timeout.count() % 1000000) * 1000};
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&line_.seq), FUTEX_WAIT_PRIVATE, seq, &ts, nullptr, 0);
#else
    (void)seq;
    std::this_thread::sleep_for(timeout < std::chrono::microseconds(200) ? timeout : std::chrono::microseconds(200));
#endif
  }
  void wake(int count) {
#if defined(__linux__)
    // Skip the system call when nobody sleeps. seq_cst: store buffering
    // between our seq increment then this load, and the sleeper's sleepers
    // increment then the kernel's compare of seq; with both seq_cst, either
    // we see the sleeper or its compare sees our increment and it does not
    // sleep. (relaxed here would let both miss on weak-memory CPUs.)
    if (line_.sleepers.load(std::memory_order_seq_cst) == 0) return;
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&line_.seq), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
#else
    (void)count;
#endif
  }

  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  struct alignas(kCacheLine) Line {
    std::atomic<std::uint32_t> seq{0};
    std::atomic<std::uint32_t> sleepers{0};
    std::atomic<int> hint{-1};
  } line_;
};

}  // namespace uts
