#include "parallel/engine.hpp"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

#include "parallel/backoff.hpp"
#include "parallel/split_deque.hpp"
#include "parallel/termination.hpp"
#include "parallel/victim.hpp"
#include "util/clock.hpp"
#include "util/interrupt.hpp"

namespace uts {

namespace {

constexpr unsigned kPollMask = 255;  // stop checks and progress every 256 expansions

// Per-thread state, allocated and first written by its owner.
struct Worker {
  SplitDeque deque;
  // Thieves read it to decide whether asking for a share makes sense.
  struct alignas(kCacheLine) {
    std::atomic<bool> value{true};
  } has_work;
  // Owner-private from here on.
  alignas(kCacheLine) Counts counts;
  ThreadStats stats;
};

// Why the run stopped early; shared, written at most a few times.
class StopFlag {
 public:
  // relaxed: a request to stop carries no data; threads poll it.
  void raise(RunStatus why) {
    int expected = 0;
    reason_.value.compare_exchange_strong(expected, static_cast<int>(why), std::memory_order_relaxed);
  }
  bool raised() const { return reason_.value.load(std::memory_order_relaxed) != 0; }
  RunStatus reason() const {
    const int r = reason_.value.load(std::memory_order_relaxed);
    return r == 0 ? RunStatus::complete : static_cast<RunStatus>(r);
  }

 private:
  static_assert(static_cast<int>(RunStatus::complete) == 0);
  struct alignas(kCacheLine) {
    std::atomic<int> value{0};
  } reason_;
};

class ThreadRun {
 public:
  ThreadRun(int id, int threads, const Tree& tree, const EngineSettings& settings, const StopRule& stop,
            std::vector<Worker*>& workers, Termination& termination, ManberTree& manber, StopFlag& stop_flag,
            ProgressBoard& progress)
      : id_(id),
        tree_(tree),
        settings_(settings),
        stop_(stop),
        workers_(workers),
        self_(*workers[static_cast<std::size_t>(id)]),
        termination_(termination),
        stop_flag_(stop_flag),
        progress_(progress),
        victims_(settings.victim, id, threads, &manber, static_cast<std::uint64_t>(id) + 1) {}

  void seed_work(int threads) {
    const Node root = tree_.root();
    if (settings_.init == InitSpread::root || threads == 1) {
      if (id_ == 0 && visit(root, self_.counts)) self_.deque.push(root);
      return;
    }
    // Balanced: contiguous blocks of the root's children, sizes differing by
    // at most one (the first k mod P threads get one more).
    if (id_ == 0) visit(root, self_.counts);
    const std::uint32_t k = root.children;
    const auto p = static_cast<std::uint32_t>(threads);
    const auto t = static_cast<std::uint32_t>(id_);
    const std::uint32_t base = k / p, extra = k % p;
    const std::uint32_t first = t * base + (t < extra ? t : extra);
    const std::uint32_t count = base + (t < extra ? 1 : 0);
    expand_range(tree_, root, first, first + count, self_.counts,
                 [&](const Node& child) { self_.deque.push(child); });
  }

  void run() {
    for (;;) {
      work();
      if (!find_work()) return;
    }
  }

 private:
  void work() {
    Node node;
    SplitDeque& deque = self_.deque;
    while (deque.pop(node)) {
      expand(tree_, node, self_.counts, [&](const Node& child) { deque.push(child); });
      if (deque.share_requested()) deque.share();
      if ((++polls_ & kPollMask) == 0 && poll_stop()) return;
    }
  }

  // Publishes progress; true when the run must stop now.
  bool poll_stop() {
    progress_.publish(id_, self_.counts.nodes);
    if (interrupt::requested()) stop_flag_.raise(RunStatus::interrupted);
    if (stop_.max_nodes != 0 && progress_.total() >= stop_.max_nodes) stop_flag_.raise(RunStatus::max_nodes);
    return stop_flag_.raised();
  }

  // Idle until a steal succeeds (true) or the run is over (false).
  bool find_work() {
    progress_.publish(id_, self_.counts.nodes);
    if (stop_flag_.raised()) return false;
    // relaxed: a hint for thieves deciding whether to request a share.
    self_.has_work.value.store(false, std::memory_order_relaxed);
    termination_.idle();
    const auto idle_start = std::chrono::steady_clock::now();
    victims_.begin_search();
    Backoff backoff;
    bool found = false;
    std::uint32_t idle_polls = 0;
    while (!termination_.finished()) {
      if ((++idle_polls & 63) == 0 && (interrupt::requested() || stop_flag_.raised())) {
        if (interrupt::requested()) stop_flag_.raise(RunStatus::interrupted);
        break;
      }
      const int v = victims_.next();
      if (v < 0) {
        backoff.pause();
        continue;
      }
      ++self_.stats.deques_examined;
      Worker& victim = *workers_[static_cast<std::size_t>(v)];
      if (settings_.steal.claim_size(victim.deque.shared_size()) > 0) {
        termination_.busy();  // before the claim can succeed
        ++self_.stats.steal_attempts;
        const std::uint32_t got =
            victim.deque.steal(settings_.steal, [&](const Node& n) { self_.deque.push(n); });
        if (got > 0) {
          ++self_.stats.steals;
          self_.stats.nodes_stolen += got;
          victims_.found_work(v);
          found = true;
          break;
        }
        termination_.idle();
      } else if (victim.has_work.value.load(std::memory_order_relaxed)) {  // relaxed: a hint
        victim.deque.request_share();
      }
      victims_.missed();
      backoff.pause();
    }
    self_.stats.idle_seconds += seconds_since(idle_start);
    if (found) self_.has_work.value.store(true, std::memory_order_relaxed);  // relaxed: a hint
    return found;
  }

  int id_;
  const Tree& tree_;
  const EngineSettings& settings_;
  const StopRule& stop_;
  std::vector<Worker*>& workers_;
  Worker& self_;
  Termination& termination_;
  StopFlag& stop_flag_;
  ProgressBoard& progress_;
  VictimSelector victims_;
  unsigned polls_ = 0;
};

}  // namespace

RunResult run_parallel(const Tree& tree, const EngineSettings& settings, const StopRule& stop,
                             ProgressBoard& progress) {
  const int threads = settings.threads;
  // Checked up front: libomp would print its own warning and shrink the team.
  if (threads > omp_get_thread_limit())
    throw std::runtime_error("--threads " + std::to_string(threads) + ": OpenMP allows only " +
                             std::to_string(omp_get_thread_limit()) + " threads (check OMP_THREAD_LIMIT)");
  std::vector<Worker*> workers(static_cast<std::size_t>(threads), nullptr);
  Termination termination(threads);
  ManberTree manber(threads);
  StopFlag stop_flag;
  RunResult out;
  out.threads.resize(static_cast<std::size_t>(threads));
  std::chrono::steady_clock::time_point start;
  int granted = threads;

  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
#pragma omp single
    granted = omp_get_num_threads();
    // Each worker is allocated and first touched by its own thread.
    auto* me = new Worker;
    workers[static_cast<std::size_t>(id)] = me;
#pragma omp barrier
    if (granted == threads) {
#pragma omp single
      start = std::chrono::steady_clock::now();
      ThreadRun run(id, threads, tree, settings, stop, workers, termination, manber, stop_flag, progress);
      run.seed_work(threads);
#pragma omp barrier
      run.run();
      me->stats.nodes = me->counts.nodes;
    }
#pragma omp barrier
#pragma omp single
    out.seconds = seconds_since(start);
    out.threads[static_cast<std::size_t>(id)] = me->stats;
#pragma omp critical(uts_merge_counts)
    out.counts.merge(me->counts);
#pragma omp barrier
    delete me;
  }
  if (granted != threads)
    throw std::runtime_error("--threads " + std::to_string(threads) + ": OpenMP granted only " +
                             std::to_string(granted) + " threads (check OMP_THREAD_LIMIT)");
  out.status = stop_flag.reason();
  return out;
}

}  // namespace uts
