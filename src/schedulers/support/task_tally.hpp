// What the foreign schedulers share (docs/schedulers.md): each thread's own
// tally (counts merged after the run, never a shared counter per node) and
// the run's stop, polled every kPollNodes nodes a thread generates.
#pragma once

#include <cstdint>

#include "base/cache_line.hpp"
#include "base/interrupt.hpp"
#include "engine/stop_flag.hpp"
#include "run/progress.hpp"
#include "run/status.hpp"
#include "tree/counts.hpp"

namespace uts {

// One thread's share of a run, on its own cache lines: written only by the
// thread whose index it has, read after the run's threads joined.
struct alignas(kCacheLine) TaskTally {
  Counts counts;
  std::uint64_t next_poll = kPollNodes;
  std::uint64_t work_ticks = 0;  // tick clock: time in the traversal's own code
  std::uint64_t tasks = 0;       // tasks this thread created
  bool cut = false;              // a task of this thread left work undone (a stop)
};

// The run's stop: signals, --max-nodes, and a stop one thread raised for all.
class TaskStop {
 public:
  TaskStop(const StopRule& rule, ProgressBoard& progress) : rule_(rule), progress_(progress) {}
  // Thread `slot`, whose tally passed its next poll: publishes its count and
  // says whether to stop (raising the flag for every thread when it is the
  // first to see why).
  bool poll(int slot, TaskTally& t) {
    t.next_poll = t.counts.nodes + kPollNodes;
    progress_.publish(slot, t.counts.nodes);
    if (flag_.raised()) return true;
    if (interrupt::requested()) {
      flag_.raise(RunStatus::interrupted, interrupt::signal_number());
      return true;
    }
    if (rule_.max_nodes != 0 && progress_.total() >= rule_.max_nodes) {
      flag_.raise(RunStatus::max_nodes);
      return true;
    }
    return false;
  }
  bool stopped() const { return flag_.raised(); }
  StopFlag& flag() { return flag_; }

 private:
  const StopRule& rule_;
  ProgressBoard& progress_;
  StopFlag flag_;
};

}  // namespace uts
