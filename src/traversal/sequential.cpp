#include "traversal/sequential.hpp"

#include <chrono>
#include <vector>

#include "util/clock.hpp"
#include "util/interrupt.hpp"

namespace uts {

RunResult run_sequential(const Tree& tree, const StopRule& stop, ProgressBoard* progress) {
  constexpr unsigned kPollMask = 255;  // poll stop conditions every 256 expansions
  RunResult out;
  const auto start = std::chrono::steady_clock::now();

  std::vector<Node> stack;
  stack.reserve(4096);
  const Node root = tree.root();
  if (visit(root, out.counts)) stack.push_back(root);

  unsigned polls = 0;
  while (!stack.empty()) {
    const Node node = stack.back();
    stack.pop_back();
    expand(tree, node, out.counts, [&](const Node& child) { stack.push_back(child); });
    if ((++polls & kPollMask) == 0) {
      if (progress) progress->publish(0, out.counts.nodes);
      if (interrupt::requested()) {
        out.status = RunStatus::interrupted;
        break;
      }
      if (stop.max_nodes != 0 && out.counts.nodes >= stop.max_nodes) {
        out.status = RunStatus::max_nodes;
        break;
      }
    }
  }
  out.seconds = seconds_since(start);
  out.threads.resize(1);
  out.threads[0].nodes = out.counts.nodes;
  return out;
}

}  // namespace uts
