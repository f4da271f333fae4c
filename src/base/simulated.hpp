// uts-smpi only (UTS_SMPI): computation in simulated time. By default SMPI
// times the real computation between two MPI calls and advances the
// simulated clock by it. With --model-rate R the rank's computation is
// modelled instead: each node expanded costs 1/R seconds of simulated time
// (docs/smpi.md says why: at hundreds of simulated ranks in one process the
// timed computation runs on cold caches and is inflated), and SMPI must not
// time it as well (smpi/simulate-computation:no).
#pragma once

#if UTS_SMPI
#include <smpi/smpi.h>

#include <xbt/config.hpp>
#endif

namespace uts::simulated {

#if UTS_SMPI
// `seconds` of computation on this rank's simulated host, at its speed.
inline void compute(double seconds) { smpi_execute_benched(seconds); }
// SMPI times the computation between MPI calls (smpi/simulate-computation).
inline bool computation_timed() { return simgrid::config::get_value<bool>("smpi/simulate-computation"); }
#endif

}  // namespace uts::simulated
