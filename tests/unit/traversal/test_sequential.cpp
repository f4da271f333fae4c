// traversal/: the sequential baseline and the dispatch between engines.
#include <doctest/doctest.h>

#include <csignal>

#include "base/interrupt.hpp"
#include "traversal/run.hpp"
#include "traversal/sequential.hpp"

using namespace uts;

namespace {

TreeParams t1_like(int depth) {
  TreeParams p;  // T1's rule (geometric fixed, b0 4, seed 19) at a smaller depth
  p.type = TreeType::geometric;
  p.shape = GeoShape::fixed;
  p.b0 = 4;
  p.depth = depth;
  p.seed = 19;
  return p;
}

}  // namespace

TEST_CASE("sequential: the reference's T1 exactly, one per-thread entry") {
  const Tree tree(t1_like(10));
  const RunResult r = run_sequential(tree, StopRule{});
  CHECK(r.status == RunStatus::complete);
  CHECK(r.counts.nodes == 4130071);
  CHECK(r.counts.max_depth == 10);
  CHECK(r.counts.leaves == 3305118);
  REQUIRE(r.threads.size() == 1);
  CHECK(r.threads[0].nodes == 4130071);
}

TEST_CASE("sequential: --max-nodes stops early and says so; progress is published") {
  const Tree tree(t1_like(10));
  StopRule stop;
  stop.max_nodes = 5000;
  ProgressBoard board(1);
  const RunResult r = run_sequential(tree, stop, &board);
  CHECK(r.status == RunStatus::max_nodes);
  CHECK(r.counts.nodes >= 5000);
  CHECK(r.counts.nodes < 4130071);
  CHECK(board.total() > 0);
  CHECK(board.total() <= r.counts.nodes);
}

TEST_CASE("run(): the settings choose the engine; truncations are reported") {
  const Tree tree(t1_like(8));
  EngineSettings seq;
  seq.sequential = true;
  EngineSettings par;
  par.threads = 3;
  ProgressBoard one(1), three(3);
  const RunResult a = run(tree, seq, StopRule{}, one);
  const RunResult b = run(tree, par, StopRule{}, three);
  CHECK(a.counts.nodes == b.counts.nodes);
  CHECK(a.counts.checksum == b.counts.checksum);
  CHECK(a.threads.size() == 1);
  CHECK(b.threads.size() == 3);
  TreeParams wide = t1_like(2);  // b0 150: children past the cap of 100
  wide.b0 = 150;
  wide.seed = 4;
  const Tree capped(wide);
  const RunResult c = run(capped, seq, StopRule{}, one);
  CHECK(c.truncations > 0);
}

// A signal in the last stretch before a poll (here: the whole of a tree
// smaller than one poll interval) still came before the run's end.
TEST_CASE("sequential: a signal before the end, even between two polls, makes the run interrupted") {
  const Tree tree(t1_like(4));  // fewer than kPollNodes nodes: no poll in the loop
  interrupt::install();
  interrupt::reset_for_testing();
  std::raise(SIGUSR1);
  const RunResult r = run_sequential(tree, StopRule{});
  interrupt::reset_for_testing();
  CHECK(r.counts.nodes < kPollNodes);
  CHECK(r.status == RunStatus::interrupted);
  CHECK(r.stop_signal == SIGUSR1);
}
