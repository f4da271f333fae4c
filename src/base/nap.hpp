// An idle thread's short pause (an MPI agent waiting for messages, a closing
// rank waiting for the closing waves). In the SMPI build (UTS_SMPI) the pause is
// simulated time: every simulated rank runs in one process, so a real sleep
// would hold the whole simulation while its clock stands still. It lasts
// what sleep_for(d) lasts on Linux: d plus the default timer slack of a
// normal thread, 50 us (a real one takes longer still, so this is if
// anything an underestimate: results/benchmarks/2026-11-28-figures-from-comments.md).
#pragma once

#include <chrono>
#include <thread>

#if UTS_SMPI
#include <smpi/smpi_helpers_internal.h>  // smpi_usleep, without the helpers' macros
#endif

namespace uts {

#if UTS_SMPI
inline constexpr std::chrono::microseconds kTimerSlack{50};
#endif

inline void nap(std::chrono::microseconds d) {
#if UTS_SMPI
  smpi_usleep(static_cast<useconds_t>((d + kTimerSlack).count()));
#else
  std::this_thread::sleep_for(d);
#endif
}

}  // namespace uts
