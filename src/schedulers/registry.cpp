// The list of schedulers: adding one is a folder under schedulers/ (its
// sources in its own meson.build, its name in schedulers/meson.build) and
// one line below.
#include "schedulers/registry.hpp"

#include "schedulers/omp_task/omp_task.hpp"
#include "schedulers/uts/uts_scheduler.hpp"
#include "schedulers/tbb/tbb_scheduler.hpp"  // its entry, or the line saying it is not built
#include "uts_build_config.hpp"                // UTS_HAVE_TBB

namespace uts {

namespace {

const SchedulerEntry* const kSchedulers[] = {
    &kUtsScheduler,
    &kOmpTaskScheduler,
#if UTS_HAVE_TBB
    &kTbbScheduler,
#endif
};

}  // namespace

std::span<const SchedulerEntry* const> schedulers() { return kSchedulers; }

const SchedulerEntry* find_scheduler(std::string_view name) {
  for (const SchedulerEntry* e : kSchedulers)
    if (e->name == name) return e;
  return nullptr;
}

const char* unbuilt_scheduler(std::string_view name) {
#if !UTS_HAVE_TBB
  if (name == "tbb") return tbb_scheduler::kUnavailable;
#endif
  (void)name;
  return nullptr;
}

std::string scheduler_names() {
  std::string s;
  for (const SchedulerEntry* e : kSchedulers) {
    if (!s.empty()) s += ", ";
    s += e->name;
  }
  return s;
}

}  // namespace uts
