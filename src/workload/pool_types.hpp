// The concurrent-pool workload's settings and results (docs/engine.md,
// section 8), apart from the run itself (pool.hpp): what the command line
// fills and the report renders.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/cache_line.hpp"
#include "base/process_memory.hpp"
#include "run/placement.hpp"
#include "run/policy.hpp"

namespace uts {

enum class Arrangement { contiguous, spread };

struct PoolSettings {
  int threads = 1;
  std::uint64_t ops = 5000;
  std::uint64_t fill = 320;
  int trials = 10;
  int mix = 50;                      // random model: percent of adds
  std::optional<int> producers;      // producer/consumer model when set
  Arrangement arrangement = Arrangement::contiguous;
  StealPolicy steal;                 // default half
  VictimOrder victim = VictimOrder::random;
  std::uint64_t remote_delay_ns = 0;  // before every access to another segment
  std::uint64_t seed = 1;
  int samples = 100;                 // segment-size samples per thread per trial (the trace)
  BindSettings bind;                 // --bind, --smt
};

// Aligned: each thread writes its own during timed operations.
struct alignas(kCacheLine) PoolThreadStats {
  bool producer = false;
  std::uint64_t adds = 0, removes = 0, aborted = 0;
  std::uint64_t removes_stole = 0;    // removes that found the own segment empty and stole
  std::uint64_t steals = 0, elements_stolen = 0;
  std::uint64_t segments_examined = 0;           // every probe, searches that aborted included
  std::uint64_t segments_examined_stealing = 0;  // probes of the searches that ended in a steal
  double add_seconds = 0, remove_seconds = 0;  // summed over this thread's operations
};

struct SegmentSample {
  double seconds;  // since the trial started
  int thread;
  std::uint32_t size;
};

struct PoolTrial {
  bool complete = true;               // false: a signal stopped it before its operations ran out
  std::uint64_t initial = 0, added = 0, removed = 0, aborted = 0, remaining = 0;
  bool conserved = false;             // every item removed or remaining exactly once
  std::uint64_t duplicated = 0, lost = 0;
  double seconds = 0;
  double mean_add_us = 0;             // mean over threads (that added) of each one's mean
  double mean_remove_us = 0;          // likewise for removes
  double removes_stole_pct = 0;       // removes that stole, percent of removes
  double segments_per_steal = 0;      // segments examined by the searches that stole, per steal
  double elements_per_steal = 0;
  std::uint64_t steals = 0, segments_examined_stealing = 0, elements_stolen = 0;
  std::vector<PoolThreadStats> threads;
  std::vector<SegmentSample> trace;
};

struct PoolResult {
  std::vector<PoolTrial> trials;  // those run (a signal stops the rest)
  int stop_signal = 0;            // the signal that stopped the experiment, or 0
  std::vector<ThreadPlace> places;  // where each thread ran (read at the end of the last trial)
  std::vector<RankPlace> rank_places;
  TopologySummary topology;
  ProcessMemory memory;  // resident memory before the trials and its peak after them (set by the app)
  bool complete() const { return stop_signal == 0; }
  bool conserved() const {
    for (const PoolTrial& t : trials)
      if (!t.conserved) return false;
    return true;
  }
  // Means over the trials (times and percentages), and ratios of the totals
  // over all trials (per-steal measures: a trial without steals has none).
  double mean_add_us() const;
  double mean_remove_us() const;
  double removes_stole_pct() const;
  double segments_per_steal() const;
  double elements_per_steal() const;
};

const char* to_string(Arrangement a);

}  // namespace uts
