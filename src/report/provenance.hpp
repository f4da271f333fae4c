// Provenance and placement, rendered the same way in the tree search's
// records (columns.cpp, json.cpp, text.cpp) and the pool's (pool_format.cpp):
// docs/output.md, section 4a.
#pragma once

#include <string>
#include <vector>

#include "report/machine.hpp"
#include "run/placement.hpp"

namespace uts {

// What one record knows about where its threads ran.
struct PlacementView {
  const std::vector<ThreadPlace>& places;  // rank-major
  const std::vector<RankPlace>& ranks;
  const TopologySummary& topology;
  const BindSettings& bind;
  int threads_per_rank = 1;
  bool under_mpi = false;  // label threads rank.thread
  PlacementSummary summary() const { return summarize_placement(places, ranks, threads_per_rank); }
};

std::string shell_quoted(const std::vector<std::string>& words);  // argv as a POSIX shell reads it back
std::string hosts_list(const PlacementView& v);                   // "a;b", rank by rank
std::string placement_list(const PlacementView& v);               // "0:3 1:5" or "r0.0:3 r1.0:3"
std::string topology_json(const TopologySummary& t);              // an object, or null
std::string hosts_json(const PlacementView& v);                   // ["a","b"]
std::string placement_threads_json(const PlacementView& v);       // [{thread, host, pu, ...}]
std::string placement_text(const PlacementView& v);               // -v: topology, binding, each thread
std::string build_text(const MachineInfo& m, const std::vector<std::string>& command_line);  // -v

}  // namespace uts
