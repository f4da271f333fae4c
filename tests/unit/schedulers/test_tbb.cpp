// schedulers/tbb/: the oneTBB scheduler, both forms, exact against the
// sequential baseline; stops; and a build without oneTBB refusing it.
#include <doctest/doctest.h>

#include <csignal>
#include <stdexcept>

#include "base/interrupt.hpp"
#include "schedulers/tbb/tbb_scheduler.hpp"
#include "traversal/sequential.hpp"
#include "uts_build_config.hpp"

using namespace uts;

#include "schedulers/registry.hpp"

#if !UTS_HAVE_TBB

TEST_CASE("tbb scheduler: a build without oneTBB does not register it") {
  CHECK(find_scheduler("tbb") == nullptr);
}

#else

namespace {

TreeParams geometric_sample() {
  TreeParams p;  // T1's rule at depth 8, seed 1: 111,508 nodes
  p.type = TreeType::geometric;
  p.shape = GeoShape::fixed;
  p.b0 = 4;
  p.depth = 8;
  p.seed = 1;
  return p;
}

TreeParams binomial_small() {
  TreeParams p;  // T3's shape, smaller: 2000 root children, 8 each with probability 0.12
  p.type = TreeType::binomial;
  p.b0 = 2000;
  p.m = 8;
  p.q = 0.12;
  p.seed = 42;
  return p;
}

TreeParams hybrid_small() {
  TreeParams p;
  p.type = TreeType::hybrid;
  p.shape = GeoShape::linear;
  p.b0 = 4;
  p.depth = 9;
  p.q = 0.2;
  p.m = 4;
  p.seed = 7;
  return p;
}

using Form = SchedulerForm;

EngineSettings tbb_settings(int threads, Form form, std::uint32_t grain = tbb_scheduler::kDefaultGrain) {
  EngineSettings s;
  s.threads = threads;
  s.scheduler.name = "tbb";
  s.scheduler.form = form;
  s.scheduler.grain = grain;
  return s;
}

void check_exact(const Tree& tree, const EngineSettings& s) {
  const RunResult want = run_sequential(tree, StopRule{});
  ProgressBoard board(s.threads);
  const RunResult got = run_tbb(tree, s, StopRule{}, board);
  CHECK(got.status == RunStatus::complete);
  CHECK(got.counts.nodes == want.counts.nodes);
  CHECK(got.counts.leaves == want.counts.leaves);
  CHECK(got.counts.max_depth == want.counts.max_depth);
  CHECK(got.counts.checksum == want.counts.checksum);
  REQUIRE(got.threads.size() == static_cast<std::size_t>(s.threads));
  std::uint64_t per_thread = 0;
  for (const ThreadStats& t : got.threads) per_thread += t.nodes;
  CHECK(per_thread == want.counts.nodes);
  CHECK(got.places.size() == static_cast<std::size_t>(s.threads));
  CHECK(got.runtime.rfind("oneTBB ", 0) == 0);
}

}  // namespace

TEST_CASE("tbb scheduler: both forms exact on sample and small trees at 1, 2, 3, 7 and 16 threads") {
  REQUIRE(find_scheduler("tbb") == &kTbbScheduler);
  for (const TreeParams& params : {geometric_sample(), binomial_small(), hybrid_small()}) {
    // The lanes way (cryptopp) and this CPU's own choice (avx512's slots
    // where it has AVX-512).
    for (sha1::Path path : {sha1::Path::automatic, sha1::Path::cryptopp}) {
      const Tree tree(params, path);
      for (int threads : {1, 2, 3, 7, 16}) {
        CAPTURE(static_cast<int>(params.type));
        CAPTURE(static_cast<int>(path));
        CAPTURE(threads);
        check_exact(tree, tbb_settings(threads, Form::literature));
        for (std::uint32_t grain : {1u, 64u, tbb_scheduler::kDefaultGrain}) {
          CAPTURE(grain);
          check_exact(tree, tbb_settings(threads, Form::tuned, grain));
        }
      }
    }
  }
}

TEST_CASE("tbb scheduler: -g 3 gives the same tree, both forms") {
  TreeParams p = geometric_sample();
  p.depth = 6;
  p.granularity = 3;
  const Tree tree(p);
  check_exact(tree, tbb_settings(3, Form::tuned, 16));
  check_exact(tree, tbb_settings(3, Form::literature));
}

TEST_CASE("tbb scheduler: each thread's work fits in the run's time, both forms") {
  const Tree tree(geometric_sample());
  for (auto form : {Form::literature, Form::tuned}) {
    ProgressBoard board(2);
    const RunResult r = run_tbb(tree, tbb_settings(2, form), StopRule{}, board);
    double work = 0;
    for (const ThreadStats& t : r.threads) {
      CHECK(t.time_total == r.seconds);
      CHECK(t.time_phase[static_cast<int>(Phase::work)] <= t.time_total);
      work += t.time_phase[static_cast<int>(Phase::work)];
    }
    CHECK(work > 0);
  }
}

TEST_CASE("tbb scheduler: --max-nodes stops both forms early and says so") {
  TreeParams p = geometric_sample();
  p.depth = 10;  // 4,130,071 nodes
  const Tree tree(p);
  for (auto form : {Form::literature, Form::tuned}) {
    for (int threads : {1, 3}) {
      CAPTURE(threads);
      const EngineSettings s = tbb_settings(threads, form);
      StopRule stop;
      stop.max_nodes = 20000;
      ProgressBoard board(threads);
      const RunResult r = run_tbb(tree, s, stop, board);
      CHECK(r.status == RunStatus::max_nodes);
      CHECK(r.counts.nodes >= 20000);
      CHECK(r.counts.nodes < 4130071);
      CHECK(board.total() > 0);
    }
  }
}

TEST_CASE("tbb scheduler: a signal makes either form stop and report it") {
  interrupt::install();
  for (auto form : {Form::literature, Form::tuned}) {
    interrupt::reset_for_testing();
    std::raise(SIGUSR1);
    TreeParams p = geometric_sample();
    p.depth = 10;
    const Tree tree(p);
    const EngineSettings s = tbb_settings(2, form);
    ProgressBoard board(2);
    const RunResult r = run_tbb(tree, s, StopRule{}, board);
    interrupt::reset_for_testing();
    CHECK(r.status == RunStatus::interrupted);
    CHECK(r.stop_signal == SIGUSR1);
    CHECK(r.counts.nodes < 4130071);
  }
}

#endif
