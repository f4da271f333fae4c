// run/result.hpp: a run's verdict against the expected values, in 64 bits.
#include <doctest/doctest.h>

#include <cstdint>

#include "run/result.hpp"
#include "support/t2xxl.hpp"

using namespace uts;

namespace {

using test::kTwo32;
constexpr std::uint64_t kSize = test::kT2xxlSize;
constexpr std::uint32_t kDepth = test::kT2xxlDepth;
constexpr std::uint64_t kLeaves = test::kT2xxlLeaves;
using test::t2xxl_result;

}  // namespace

TEST_CASE("matches_expected compares all 64 bits") {
  const RunResult result = t2xxl_result();
  ExpectedResults e;
  e.size = kSize;
  e.depth = kDepth;
  e.leaves = kLeaves;
  CHECK(matches_expected(result, e));

  SUBCASE("size off by one either way") {
    e.size = kSize + 1;
    CHECK_FALSE(matches_expected(result, e));
    e.size = kSize - 1;
    CHECK_FALSE(matches_expected(result, e));
  }
  SUBCASE("values that differ only above bit 32") {
    e.size = kSize + kTwo32;
    CHECK_FALSE(matches_expected(result, e));
    e.size = kSize - kTwo32;  // same low 32 bits, still above 2^32
    CHECK_FALSE(matches_expected(result, e));
    e.size = kSize & 0xffffffffu;  // the value a 32-bit counter would hold
    CHECK_FALSE(matches_expected(result, e));
  }
  SUBCASE("leaves off by one, and by 2^32") {
    e.leaves = kLeaves + 1;
    CHECK_FALSE(matches_expected(result, e));
    e.leaves = kLeaves + kTwo32;
    CHECK_FALSE(matches_expected(result, e));
  }
  SUBCASE("depth off by one, and by 2^32 (the count is 32-bit, the expectation 64-bit)") {
    e.depth = kDepth + 1u;
    CHECK_FALSE(matches_expected(result, e));
    e.depth = kDepth + kTwo32;
    CHECK_FALSE(matches_expected(result, e));
  }
  SUBCASE("only the expected values present are compared") {
    ExpectedResults size_only;
    size_only.size = kSize;
    CHECK(matches_expected(result, size_only));
    size_only.size = kSize + kTwo32;
    CHECK_FALSE(matches_expected(result, size_only));
  }
  SUBCASE("a partial run never verifies") {
    RunResult partial = result;
    partial.status = RunStatus::max_nodes;
    CHECK_FALSE(matches_expected(partial, e));
  }
}
