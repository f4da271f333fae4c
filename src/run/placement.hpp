// Where a run's threads were placed (docs/output.md, "Provenance"): the
// binding asked for, and each thread's PU, core, NUMA node and package as
// read back with hwloc inside the run. Plain data (gathered as bytes across
// MPI ranks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace uts {

// --bind: none leaves threads where the OS (or the OpenMP runtime) puts
// them; omp is none chosen because OMP_PLACES or OMP_PROC_BIND is set (the
// runtime binds); compact, scatter and numa are placed by uts with hwloc.
enum class BindPolicy { none, omp, compact, scatter, numa };

std::optional<BindPolicy> parse_bind(const std::string& text);
const char* to_string(BindPolicy b);

struct BindSettings {
  BindPolicy policy = BindPolicy::none;
  bool smt = false;  // --smt: compact/scatter may put threads on SMT siblings
};

// One thread's place. Indices are hwloc's logical indices, except `pu`,
// which is the OS number (what taskset, numactl and /proc say). -1: unknown.
struct ThreadPlace {
  int pu = -1;       // the PU the thread last ran on, read at the end of the run
  int core = -1, numa = -1, package = -1;
  int bound_pus = 0;      // PUs in the thread's binding; 0: unbound (every usable PU)
  char bound_to[56] = {};  // the binding as a PU list ("3", "0-7"), empty when unbound
};

// One rank's (process's) host and the PUs it may use.
struct RankPlace {
  static constexpr int kMaskPus = 1024;
  char host[64] = {};
  int usable_pus = 0;  // PUs the process may use (its affinity, or the OpenMP runtime's places)
  // Those PUs as a bit set (PU OS numbers below kMaskPus): ranks of one host
  // bound to different PUs add up. mask_complete false: some PU was beyond.
  std::uint64_t usable_mask[kMaskPus / 64] = {};
  bool mask_complete = true;
};

// The hwloc topology in a few numbers (per host: rank 0's).
struct CacheLevel {
  int level = 0;
  std::string type;  // data | unified | instruction
  std::uint64_t size = 0;
  int count = 0;
};
struct TopologySummary {
  bool loaded = false;
  int packages = 0, numa_nodes = 0, cores = 0, pus = 0;
  std::vector<CacheLevel> caches;
  std::string text() const;  // "1 package, 1 NUMA node, 2 cores, 2 PUs"
};

// What the report says about placement: bound as asked, oversubscribed,
// PUs available and used (docs/output.md).
struct PlacementSummary {
  bool oversubscribed = false;
  int pus_available = 0;  // summed over distinct hosts
  int pus_used = 0;
};
PlacementSummary summarize_placement(const std::vector<ThreadPlace>& threads, const std::vector<RankPlace>& ranks,
                                     int threads_per_rank);

}  // namespace uts
