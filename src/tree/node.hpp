// A tree node as it travels through stacks, deques and messages.
#pragma once

#include <cstdint>

#include "sha1/words.hpp"

namespace uts {

// `children` is computed once, when the node is generated, so leaves never
// need to be stored and an expanded node never recomputes its count.
struct Node {
  sha1::Words id;
  std::uint32_t height;
  std::uint32_t children;
};

// Order-independent fold of visited ids (docs/tree-rules.md, section 5): the
// sum mod 2^64 of each id's first 8 bytes read big-endian.
inline std::uint64_t checksum_term(const sha1::Words& id) {
  return (std::uint64_t{id[0]} << 32) | id[1];
}

}  // namespace uts
