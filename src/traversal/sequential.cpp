// The sequential baseline: one thread, an explicit depth-first stack, and
// the same expanders as the engine (tree/expand.hpp).
#include "traversal/sequential.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "base/clock.hpp"
#include "base/interrupt.hpp"
#include "tree/counts.hpp"
#include "tree/expand.hpp"

namespace uts {

namespace {

// The depth-first stack, as a sink for expand(). Nodes are kept packed
// (NodeWords, tree/node.hpp): the child pushed last is popped next, and the
// packed form makes that read come from the store buffer without a stall.
class NodeStack {
 public:
  struct Pusher {
    NodeWords* top;
    void push(const Node& node) { *top++ = NodeWords::pack(node); }
  };
  Pusher pusher(std::uint32_t n) {
    if (nodes_.size() - size_ < n) nodes_.resize(std::max<std::size_t>(2 * nodes_.size(), size_ + n + 4096));
    return {nodes_.data() + size_};
  }
  void commit(const Pusher& p) { size_ = static_cast<std::size_t>(p.top - nodes_.data()); }
  bool pop(Node& out) {
    if (size_ == 0) return false;
    out = nodes_[--size_].unpack();
    return true;
  }

 private:
  std::vector<NodeWords> nodes_;
  std::size_t size_ = 0;
};

}  // namespace

RunResult run_sequential(const Tree& tree, const StopRule& stop, ProgressBoard* progress) {
  RunResult out;
  const auto start = Clock::now();

  NodeStack stack;
  const Node root = tree.root();
  auto push_root = stack.pusher(1);
  if (visit(root, out.counts)) push_root.push(root);
  stack.commit(push_root);

  // true: stop now (and out.status says why).
  auto stop_now = [&] {
    if (progress) progress->publish(0, out.counts.nodes);
    if (interrupt::requested()) {
      out.status = RunStatus::interrupted;
      out.stop_signal = interrupt::signal_number();
      return true;
    }
    if (stop.max_nodes != 0 && out.counts.nodes >= stop.max_nodes) {
      out.status = RunStatus::max_nodes;
      return true;
    }
    return false;
  };
  auto keep_going = [&] { return !stop_now(); };

  std::uint64_t next_poll = kPollNodes;
  Node node;
  Expander ways(tree);
  auto refill = [&](Node& parent) __attribute__((always_inline)) { return stack.pop(parent); };
  // One loop per way of queueing children (tree/expand.hpp), each inlined
  // here: GCC left one of them out of line otherwise, a layout the loop's
  // code was never measured in.
  auto loop = [&](auto way) __attribute__((always_inline)) {
    auto& expander = ways.as<decltype(way)::value>();
    for (;;) {
      if (!stack.pop(node)) {
        if (!expander.flush(tree, out.counts, stack)) break;  // every node visited: complete
      } else {
        expander.add(tree, node, out.counts, stack, keep_going, refill);
      }
      if (expander.abandoned()) {  // a huge node or a -g batch given up
        if (out.status == RunStatus::complete) stop_now();
        break;
      }
      if (out.counts.nodes >= next_poll) {
        next_poll = out.counts.nodes + kPollNodes;
        if (stop_now()) break;
      }
    }
  };
  using Way = Expander::Way;
  switch (ways.way()) {
    case Way::lanes: loop(std::integral_constant<Way, Way::lanes>{}); break;
    case Way::slots: loop(std::integral_constant<Way, Way::slots>{}); break;
    case Way::slots_visit_in_kernel: loop(std::integral_constant<Way, Way::slots_visit_in_kernel>{}); break;
  }
  out.seconds = seconds_since(start);
  // A signal in the last stretch before a poll still came before the run's
  // end (docs/output.md, section 7): the run is interrupted, as in the
  // parallel engine (steal/idle/termination.hpp), not quietly complete.
  if (out.status == RunStatus::complete && interrupt::requested()) {
    out.status = RunStatus::interrupted;
    out.stop_signal = interrupt::signal_number();
  }
  out.threads.resize(1);
  out.threads[0].nodes = out.counts.nodes;
  return out;
}

}  // namespace uts
