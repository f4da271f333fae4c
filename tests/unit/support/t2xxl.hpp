// Shared test support: the reference's T2XXL, a tree whose counts pass 2^32.
#pragma once

#include <cstdint>

namespace uts::test {

inline constexpr std::uint64_t kTwo32 = std::uint64_t{1} << 32;
// T2XXL, from the reference's sample tree list.
inline constexpr std::uint64_t kT2xxlSize = 10612052303u;
inline constexpr std::uint32_t kT2xxlDepth = 216370u;
inline constexpr std::uint64_t kT2xxlLeaves = 5306027151u;

}  // namespace uts::test
