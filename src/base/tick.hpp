// A cheap clock for state changes (docs/trace.md): the TSC where it is
// invariant (rdtsc: one instruction, no system call), else
// CLOCK_MONOTONIC_RAW. Ticks are turned into seconds with a rate taken over
// the run itself (tick::Span), so no start-up calibration is needed. In the
// SMPI build (UTS_SMPI) a tick is a nanosecond of simulated time
// (MPI_Wtime): every simulated rank runs in one process, so real time
// between two reads includes other ranks' turns.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

#if UTS_SMPI
#include <mpi.h>  // SimGrid's SMPI header
#endif

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

#if UTS_SMPI
inline std::uint64_t now() { return static_cast<std::uint64_t>(MPI_Wtime() * 1e9); }
inline const char* source() { return "mpi_wtime"; }
#else
inline std::uint64_t now() {
#if defined(__x86_64__) || defined(__i386__)
  if (detail::kUseTsc) return __rdtsc();
#endif
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline const char* source() { return detail::kUseTsc ? "tsc" : "clock_monotonic_raw"; }
#endif

namespace detail {
// A tick and the steady clock read together: the steady clock read on both
// sides of the tick, the midpoint kept (a preemption between the reads
// would skew a short calibration).
struct Pair {
  std::uint64_t tick = 0;
  std::chrono::steady_clock::time_point steady{};
};
inline Pair read_pair() {
  const auto a = std::chrono::steady_clock::now();
  const std::uint64_t t = now();
  const auto b = std::chrono::steady_clock::now();
  return Pair{t, a + (b - a) / 2};
}
// Read as the program starts (static initialisation): the rate of a run is
// taken from here to the run's end, milliseconds at least, so even a run
// of a few microseconds gets a true rate.
#if !UTS_SMPI
inline const Pair kProgramStart = read_pair();
#endif
}  // namespace detail

// A run's span: its first tick, and the tick rate timed from the
// program's start to the span's end against the steady clock.
class Span {
 public:
  void begin() { t0_ = now(); }
#if UTS_SMPI
  void end() {}
#else
  void end() { end_ = detail::read_pair(); }
#endif
  std::uint64_t first_tick() const { return t0_; }
  void set_first_tick(std::uint64_t t) { t0_ = t; }
  double ticks_per_second() const {
#if UTS_SMPI
    return 1e9;  // simulated nanoseconds
#else
    const detail::Pair& a = detail::kProgramStart;
    const double s = std::chrono::duration<double>(end_.steady - a.steady).count();
    if (!(s > 1e-6) || end_.tick <= a.tick) return 1e9;  // not measurable: nanosecond ticks assumed
    return double(end_.tick - a.tick) / s;
#endif
  }

 private:
  std::uint64_t t0_ = 0;
  detail::Pair end_{};
};

}  // namespace uts::tick
