// A growable array of nodes with a dead prefix, shared by the stacks that
// keep their nodes in one plain array (the locked stack, the request
// protocol's private deque). Not thread-safe: callers hold whatever makes
// them the only user (the owner alone, or the owner under its lock).
#pragma once

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "tree/node.hpp"

namespace uts {

struct NodeArray {
  Node* nodes = nullptr;
  std::uint32_t capacity = 0;

  explicit NodeArray(std::uint32_t initial) : nodes(allocate(initial)), capacity(initial) {}
  ~NodeArray() { ::operator delete(nodes); }
  NodeArray(const NodeArray&) = delete;
  NodeArray& operator=(const NodeArray&) = delete;

  // Live nodes are [base, top). Slide them down to 0 (returns how far they
  // moved, for the caller's other indices), then grow until n more fit
  // above the new top. `what` names the owner in the out-of-memory message.
  std::uint32_t compact_and_grow(std::uint32_t base, std::uint32_t top, std::uint32_t n, const char* what) {
    if (base > 0) std::memmove(nodes, nodes + base, sizeof(Node) * (top - base));
    top -= base;
    if (capacity - top < n) {
      std::uint64_t cap = capacity;
      while (cap - top < n) cap *= 2;
      if (cap > (1u << 30)) throw std::length_error(std::string(what) + " needs more than 2^30 slots");
      Node* bigger = allocate(static_cast<std::uint32_t>(cap));
      std::memcpy(bigger, nodes, sizeof(Node) * top);
      ::operator delete(nodes);
      nodes = bigger;
      capacity = static_cast<std::uint32_t>(cap);
    }
    return base;
  }

  // The owner's pushes of one expansion (a stack's Pusher), from `top` up,
  // in registers; the stack takes `top` back when they are done.
  struct Pusher {
    Node* nodes;
    std::uint32_t top;
    void push(const Node& node) { nodes[top++] = node; }
  };

 private:
  static Node* allocate(std::uint32_t n) { return static_cast<Node*>(::operator new(sizeof(Node) * n)); }
};

}  // namespace uts
