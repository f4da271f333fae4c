// The one clock of the project: steady (monotonic), in seconds as doubles.
#pragma once

#include <chrono>

namespace uts {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace uts
