// The `uts` scheduler: the engine's own worker loop on the steal protocol
// --protocol names (engine/), registered like the foreign schedulers.
#pragma once

#include "schedulers/scheduler.hpp"

namespace uts {

extern const SchedulerEntry kUtsScheduler;

}  // namespace uts
