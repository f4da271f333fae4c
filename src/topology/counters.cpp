// Per-thread perf_event_open counters (counters.hpp): the names --counters
// accepts, which of them this machine allows, reading them around the run.
#include "topology/counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace uts {

namespace {

struct Known {
  const char* name;
  std::uint32_t type;
  std::uint64_t config;
};

const Known kKnown[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"llc-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"llc-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

int open_counter(const CounterSpec& c) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = c.type;
  a.config = c.config;
  a.disabled = 1;
  // Hardware events: user space only (what perf_event_paranoid 2 allows).
  // The kernel's software events (context switches, migrations, faults)
  // happen in the kernel: excluding it would count zero.
  a.exclude_kernel = c.type == PERF_TYPE_SOFTWARE && c.config != PERF_COUNT_SW_TASK_CLOCK ? 0 : 1;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  // This thread, any CPU.
  return static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
}

}  // namespace

std::optional<CounterSpec> find_counter(const std::string& name) {
  for (const Known& k : kKnown)
    if (name == k.name) return CounterSpec{name, k.type, k.config};
  return std::nullopt;
}

std::string counter_names() {
  std::string out;
  for (const Known& k : kKnown) {
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

std::vector<CounterSpec> usable_counters(const std::vector<CounterSpec>& wanted, std::string& why) {
  std::vector<CounterSpec> out;
  why.clear();
  const char* forced = std::getenv("UTS_COUNTERS_UNAVAILABLE");
  for (const CounterSpec& c : wanted) {
    std::string reason;
    if (forced && *forced && std::strcmp(forced, "0") != 0) {
      reason = "UTS_COUNTERS_UNAVAILABLE is set";
    } else {
      const int fd = open_counter(c);
      if (fd >= 0) {
        close(fd);
        out.push_back(c);
        continue;
      }
      const int e = errno;
      reason = e == EACCES || e == EPERM ? "not permitted (perf_event_paranoid, or a container)"
               : e == ENOENT || e == ENODEV || e == EOPNOTSUPP
                   ? "no such counter here (no PMU in this VM?)"
                   : std::strerror(e);
    }
    if (!why.empty()) why += "; ";
    why += c.name + ": " + reason;
  }
  return out;
}

ThreadCounters::~ThreadCounters() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

void ThreadCounters::open(const std::vector<CounterSpec>& specs) {
  for (const CounterSpec& c : specs) fds_.push_back(open_counter(c));
}

void ThreadCounters::start() {
  for (int fd : fds_)
    if (fd >= 0) {
      ioctl(fd, PERF_EVENT_IOC_RESET, 0);
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    }
}

void ThreadCounters::stop() {
  for (int fd : fds_)
    if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

std::vector<std::optional<std::uint64_t>> ThreadCounters::values(bool& scaled) const {
  std::vector<std::optional<std::uint64_t>> out;
  for (int fd : fds_) {
    std::uint64_t v[3] = {0, 0, 0};  // value, time enabled, time running
    if (fd < 0 || read(fd, v, sizeof v) != static_cast<ssize_t>(sizeof v)) {
      out.emplace_back(std::nullopt);
      continue;
    }
    if (v[2] > 0 && v[2] < v[1]) {
      scaled = true;
      out.emplace_back(static_cast<std::uint64_t>(double(v[0]) * double(v[1]) / double(v[2])));
    } else {
      out.emplace_back(v[0]);
    }
  }
  return out;
}

}  // namespace uts
