// Everything a run produced, independent of the output format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/process_memory.hpp"
#include "run/locality.hpp"
#include "run/placement.hpp"
#include "run/stats.hpp"
#include "run/status.hpp"
#include "run/trace.hpp"
#include "tree/counts.hpp"

namespace uts {

struct ExpectedResults {
  std::optional<std::uint64_t> size;
  std::optional<std::uint64_t> depth;
  std::optional<std::uint64_t> leaves;
  bool any() const { return size || depth || leaves; }
};

struct RunResult {
  Counts counts;
  RunStatus status = RunStatus::complete;
  int stop_signal = 0;  // interrupted: the signal that stopped the run (SIGINT 2, SIGTERM 15, ...)
  double seconds = 0;
  double closing_seconds = 0;  // across ranks: thread 0's closing after the job's end, not in `seconds`
  // Tick clock (base/tick.hpp) readings: the end of the last work of any of
  // its threads, and, across ranks, when thread 0 learned that the job was
  // over (distrib/: termination latency); 0 when not read.
  std::uint64_t last_work_tick = 0, finish_tick = 0;
  double ticks_per_second = 0;
  std::uint64_t truncations = 0;
  std::vector<ThreadStats> threads;  // one per thread (MPI: rank-major)
  std::optional<DomainMap> domains;  // when the run used domains
  std::vector<RankStats> ranks;      // MPI runs: one per rank
  // Placement (run/placement.hpp): every thread's place, read at the end of
  // the run (rank-major), every rank's host, and the topology (rank 0's).
  std::vector<ThreadPlace> places;
  std::vector<RankPlace> rank_places;
  TopologySummary topology;
  // --trace: every thread's events (rank-major) and, per rank, how to read
  // their ticks (docs/trace.md).
  std::vector<ThreadTrace> traces;
  std::vector<TickCalibration> clocks;
  CounterResults counters;  // --counters
  // The runtime that ran the scheduler, as found at run time ("libgomp",
  // "libomp", "oneTBB 2021.8"; "uts" for the engine's own loop and the
  // sequential baseline).
  std::string runtime = "uts";
  // This process's resident memory (base/process_memory.hpp): before the run
  // and its peak at the end. Under MPI rank 0's own; every rank's is in `ranks`.
  ProcessMemory memory;
};

// Comparison with the expected values present; true when all present match
// (never for a partial run).
bool matches_expected(const RunResult& result, const ExpectedResults& expected);

}  // namespace uts
