// engine/: the worker loop on real trees, every registered protocol, and its
// seam to other ranks (engine/remote_link.hpp) driven by a loopback link that
// plays a second rank: it takes thread 0's shallowest nodes while thread 0
// works (LinkHost::give, the protocols' give_shallowest) and hands them back
// when thread 0 is idle. The tree must come out exact either way.
#include <doctest/doctest.h>

#include <csignal>
#include <string>
#include <vector>

#include "base/interrupt.hpp"
#include "engine/engine.hpp"
#include "steal/registry.hpp"
#include "traversal/sequential.hpp"

using namespace uts;

namespace {

class LoopbackLink final : public RemoteLink {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 2; }
  std::uint32_t poll_busy(LinkHost& host) override {
    if (held_.empty() && !host.stop_raised()) given_ += host.give(64, held_);
    return 16;
  }
  bool poll_idle(LinkHost& host, bool) override {
    if (!held_.empty()) {  // the "other rank" answers with the nodes it held
      host.take(held_.data(), held_.size());
      returned_ += held_.size();
      held_.clear();
      return true;
    }
    if (host.quiescent()) host.finish();  // nothing held anywhere: the job is over
    return false;
  }
  void close(LinkHost&) override { closed_ = true; }
  RankStats stats() const override { return {}; }

  std::uint64_t given_ = 0, returned_ = 0;
  bool closed_ = false;

 private:
  std::vector<Node> held_;
};

EngineSettings settings_for(const ProtocolTraits& p, int threads) {
  EngineSettings s;
  s.protocol = std::string(p.name);
  s.steal = p.default_steal;
  s.victim = p.default_victim;
  s.threads = threads;
  return s;
}

TreeParams small_tree() {
  TreeParams p;
  p.type = TreeType::geometric;
  p.shape = GeoShape::fixed;
  p.b0 = 4;
  p.depth = 8;
  p.seed = 1;  // 111,508 nodes
  return p;
}

}  // namespace

TEST_CASE("run_parallel: exact for every protocol at 1, 2 and 5 threads") {
  const Tree tree(small_tree());
  const RunResult want = run_sequential(tree, StopRule{});
  REQUIRE(want.counts.nodes > 10000);
  for (const ProtocolTraits* p : all_protocols()) {
    for (int threads : {1, 2, 5}) {
      CAPTURE(std::string(p->name));
      CAPTURE(threads);
      const EngineSettings s = settings_for(*p, threads);
      ProgressBoard board(threads);
      const RunResult got = run_parallel(tree, s, StopRule{}, board);
      CHECK(got.status == RunStatus::complete);
      CHECK(got.counts.nodes == want.counts.nodes);
      CHECK(got.counts.checksum == want.counts.checksum);
      std::uint64_t per_thread = 0;
      for (const ThreadStats& t : got.threads) per_thread += t.nodes;
      CHECK(per_thread == want.counts.nodes);
    }
  }
}

TEST_CASE("the rank seam: thread 0 gives nodes away by either split and gets them back, exact") {
  const Tree tree(small_tree());
  const RunResult want = run_sequential(tree, StopRule{});
  for (const ProtocolTraits* p : all_protocols()) {
    for (const RankSplit split : {RankSplit::levels, RankSplit::shallowest})
    for (int threads : {1, 3}) {
      CAPTURE(std::string(p->name));
      CAPTURE(to_string(split));
      CAPTURE(threads);
      EngineSettings s = settings_for(*p, threads);
      s.ranks.poll = 16;
      s.ranks.split = split;
      ProgressBoard board(threads);
      LoopbackLink link;
      const RunResult got = run_parallel(tree, s, StopRule{}, board, &link);
      CHECK(got.status == RunStatus::complete);
      CHECK(got.counts.nodes == want.counts.nodes);
      CHECK(got.counts.leaves == want.counts.leaves);
      CHECK(got.counts.checksum == want.counts.checksum);
      // Alone, thread 0 always has nodes to give at its polls: the seam was
      // really used. With thieves its deque may be near empty at every poll.
      if (threads == 1) CHECK(link.given_ > 0);
      CHECK(link.returned_ == link.given_);
      CHECK(link.closed_);
    }
  }
}

// A signal that comes after every thread's last poll (here: before the run,
// on a tree smaller than one poll interval, so no thread polls) still came
// before the end. With -s 0 the threads used to leave one by one without an
// end, and the run was called complete with the signal forgotten; with
// stealing the end (termination.hpp) reads it. Both must say interrupted.
TEST_CASE("run_parallel: a signal before the end makes the run interrupted, with or without stealing") {
  TreeParams p = small_tree();
  p.depth = 4;  // 341 nodes: fewer than one poll interval
  const Tree tree(p);
  for (const bool stealing : {true, false}) {
    for (int threads : {1, 3}) {
      CAPTURE(stealing);
      CAPTURE(threads);
      EngineSettings s = settings_for(*all_protocols().front(), threads);
      s.stealing = stealing;
      ProgressBoard board(threads);
      interrupt::install();
      interrupt::reset_for_testing();
      std::raise(SIGUSR1);  // handled on this thread before raise() returns
      const RunResult got = run_parallel(tree, s, StopRule{}, board);
      interrupt::reset_for_testing();
      CHECK(got.counts.nodes < kPollNodes);
      CHECK(got.status == RunStatus::interrupted);
      CHECK(got.stop_signal == SIGUSR1);
    }
  }
}
