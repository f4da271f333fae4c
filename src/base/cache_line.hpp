// The cache-line size and a wrapper that gives a value a line of its own, so
// that what one thread writes often never shares a line with what others read.
#pragma once

#include <cstddef>

namespace uts {

inline constexpr std::size_t kCacheLine = 64;

// A value alone on its cache line (aligned, and padded to the line).
template <class T>
struct alignas(kCacheLine) Padded {
  T value{};
};

}  // namespace uts
