// SHA-1 through Crypto++: FIPS 180 test vectors, the one-block child id
// against the streaming digest, and the state-word form of a digest.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "sha1/sha1.hpp"

using uts::sha1::Words;

namespace {
std::string hex_of(const std::string& message) {
  return uts::sha1::to_hex(
      uts::sha1::digest(reinterpret_cast<const std::uint8_t*>(message.data()), message.size()));
}
}  // namespace

TEST_CASE("FIPS 180 test vectors") {
  CHECK(hex_of("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(hex_of("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  CHECK(hex_of(std::string(1000000, 'a')) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST_CASE("one-block child id equals the streaming digest of parent || be32(index)") {
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 5000; ++trial) {
    std::uint8_t message[24];
    for (auto& b : message) b = static_cast<std::uint8_t>(rng());
    Words parent = uts::sha1::from_bytes(message);
    const std::uint32_t index = (std::uint32_t{message[20]} << 24) | (std::uint32_t{message[21]} << 16) |
                                (std::uint32_t{message[22]} << 8) | message[23];
    REQUIRE(uts::sha1::child_id(parent, index) == uts::sha1::digest(message, sizeof message));
  }
}

TEST_CASE("byte and word forms round-trip, byte 0 most significant") {
  std::uint8_t bytes[20];
  for (int i = 0; i < 20; ++i) bytes[i] = static_cast<std::uint8_t>(i + 1);
  const Words w = uts::sha1::from_bytes(bytes);
  CHECK(w[0] == 0x01020304u);
  CHECK(w[4] == 0x11121314u);
  const auto back = uts::sha1::to_bytes(w);
  for (int i = 0; i < 20; ++i) CHECK(back[i] == bytes[i]);
  CHECK(uts::sha1::to_hex(w) == "0102030405060708090a0b0c0d0e0f1011121314");
}
