#include "sha1/sha1.hpp"

#include <cryptopp/sha.h>

#include <cstdio>

namespace uts::sha1 {

Words digest(const std::uint8_t* data, std::size_t length) {
  std::uint8_t out[CryptoPP::SHA1::DIGESTSIZE];
  CryptoPP::SHA1().CalculateDigest(out, data, length);
  return from_bytes(out);
}

std::uint32_t compress_blocks(std::uint64_t blocks) {
  Words id{};
  for (std::uint64_t i = 0; i < blocks; ++i) id = child_id(id, static_cast<std::uint32_t>(i));
  return id[4];
}

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
