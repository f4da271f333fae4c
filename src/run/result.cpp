// A run's verdict against the expected values (result.hpp), compared in
// 64 bits.
#include "run/result.hpp"

namespace uts {

bool matches_expected(const RunResult& result, const ExpectedResults& expected) {
  if (result.status != RunStatus::complete) return false;
  if (expected.size && *expected.size != result.counts.nodes) return false;
  if (expected.depth && *expected.depth != result.counts.max_depth) return false;
  if (expected.leaves && *expected.leaves != result.counts.leaves) return false;
  return true;
}

}  // namespace uts
