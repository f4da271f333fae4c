// Serial-numbered items carried in nodes, and a ledger that counts each one:
// how the pool workload checks conservation, and how the unit tests check
// that a deque or protocol loses and duplicates nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "tree/node.hpp"

namespace uts {

// An item: a 64-bit serial in the first two id words, and a check word in
// the last, so a torn or stale copy is recognised.
inline constexpr std::uint32_t kItemCheck = 2654435761u;
inline Node make_item(std::uint64_t serial, std::uint32_t height = 0, std::uint32_t children = 0) {
  const auto lo = static_cast<std::uint32_t>(serial), hi = static_cast<std::uint32_t>(serial >> 32);
  return Node{{lo, hi, 0, 0, lo * kItemCheck + hi}, height, children};
}
inline constexpr std::uint64_t kCorruptItem = ~std::uint64_t{0};
// The serial, or kCorruptItem when the check word does not match.
inline std::uint64_t serial_of(const Node& n) {
  if (n.id[4] != n.id[0] * kItemCheck + n.id[1]) return kCorruptItem;
  return std::uint64_t{n.id[1]} << 32 | n.id[0];
}

// How many times each of `n` items was taken; safe to fill from many threads.
class Ledger {
 public:
  explicit Ledger(std::size_t n) : seen_(n) {}
  // relaxed, all counters: read only after the threads that fill them joined.
  void count(std::uint64_t index) {
    if (index < seen_.size()) seen_[index].fetch_add(1, std::memory_order_relaxed);
    else strays_.fetch_add(1, std::memory_order_relaxed);
  }
  void take(const Node& item) {
    const std::uint64_t s = serial_of(item);
    if (s == kCorruptItem) corrupt_.fetch_add(1, std::memory_order_relaxed);
    else count(s);
  }
  void corrupt() { corrupt_.fetch_add(1, std::memory_order_relaxed); }

  // Items [0, produced) never taken.
  std::uint64_t lost(std::size_t produced) const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < produced && i < seen_.size(); ++i) n += seen_[i].load(std::memory_order_relaxed) == 0;
    return n;
  }
  std::uint64_t lost() const { return lost(seen_.size()); }
  std::uint64_t duplicated() const {
    std::uint64_t n = 0;
    for (const auto& s : seen_) n += s.load(std::memory_order_relaxed) > 1;
    return n;
  }
  std::uint64_t corrupted() const { return corrupt_.load(std::memory_order_relaxed); }
  std::uint64_t strays() const { return strays_.load(std::memory_order_relaxed); }  // indices nobody created

 private:
  std::vector<std::atomic<std::uint32_t>> seen_;
  std::atomic<std::uint64_t> corrupt_{0}, strays_{0};
};

}  // namespace uts
