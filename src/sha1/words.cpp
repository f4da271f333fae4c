// A digest's state words to and from big-endian bytes, and as hex.
#include "sha1/words.hpp"

#include <cstdio>

namespace uts::sha1 {

Words from_bytes(const std::uint8_t bytes[20]) {
  Words w{};
  for (int i = 0; i < 5; ++i)
    w[i] = (std::uint32_t{bytes[4 * i]} << 24) | (std::uint32_t{bytes[4 * i + 1]} << 16) |
           (std::uint32_t{bytes[4 * i + 2]} << 8) | std::uint32_t{bytes[4 * i + 3]};
  return w;
}

std::array<std::uint8_t, 20> to_bytes(const Words& words) {
  std::array<std::uint8_t, 20> b{};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) b[4 * i + j] = static_cast<std::uint8_t>(words[i] >> (24 - 8 * j));
  return b;
}

std::string to_hex(const Words& words) {
  char buf[41];
  for (int i = 0; i < 5; ++i) std::snprintf(buf + 8 * i, 9, "%08x", words[i]);
  return std::string(buf, 40);
}

}  // namespace uts::sha1
