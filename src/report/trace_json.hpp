// The event trace as Chrome/Perfetto trace JSON (docs/trace.md): one track
// per thread (a process per rank), state intervals as complete events, one
// complete event per steal attempt, a flow arrow from victim to thief for
// every successful steal, wake-ups and MPI events as instants.
#pragma once

#include <string>

#include "report/record.hpp"

namespace uts {

std::string render_trace_json(const RunReport& r);

}  // namespace uts
