// The engine's seam to other processes: what a distributed front end (an MPI
// rank's agent, distrib/agent.hpp) implements, and what the engine lends
// it. Free of MPI, so the engine builds the same with and without it. Only
// OpenMP thread 0 of a rank calls a RemoteLink (MPI_THREAD_FUNNELED).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "run/stats.hpp"
#include "run/status.hpp"
#include "tree/node.hpp"

namespace uts {

// What thread 0 lends its rank's agent.
class LinkHost {
 public:
  virtual ~LinkHost() = default;
  // Thread 0 working: move up to `max` of its nodes into `out` (appended),
  // about half of what it holds and always keeping one: the shallowest half,
  // or half of every level (--rank-split, engine/rank_give.hpp); returns how
  // many.
  virtual std::size_t give(std::size_t max, std::vector<Node>& out) = 0;
  // Nodes from another rank into thread 0's deque. When thread 0 is idle it
  // marks itself busy first (idle/termination.hpp's rule for a thief).
  virtual void take(const Node* nodes, std::size_t count) = 0;
  // Thread 0 idle: every thread of this rank is idle with an empty deque
  // (the double scan): the rank is passive until thread 0 takes nodes.
  virtual bool quiescent() = 0;
  // Nodes this rank has generated so far (for --max-nodes across ranks).
  virtual std::uint64_t nodes_so_far() = 0;
  // The rank's stop flag (interrupt, --max-nodes, or another rank's stop).
  virtual bool stop_raised() = 0;
  virtual RunStatus stop_reason() = 0;
  virtual int stop_signal() = 0;  // the signal behind an interrupted stop, or 0
  virtual void stop(RunStatus why) = 0;
  // The same, for a stop another rank announced: `signal` is the signal that
  // stopped that rank (0: none), so rank 0 reports it.
  virtual void stop(RunStatus why, int signal) = 0;
  // The job is over (termination detected): every thread of the rank ends.
  virtual void finish() = 0;
  // --trace: a global event (run/trace.hpp TraceEvent::GlobalKind) with
  // another rank, and the nodes it moved. No-op unless tracing.
  virtual void note_global(std::uint8_t /*kind*/, int /*peer*/, std::uint32_t /*nodes*/) {}
};

class RemoteLink {
 public:
  virtual ~RemoteLink() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Thread 0 working, after as many expansions as the previous call
  // returned (--rank-poll before the first, and within --rank-poll of
  // resuming work after an idle spell); also between naps while thread 0
  // waits for the rank's other threads to finish. Returns how many
  // expansions thread 0 works before the next call
  // (distrib/poll_interval.hpp).
  virtual std::uint32_t poll_busy(LinkHost& host) = 0;
  // Thread 0 idle. `dry`: its last local round failed (or it has no local
  // victims), so a global steal may go out. true: nodes arrived (take() ran).
  virtual bool poll_idle(LinkHost& host, bool dry) = 0;
  // Thread 0 idle and its rank's only thread, just after poll_idle: block
  // until a message has arrived when nothing else can happen before one
  // (uts-smpi, where a simulated rank must block or advance simulated
  // time). false: it did not wait (the caller naps). Never blocks where
  // the transport cannot (a real MPI run keeps polling).
  virtual bool wait_idle(LinkHost& /*host*/) { return false; }
  // Thread 0's loop has ended (job over or stopped): complete every message
  // so that no rank is left waiting.
  virtual void close(LinkHost& host) = 0;
  virtual RankStats stats() const = 0;
};

}  // namespace uts
