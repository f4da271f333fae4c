#include "sha1/sha1.hpp"

#include <cryptopp/sha.h>

#include <cstdio>

namespace uts::sha1 {

namespace {

constexpr std::uint32_t kInitialState[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu,
                                            0x10325476u, 0xC3D2E1F0u};

// The 24-byte message (20-byte parent id, 4-byte index) fits one 64-byte block:
// byte 24 is the 0x80 terminator and the last word is the length, 192 bits.
constexpr std::uint32_t kTerminatorWord = 0x80000000u;
constexpr std::uint32_t kMessageBits = 24 * 8;

}  // namespace

Words digest(const std::uint8_t* data, std::size_t length) {
  std::uint8_t out[CryptoPP::SHA1::DIGESTSIZE];
  CryptoPP::SHA1().CalculateDigest(out, data, length);
  return from_bytes(out);
}

Words child_id(const Words& parent, std::uint32_t index) {
  // Crypto++'s Transform takes the message as big-endian words already in
  // integer form, so the parent's state words go in unchanged.
  alignas(16) CryptoPP::word32 block[16] = {parent[0], parent[1], parent[2], parent[3],
                                            parent[4], index,     kTerminatorWord,
                                            0,         0,         0,
                                            0,         0,         0,
                                            0,         0,         kMessageBits};
  alignas(16) CryptoPP::word32 state[5] = {kInitialState[0], kInitialState[1],
                                           kInitialState[2], kInitialState[3],
                                           kInitialState[4]};
  CryptoPP::SHA1::Transform(state, block);
  return {state[0], state[1], state[2], state[3], state[4]};
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
