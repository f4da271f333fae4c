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

// A node as four 64-bit words, packed from its 32-bit fields in registers.
// Stores hold nodes this way (the deques' slots, the sequential stack):
// written with four 8-byte stores and read back with four 8-byte loads, a
// node pushed and popped at once is forwarded from the store buffer; a
// 16-byte load over smaller stores is not, and stalls
// (results/benchmarks/2026-11-28-expander-figures.md).
struct NodeWords {
  std::uint64_t w[4];

  static NodeWords pack(const Node& node) {
    return {{pair(node.id[0], node.id[1]), pair(node.id[2], node.id[3]), pair(node.id[4], node.height),
             node.children}};
  }
  Node unpack() const {
    return Node{{lo(w[0]), hi(w[0]), lo(w[1]), hi(w[1]), lo(w[2])}, hi(w[2]), lo(w[3])};
  }

 private:
  static std::uint64_t pair(std::uint32_t lo, std::uint32_t hi) { return std::uint64_t{hi} << 32 | lo; }
  static std::uint32_t lo(std::uint64_t x) { return static_cast<std::uint32_t>(x); }
  static std::uint32_t hi(std::uint64_t x) { return static_cast<std::uint32_t>(x >> 32); }
};

// Order-independent fold of visited ids (docs/tree-rules.md, section 5): the
// sum mod 2^64 of each id's first 8 bytes read big-endian.
inline std::uint64_t checksum_term(const sha1::Words& id) {
  return (std::uint64_t{id[0]} << 32) | id[1];
}

}  // namespace uts
