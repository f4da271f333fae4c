// One idle thread's victim order (selector.hpp): random, linear from the
// last victim that had work, or Manber's tree walk.
#include "steal/victims/selector.hpp"


namespace uts {

VictimSelector::VictimSelector(VictimOrder order, int self, int threads, ManberTree* tree, std::uint64_t seed)
    : order_(order),
      self_(self),
      threads_(threads),
      tree_(tree),
      rng_(seed),
      current_(threads > 1 ? (self + 1) % threads : self),
      last_work_(self) {}

int VictimSelector::random_other() {
  const auto pick = static_cast<int>(rng_.below(static_cast<std::uint64_t>(threads_ - 1)));
  return pick >= self_ ? pick + 1 : pick;  // uniform over the others
}

void VictimSelector::begin_search() {
  if (order_ == VictimOrder::tree) current_ = last_work_;
}

int VictimSelector::next() {
  if (threads_ < 2) return -1;
  switch (order_) {
    case VictimOrder::random:
    case VictimOrder::hier:  // hier's rounds are built in hier.hpp; this is its fallback
      return random_other();
    case VictimOrder::linear:
      if (current_ == self_) current_ = (current_ + 1) % threads_;
      return current_;
    case VictimOrder::tree: {
      // Own and padding leaves are empty by definition here: move on. The
      // search reaches a real other leaf within a bounded number of moves
      // (at most one round over the tree); the cap is only a safety net.
      for (int moves = 0; moves < 8 * tree_->leaves() + 8; ++moves) {
        if (current_ != self_ && current_ < threads_) return current_;
        advance_tree();
      }
      ++fallbacks_;
      return random_other();
    }
  }
  return -1;
}

void VictimSelector::found_work(int victim) {
  if (order_ == VictimOrder::linear) current_ = victim;  // start there next time
  if (order_ == VictimOrder::tree) last_work_ = current_ = victim;
}

void VictimSelector::missed() {
  if (order_ == VictimOrder::linear) {
    current_ = (current_ + 1) % threads_;
  } else if (order_ == VictimOrder::tree) {
    advance_tree();
  }
}

void VictimSelector::advance_tree() {
  const int leaves = tree_->leaves();
  int leaf = current_;      // the last leaf visited
  int node = leaves + leaf;  // climbing from it
  int level = 0;             // height of `node` above the leaves
  for (;;) {
    if (node == 1) {  // the whole tree was found empty this round
      ++round_;
      current_ = self_;
      return;
    }
    const int child = node;
    const int sibling = node ^ 1;
    const std::uint64_t c = tree_->read(child);
    const std::uint64_t s = tree_->read(sibling);
    const std::uint64_t newest = c > s ? c : s;
    if (newest > round_) {  // behind: others have searched later rounds
      round_ = newest;
      current_ = self_;
      return;
    }
    // Write only when it changes the counter: a search that finds the mark
    // already made leaves the line in shared state for the other searchers.
    if (c < round_) tree_->mark(child, round_);
    if (s == round_) {  // the sibling subtree is known empty too: climb
      node >>= 1;
      ++level;
      continue;
    }
    // Visit the leaf of the sibling subtree that mirrors the last leaf.
    leaf ^= 1 << level;
    if (leaf < tree_->threads()) {
      current_ = leaf;
      return;
    }
    // A padding leaf is always empty: continue the search from it.
    node = leaves + leaf;
    level = 0;
  }
}

}  // namespace uts
