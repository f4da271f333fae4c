// The one clock of the project: steady (monotonic), in seconds as doubles.
// In the SMPI build (uts-smpi, UTS_SMPI) it is the simulated clock,
// MPI_Wtime: every figure of a simulated run is simulated time.
#pragma once

#include <chrono>

#if UTS_SMPI
#include <mpi.h>  // SimGrid's SMPI header (the build puts /usr/include/smpi first)
#endif

namespace uts {

#if UTS_SMPI
// std::chrono's clock interface over SMPI's simulated time (nanoseconds).
struct SimulatedClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<SimulatedClock>;
  static constexpr bool is_steady = true;
  static time_point now() { return time_point(duration(static_cast<rep>(MPI_Wtime() * 1e9))); }
};
using Clock = SimulatedClock;
#else
using Clock = std::chrono::steady_clock;
#endif

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace uts
