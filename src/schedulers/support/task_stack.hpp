// A tuned-form task's own stack of packed nodes (docs/schedulers.md): the
// batched expander pushes children through a Pusher, as the sequential
// baseline's stack does, and a hand-off takes the bottom of it (the oldest
// nodes, nearest the root: on average the largest subtrees) for a new task.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tree/node.hpp"

namespace uts {

class TaskStack {
 public:
  struct Pusher {
    NodeWords* top;
    void push(const Node& node) { *top++ = NodeWords::pack(node); }
  };
  explicit TaskStack(std::vector<NodeWords>&& nodes) : nodes_(std::move(nodes)), size_(nodes_.size()) {}
  // Room for n more nodes (the expander's batch), growing geometrically.
  Pusher pusher(std::uint32_t n) {
    if (nodes_.size() - size_ < n) nodes_.resize(std::max<std::size_t>(2 * nodes_.size(), size_ + n + 256));
    return {nodes_.data() + size_};
  }
  void commit(const Pusher& p) { size_ = static_cast<std::size_t>(p.top - nodes_.data()); }
  bool pop(Node& out) {
    if (size_ == 0) return false;
    out = nodes_[--size_].unpack();
    return true;
  }
  std::size_t size() const { return size_; }
  // The bottom `n` nodes, taken out; the rest move down.
  std::vector<NodeWords> take_bottom(std::size_t n) {
    std::vector<NodeWords> out(nodes_.begin(), nodes_.begin() + static_cast<std::ptrdiff_t>(n));
    std::copy(nodes_.begin() + static_cast<std::ptrdiff_t>(n), nodes_.begin() + static_cast<std::ptrdiff_t>(size_),
              nodes_.begin());
    size_ -= n;
    return out;
  }

 private:
  std::vector<NodeWords> nodes_;
  std::size_t size_;
};

}  // namespace uts
