// Hardware (and kernel software) counters per thread, read with
// perf_event_open around the run's parallel region only (docs/trace.md).
// Where counters are not permitted (perf_event_paranoid, a container, a VM
// without a PMU) the run goes on without them and says so in one line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/trace.hpp"

namespace uts {

using CounterSpec = CounterRequest;  // run/trace.hpp

// The names --counters accepts, and their perf events.
std::optional<CounterSpec> find_counter(const std::string& name);
std::string counter_names();  // "cycles, instructions, ..." for messages

// Tries each counter on the calling thread. Returns those that can be
// read here; `why` says what could not and why (empty when all could).
// UTS_COUNTERS_UNAVAILABLE=1 in the environment makes every counter
// unavailable (to test the fallback on machines that have counters).
std::vector<CounterSpec> usable_counters(const std::vector<CounterSpec>& wanted, std::string& why);

// One thread's counters: opened (disabled) by that thread, then enabled and
// disabled around its work. Values are scaled when the kernel multiplexed
// them (time running < time enabled); `scaled` says so.
class ThreadCounters {
 public:
  ThreadCounters() = default;
  ~ThreadCounters();
  ThreadCounters(const ThreadCounters&) = delete;
  ThreadCounters& operator=(const ThreadCounters&) = delete;
  void open(const std::vector<CounterSpec>& specs);  // on the calling thread
  void start();
  void stop();
  // After stop(): one value per spec; nullopt where the thread could not open it.
  std::vector<std::optional<std::uint64_t>> values(bool& scaled) const;

 private:
  std::vector<int> fds_;
};

}  // namespace uts
