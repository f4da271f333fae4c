// Shared test support: the reference's T2XXL, a tree whose counts pass 2^32,
// as a run result (two threads whose own counts pass 2^32 too).
#pragma once

#include <cstdint>

#include "run/result.hpp"

namespace uts::test {

inline constexpr std::uint64_t kTwo32 = std::uint64_t{1} << 32;
// T2XXL, from the reference's sample tree list.
inline constexpr std::uint64_t kT2xxlSize = 10612052303u;
inline constexpr std::uint32_t kT2xxlDepth = 216370u;
inline constexpr std::uint64_t kT2xxlLeaves = 5306027151u;

inline RunResult t2xxl_result() {
  RunResult r;
  r.counts.nodes = kT2xxlSize;
  r.counts.max_depth = kT2xxlDepth;
  r.counts.leaves = kT2xxlLeaves;
  r.counts.checksum = 0x0123456789abcdefu;
  r.seconds = 100.0;
  ThreadStats a, b;
  a.nodes = 6000000000u;  // each thread's count above 2^32 too
  b.nodes = kT2xxlSize - a.nodes;
  a.steal_attempts = b.steal_attempts = 5000000000u;
  a.steals = b.steals = 10;
  a.nodes_stolen = b.nodes_stolen = 4300000000u;
  r.threads = {a, b};
  return r;
}

}  // namespace uts::test
