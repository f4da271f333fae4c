// Everything a run reports, independent of the output format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parallel/policy.hpp"
#include "traversal/outcome.hpp"
#include "tree/params.hpp"

namespace uts {

struct ThreadStats {
  std::uint64_t nodes = 0;            // nodes this thread generated
  std::uint64_t steal_attempts = 0;   // claims tried (CAS issued) or victims probed
  std::uint64_t steals = 0;           // successful claims
  std::uint64_t nodes_stolen = 0;     // nodes moved in by successful claims
  std::uint64_t deques_examined = 0;  // victim deques looked at while searching
  std::uint64_t shares = 0;           // split moved toward the deep end on request
  std::uint64_t reclaims = 0;         // split moved back toward the shallow end
  double idle_seconds = 0;            // time spent without work
};

struct ExpectedResults {
  std::optional<std::uint64_t> size;
  std::optional<std::uint64_t> depth;
  std::optional<std::uint64_t> leaves;
  bool any() const { return size || depth || leaves; }
};

struct EngineSettings {
  bool sequential = false;
  int threads = 1;
  StealPolicy steal;
  VictimOrder victim = VictimOrder::random;
  InitSpread init = InitSpread::root;
};

struct RunResult {
  Counts counts;
  RunStatus status = RunStatus::complete;
  double seconds = 0;
  std::uint64_t truncations = 0;
  std::vector<ThreadStats> threads;  // empty for the sequential engine
};

// Aggregates over the per-thread statistics (spec section 4).
struct Aggregates {
  std::uint64_t steal_attempts = 0, steals = 0, nodes_stolen = 0, deques_examined = 0;
  std::uint64_t shares = 0, reclaims = 0;
  double steal_success_rate = 0;       // steals / attempts
  double nodes_per_steal = 0;          // nodes_stolen / steals
  double deques_per_attempt = 0;       // deques_examined / steal_attempts (0 if none)
  double deques_per_steal = 0;         // deques_examined / steals (0 if none)
  double share_mean = 0;               // mean fraction of the nodes per thread
  double share_variance = 0;           // population variance of that fraction
  double share_relative_variance = 0;  // variance / mean
  double idle_seconds = 0;
};

Aggregates aggregate(const RunResult& r);

}  // namespace uts
