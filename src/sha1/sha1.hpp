// SHA-1 for UTS node identifiers.
//
// A node id is a SHA-1 digest kept as its five 32-bit state words (word 0 holds
// bytes 0..3, big-endian), which is exactly the form the compression function
// consumes and produces. Keeping ids in that form lets a child id be computed
// with one call of Crypto++'s single-block transform and no byte swapping.
#pragma once

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
Words child_id(const Words& parent, std::uint32_t index);

// Raw single-block compression rate probe used by the benchmark: compresses
// `blocks` blocks and returns a value depending on all of them.
std::uint32_t compress_blocks(std::uint64_t blocks);

Words from_bytes(const std::uint8_t bytes[20]);
std::array<std::uint8_t, 20> to_bytes(const Words& words);
std::string to_hex(const Words& words);

}  // namespace uts::sha1
