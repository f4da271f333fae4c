// SHA-1 through Crypto++: streaming digests (root ids, tests) and the
// portable one-block child id (docs/tree-rules.md, section 2), which is also
// the test oracle of the faster kernels in batch.hpp.
#pragma once

#include <cryptopp/sha.h>

#include <cstddef>
#include <cstdint>

#include "sha1/words.hpp"

namespace uts::sha1 {

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

}  // namespace uts::sha1
