// The oneTBB scheduler's two forms (tbb_scheduler.hpp), the arena they run
// in, and the observer that places and arms oneTBB's worker threads.
#include "schedulers/tbb/tbb_scheduler.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/task_scheduler_observer.h>
#include <oneapi/tbb/version.h>

#include "base/clock.hpp"
#include "base/interrupt.hpp"
#include "base/tick.hpp"
#include "schedulers/support/large_stack.hpp"
#include "schedulers/support/task_stack.hpp"
#include "schedulers/support/task_tally.hpp"
#include "topology/placement.hpp"
#include "tree/counts.hpp"
#include "tree/expand.hpp"
#include "tree/expand_node.hpp"

namespace uts {

namespace {

// Stack of every thread that runs the traversal: oneTBB's workers (through
// global_control) and the thread that starts it (on_large_stack): the
// literature form recurses once per tree level, and a wait runs other tasks
// on top of its own frames (support/large_stack.hpp says why this size).
constexpr std::size_t kStackBytes = kLargeStackBytes;

// The run: one TaskTally per arena slot (a slot is held by one thread at a
// time, and oneTBB's hand-over of a slot orders one holder's writes before
// the next's), the stop, and the tuned form's tasks.
struct Shared {
  const Tree& tree;
  std::uint64_t grain;
  TaskStop stop;
  std::vector<TaskTally> tallies;
  oneapi::tbb::task_group group;  // the tuned form's tasks, waited for once

  Shared(const Tree& t, std::uint64_t g, const StopRule& rule, ProgressBoard& progress, int threads)
      : tree(t), grain(g), stop(rule, progress), tallies(static_cast<std::size_t>(threads)) {}

  static int slot() { return oneapi::tbb::this_task_arena::current_thread_index(); }
  TaskTally& mine() { return tallies[static_cast<std::size_t>(slot())]; }
  bool poll(TaskTally& me) { return stop.poll(slot(), me); }
  auto keep_going(TaskTally& me) {
    return [this, &me] { return me.counts.nodes < me.next_poll || !poll(me); };
  }
};

// Places each thread as it joins the arena (the plan of --bind, indexed by
// arena slot, as the engine indexes its threads), records where it is, and
// has it watch the run's stop flag (interrupt::watch: -g's long batches poll
// it). The calling thread does the same itself.
class Observer : public oneapi::tbb::task_scheduler_observer {
 public:
  Observer(oneapi::tbb::task_arena& arena, const Placement& placement, const StopFlag& stop, int threads)
      : task_scheduler_observer(arena), placement_(placement), stop_(stop), places_(static_cast<std::size_t>(threads)) {}
  void on_scheduler_entry(bool) override { arrive(); }
  void on_scheduler_exit(bool) override { interrupt::watch(nullptr); }

  void arrive() {
    const int slot = oneapi::tbb::this_task_arena::current_thread_index();
    // Without a plan (bind none), a thread may run on every PU the process
    // may use: oneTBB's threads inherit their creator's mask, and under
    // OMP_PROC_BIND/OMP_PLACES the OpenMP runtime pinned the initial thread
    // to its first place, which would put every worker on that one place.
    if (placement_.plan.empty() && placement_.topology && !placement_.usable.empty())
      bind_calling_thread(*placement_.topology, placement_.usable);
    else
      placement_.bind_again(slot);
    interrupt::watch(stop_.watchable());
    const ThreadPlace place = placement_.sample();
    const std::lock_guard<std::mutex> hold(mutex_);
    if (slot >= 0 && static_cast<std::size_t>(slot) < places_.size()) places_[static_cast<std::size_t>(slot)] = place;
  }
  // After observe(false): no callback runs any more.
  std::vector<ThreadPlace> places() {
    const std::lock_guard<std::mutex> hold(mutex_);
    return places_;
  }

 private:
  const Placement& placement_;
  const StopFlag& stop_;
  std::mutex mutex_;  // a late worker may arrive while another is recorded
  std::vector<ThreadPlace> places_;
};

// ---- literature form -----------------------------------------------------

// A node's inner children, as expand_range()'s sink.
struct Children {
  std::vector<Node> nodes;
  std::size_t size = 0;
  struct Pusher {
    Node* top;
    void push(const Node& node) { *top++ = node; }
  };
  Pusher pusher(std::uint32_t n) {
    if (nodes.size() - size < n) nodes.resize(size + n);
    return {nodes.data() + size};
  }
  void commit(const Pusher& p) { size = static_cast<std::size_t>(p.top - nodes.data()); }
};

void literature(Shared& sh, const Node& parent) {
  TaskTally& me = sh.mine();
  if (sh.stop.stopped()) {
    me.cut = true;
    return;
  }
  Children kids;
  const std::uint64_t t0 = tick::now();
  const bool whole = expand_range(sh.tree, parent, 0, parent.children, me.counts, kids, sh.keep_going(me));
  me.work_ticks += tick::now() - t0;
  if (!whole) {
    me.cut = true;
    return;
  }
  // Stopped after a whole expansion: only inner children are left undone
  // (a node without any ended its subtree: the run is not cut by it).
  if (me.counts.nodes >= me.next_poll && sh.poll(me)) {
    if (kids.size > 0) me.cut = true;
    return;
  }
  if (kids.size == 0) return;
  oneapi::tbb::task_group group;
  me.tasks += kids.size - 1;
  for (std::size_t i = 0; i + 1 < kids.size; ++i) {
    group.run([&sh, child = kids.nodes[i]] { literature(sh, child); });
  }
  literature(sh, kids.nodes[kids.size - 1]);
  group.wait();
}

// ---- tuned form ----------------------------------------------------------

// A task expands its own stack (support/task_stack.hpp) depth-first and
// hands off the bottom half of it.
void tuned(Shared& sh, std::vector<NodeWords> start);

// A new task for these nodes. oneTBB keeps the functor const: the nodes go
// through a pointer the task moves them out of.
void hand_off(Shared& sh, TaskTally& me, std::vector<NodeWords> nodes) {
  ++me.tasks;
  auto box = std::make_unique<std::vector<NodeWords>>(std::move(nodes));
  sh.group.run([&sh, box = std::move(box)] { tuned(sh, std::move(*box)); });
}

void tuned(Shared& sh, std::vector<NodeWords> start) {
  TaskTally& me = sh.mine();
  if (sh.stop.stopped()) {
    me.cut = true;
    return;
  }
  TaskStack stack(std::move(start));
  std::uint64_t next_hand_off = me.counts.nodes + sh.grain;
  auto keep_going = sh.keep_going(me);
  auto refill = [&](Node& parent) __attribute__((always_inline)) { return stack.pop(parent); };
  Expander ways(sh.tree);
  Node node;
  // The work: everything but the hand-offs (a task's creation and queueing).
  std::uint64_t segment = tick::now();
  auto loop = [&](auto way) __attribute__((always_inline)) {
    auto& expander = ways.as<decltype(way)::value>();
    for (;;) {
      if (!stack.pop(node)) {
        if (!expander.flush(sh.tree, me.counts, stack)) break;  // this task's nodes all visited
      } else {
        expander.add(sh.tree, node, me.counts, stack, keep_going, refill);
      }
      if (expander.abandoned()) {  // a huge node or a -g batch given up: the run stops
        sh.poll(me);
        me.cut = true;
        break;
      }
      if (me.counts.nodes >= next_hand_off) {
        next_hand_off = me.counts.nodes + sh.grain;
        if (stack.size() >= 2) {
          const std::uint64_t t = tick::now();
          me.work_ticks += t - segment;
          hand_off(sh, me, stack.take_bottom(stack.size() / 2));
          segment = tick::now();
        }
      }
      if (me.counts.nodes >= me.next_poll && sh.poll(me)) {
        me.cut = me.cut || stack.size() != 0 || expander.pending();
        break;
      }
    }
  };
  using Way = Expander::Way;
  switch (ways.way()) {
    case Way::lanes: loop(std::integral_constant<Way, Way::lanes>{}); break;
    case Way::slots: loop(std::integral_constant<Way, Way::slots>{}); break;
    case Way::slots_visit_in_kernel: loop(std::integral_constant<Way, Way::slots_visit_in_kernel>{}); break;
  }
  me.work_ticks += tick::now() - segment;
}

}  // namespace

RunResult run_tbb(const Tree& tree, const EngineSettings& settings, const StopRule& stop_rule,
                  ProgressBoard& progress) {
  const int threads = settings.threads;
  if (threads < 1) throw std::runtime_error("--threads: at least one thread");
  const bool literature_form = settings.scheduler.form == SchedulerForm::literature;
  const std::uint32_t grain = settings.scheduler.grain != 0 ? settings.scheduler.grain : tbb_scheduler::kDefaultGrain;
  Shared sh(tree, grain, stop_rule, progress, threads);

  // The plan of --bind, by arena slot (OMP_PLACES and OMP_PROC_BIND place
  // OpenMP's threads, not oneTBB's: the command line records bind none for
  // tbb when only they are set).
  Placement placement = prepare_placement();
  if (placement.topology && placement.topology->loaded())
    placement.plan =
        plan_placement(*placement.topology, settings.bind.policy, settings.bind.smt, threads, placement.usable);

  // As many threads as asked, even past the machine's PUs (oneTBB's default
  // ceiling), and their stacks.
  oneapi::tbb::global_control parallelism(oneapi::tbb::global_control::max_allowed_parallelism,
                                          static_cast<std::size_t>(threads));
  oneapi::tbb::global_control stack_size(oneapi::tbb::global_control::thread_stack_size, kStackBytes);
  oneapi::tbb::task_arena arena(threads);
  arena.initialize();
  if (arena.max_concurrency() != threads)
    throw std::runtime_error("--threads " + std::to_string(threads) + ": oneTBB granted an arena of " +
                             std::to_string(arena.max_concurrency()));
  Observer observer(arena, placement, sh.stop.flag(), threads);
  observer.observe(true);

  RunResult out;
  tick::Span span;
  auto traverse = [&] {
    arena.execute([&] {
      // The calling thread's entry is observed too; arrive() again is
      // harmless, and covers a thread already in the arena.
      observer.arrive();
      const auto start = Clock::now();
      span.begin();
      TaskTally& me = sh.mine();
      const Node root = tree.root();
      if (visit(root, me.counts)) {
        ++me.tasks;
        if (literature_form) {
          // Every task in this arena is this traversal's: a wait that takes
          // another task takes the same tree's work, so no isolation.
          literature(sh, root);
        } else {
          std::vector<NodeWords> first{NodeWords::pack(root)};
          sh.group.run([&sh, &first] { tuned(sh, std::move(first)); });
          sh.group.wait();
        }
      }
      out.seconds = seconds_since(start);
      span.end();
      interrupt::watch(nullptr);
    });
  };
  on_large_stack(traverse, kStackBytes);
  observer.observe(false);

  // oneTBB's workers leave no mark at the run's end: every slot's time is
  // the run's, its work what its tasks spent in the traversal's own code.
  const double tps = span.ticks_per_second();
  out.threads.resize(static_cast<std::size_t>(threads));
  bool cut = false;
  for (std::size_t i = 0; i < sh.tallies.size(); ++i) {
    const TaskTally& t = sh.tallies[i];
    out.counts.merge(t.counts);
    progress.publish(static_cast<int>(i), t.counts.nodes);
    ThreadStats& st = out.threads[i];
    st.nodes = t.counts.nodes;
    st.tasks = t.tasks;
    st.time_phase[static_cast<int>(Phase::work)] = std::min(double(t.work_ticks) / tps, out.seconds);
    st.time_total = out.seconds;
    cut = cut || t.cut;
  }
  // Partial when a task left work undone; a signal's stop is never excused
  // (as in the engine: it came before the run's end).
  if (cut || sh.stop.flag().signal() != 0) {
    out.status = sh.stop.flag().reason();
    out.stop_signal = sh.stop.flag().signal();
  }
  if (out.status == RunStatus::complete && interrupt::requested()) {
    out.status = RunStatus::interrupted;
    out.stop_signal = interrupt::signal_number();
  }
  out.ticks_per_second = tps;
  out.places = observer.places();
  out.rank_places = {placement.rank_place()};
  out.topology = placement.summary();
  out.truncations = tree.truncations();
  out.runtime = tbb_runtime();
  return out;
}

std::string tbb_runtime() { return std::string("oneTBB ") + TBB_runtime_version(); }

const SchedulerEntry kTbbScheduler{
    "tbb", "oneTBB's task scheduler: --scheduler-form literature|tuned, --task-grain", run_tbb, tbb_runtime,
    /*has_forms=*/true, /*default_grain=*/tbb_scheduler::kDefaultGrain, /*reports_time_split=*/true,
    /*openmp_threads=*/false, /*reads_counters=*/false};

}  // namespace uts
