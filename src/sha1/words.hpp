// A SHA-1 digest as the compression function sees it: five 32-bit state
// words, word 0 holding bytes 0..3 big-endian. Node ids are kept in this
// form, so a child's block is built from the parent's words with no byte
// swapping. No Crypto++ here: everything that stores or moves ids needs only
// this header.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace uts::sha1 {

using Words = std::array<std::uint32_t, 5>;

Words from_bytes(const std::uint8_t bytes[20]);
std::array<std::uint8_t, 20> to_bytes(const Words& words);
std::string to_hex(const Words& words);

}  // namespace uts::sha1
