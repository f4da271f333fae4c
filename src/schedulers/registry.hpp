// The list of schedulers (docs/schedulers.md): `--scheduler`, its help,
// applicability and the dispatch in traversal/run.cpp read it; the tests
// iterate over it (uts --list-schedulers).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "schedulers/scheduler.hpp"

namespace uts {

// Every scheduler this build has, `uts` first.
std::span<const SchedulerEntry* const> schedulers();

// The entry named `name`, or nullptr.
const SchedulerEntry* find_scheduler(std::string_view name);

// "uts, omp-task, tbb": the names, for messages and --help.
std::string scheduler_names();

// For a scheduler uts knows but this build left out (its library was not
// found), the line (after "uts: ") that says so; nullptr otherwise.
const char* unbuilt_scheduler(std::string_view name);

}  // namespace uts
