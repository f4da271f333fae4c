// A cheap clock for state changes (docs/trace.md): the TSC where it is
// invariant (rdtsc, a few ns), else CLOCK_MONOTONIC_RAW. Ticks are turned
// into seconds with a rate measured over the run itself (TickSpan), so no
// start-up calibration is needed.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace uts::tick {

namespace detail {
inline bool invariant_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) return false;
  __cpuid(0x80000007u, a, b, c, d);
  return (d >> 8) & 1u;  // "TscInvariant"
#else
  return false;
#endif
}
inline const bool kUseTsc = invariant_tsc();
}  // namespace detail

inline std::uint64_t now() {
#if defined(__x86_64__) || defined(__i386__)
  if (detail::kUseTsc) return __rdtsc();
#endif
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline const char* source() { return detail::kUseTsc ? "tsc" : "clock_monotonic_raw"; }

// Ticks against the steady clock over a span (a run): the rate at the end.
class Span {
 public:
  void begin() {
    t0_ = now();
    s0_ = std::chrono::steady_clock::now();
  }
  void end() {
    t1_ = now();
    s1_ = std::chrono::steady_clock::now();
  }
  std::uint64_t first_tick() const { return t0_; }
  double ticks_per_second() const {
    const double s = std::chrono::duration<double>(s1_ - s0_).count();
    if (!(s > 1e-4) || t1_ <= t0_) return 1e9;  // too short to measure (under 0.1 ms): a guess
    return double(t1_ - t0_) / s;
  }

 private:
  std::uint64_t t0_ = 0, t1_ = 0;
  std::chrono::steady_clock::time_point s0_{}, s1_{};
};

}  // namespace uts::tick
