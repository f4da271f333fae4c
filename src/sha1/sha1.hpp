// SHA-1 for UTS node identifiers.
//
// A node id is a SHA-1 digest kept as its five 32-bit state words (word 0 holds
// bytes 0..3, big-endian), which is exactly the form the compression function
// consumes and produces. Keeping ids in that form lets a child id be computed
// with one call of Crypto++'s single-block transform and no byte swapping.
#pragma once

#include <cryptopp/sha.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace uts::sha1 {

using Words = std::array<std::uint32_t, 5>;

// SHA-1 of an arbitrary message through Crypto++'s streaming interface
// (slow path: root ids, tests).
Words digest(const std::uint8_t* data, std::size_t length);

// id of child `index` of the node whose id is `parent`:
// SHA-1(parent bytes || be32(index)), one compression of a single padded block.
// Inline: it sits on the per-node path, around the one call that must stay.
inline Words child_id(const Words& parent, std::uint32_t index) {
  // The 24-byte message fits one 64-byte block: byte 24 is the 0x80
  // terminator and the last word the length, 192 bits. Crypto++'s Transform
  // takes big-endian words already in integer form, so the parent's state
  // words go in unchanged.
  alignas(16) CryptoPP::word32 block[16] = {parent[0], parent[1], parent[2], parent[3], parent[4], index,
                                            0x80000000u, 0, 0, 0, 0, 0, 0, 0, 0, 24 * 8};
  alignas(16) CryptoPP::word32 state[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  CryptoPP::SHA1::Transform(state, block);
  return {state[0], state[1], state[2], state[3], state[4]};
}

// Raw single-block compression rate probe used by the benchmark: compresses
// `blocks` blocks and returns a value depending on all of them.
std::uint32_t compress_blocks(std::uint64_t blocks);

Words from_bytes(const std::uint8_t bytes[20]);
std::array<std::uint8_t, 20> to_bytes(const Words& words);
std::string to_hex(const Words& words);

}  // namespace uts::sha1
