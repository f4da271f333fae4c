// The omp-task scheduler (docs/schedulers.md): the same tree code, hash path
// and -g as the engine, with OpenMP's own task scheduler deciding which
// thread runs what. Counts go to the running thread's TaskTally; a task reads
// its thread's index again after every task scheduling point (task
// creation, taskwait), where an untied task may resume on another thread.
#include "schedulers/omp_task/omp_task.hpp"

#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "base/clock.hpp"
#include "base/interrupt.hpp"
#include "base/tick.hpp"
#include "schedulers/support/large_stack.hpp"
#include "schedulers/support/task_stack.hpp"
#include "schedulers/support/task_tally.hpp"
#include "topology/counters.hpp"
#include "topology/placement.hpp"
#include "tree/expand.hpp"

namespace uts {

namespace {

// Everything a task reads; lives on the frame of run_team, which waits
// for every task at its parallel region's end.
struct Run {
  const Tree& tree;
  TaskStop& stop;
  std::vector<TaskTally>& tallies;
  std::uint32_t grain;
  // Spare expanders per thread (tuned form): a task takes one at its start
  // and gives it back at its end, so a task run inside another's task
  // creation (undeferred) never shares the queued children of its parent's.
  std::vector<std::vector<std::unique_ptr<Expander>>>& spares;

  TaskTally& mine() { return tallies[static_cast<std::size_t>(omp_get_thread_num())]; }
};

// --- literature form ---------------------------------------------------
// As BOTS writes UTS: the task hashes its node's children (a batch of 16
// at a time, as expand_range does), visits each, and creates one untied
// task per inner child, then waits for them all.
void literature(Run& run, Node parent);

// One untied task for `child`. A function of its own, never inlined: the
// copy of r and child into the new task is its only code, and the name the
// ThreadSanitizer suppression of libomp's task-memory reuse matches as the
// top frame (tests/tsan.supp, docs/schedulers.md).
[[gnu::noinline]] void spawn_literature(Run* r, Node child) {
#pragma omp task untied firstprivate(r, child)
  literature(*r, child);
}

void literature(Run& run, Node parent) {
  constexpr std::uint32_t kBatch = 16;
  sha1::Words ids[kBatch];
  Node inner[kBatch];
  const std::uint32_t height = parent.height + 1;
  for (std::uint32_t i = 0; i < parent.children; i += kBatch) {
    TaskTally& me = run.mine();  // again each batch: the task may have moved
    if (run.stop.stopped()) {
      me.cut = true;
      break;
    }
    const std::uint32_t n = std::min(kBatch, parent.children - i);
    const std::uint64_t t0 = tick::now();
    if (!run.tree.child_ids(parent.id, i, n, ids)) {  // -g hashing abandoned: a stop was asked
      me.cut = true;
      break;
    }
    std::uint32_t k = 0;
    for (std::uint32_t j = 0; j < n; ++j) {
      Node child;
      child.id = ids[j];
      child.height = height;
      child.children = static_cast<std::uint32_t>(run.tree.num_children(child.id[4], height));
      if (visit(child, me.counts)) inner[k++] = child;
    }
    me.work_ticks += tick::now() - t0;
    if (me.counts.nodes >= me.next_poll && run.stop.poll(omp_get_thread_num(), me)) {
      me.cut = me.cut || k != 0 || i + n < parent.children;
      break;
    }
    me.tasks += k;
    for (std::uint32_t j = 0; j < k; ++j) spawn_literature(&run, inner[j]);
  }
#pragma omp taskwait
}

// --- tuned form --------------------------------------------------------
// A task owns a stack of packed nodes and expands it depth-first through
// the batched expander, exactly as the sequential baseline does; every
// `grain` nodes its thread generates, it hands the shallow half of its
// stack (the bottom: the biggest subtrees) to a new task. Tasks are tied:
// a task stays on the thread whose expander and tally it uses.
void tuned(Run& run, std::vector<NodeWords>* given);

// Never inlined, as spawn_literature and for the same suppression.
[[gnu::noinline]] void spawn_tuned(Run& run, std::vector<NodeWords>&& nodes) {
  auto* given = new std::vector<NodeWords>(std::move(nodes));
  Run* r = &run;
#pragma omp task firstprivate(r, given)
  tuned(*r, given);
}

void tuned(Run& run, std::vector<NodeWords>* given) {
  const int tid = omp_get_thread_num();  // tied: this task stays on this thread
  TaskTally& me = run.tallies[static_cast<std::size_t>(tid)];
  TaskStack stack(std::move(*given));
  delete given;
  // A task started after the stop leaves its nodes at once: tasks queued
  // before it would each expand up to a poll's worth more otherwise.
  if (run.stop.stopped()) {
    me.cut = me.cut || stack.size() != 0;
    return;
  }
  auto& spare = run.spares[static_cast<std::size_t>(tid)];
  std::unique_ptr<Expander> ways;
  if (spare.empty()) {
    ways = std::make_unique<Expander>(run.tree);
  } else {
    ways = std::move(spare.back());
    spare.pop_back();
  }
  std::uint64_t segment = tick::now();
  std::uint64_t next_split = me.counts.nodes + run.grain;
  auto keep_going = [&] { return !run.stop.poll(tid, me); };
  auto refill = [&](Node& parent) __attribute__((always_inline)) { return stack.pop(parent); };
  Node node;
  auto loop = [&](auto way) __attribute__((always_inline)) {
    auto& expander = ways->as<decltype(way)::value>();
    for (;;) {
      if (!stack.pop(node)) {
        if (!expander.flush(run.tree, me.counts, stack)) return;  // this task's nodes all visited
      } else {
        expander.add(run.tree, node, me.counts, stack, keep_going, refill);
      }
      if (expander.abandoned()) {  // a huge node or a -g batch given up: a stop
        run.stop.poll(tid, me);
        me.cut = true;
        return;
      }
      if (me.counts.nodes >= me.next_poll && run.stop.poll(tid, me)) {
        me.cut = me.cut || stack.size() != 0 || expander.pending();
        return;
      }
      if (me.counts.nodes >= next_split && stack.size() >= 2) {
        me.work_ticks += tick::now() - segment;
        ++me.tasks;
        spawn_tuned(run, stack.take_bottom(stack.size() / 2));
        segment = tick::now();
        next_split = me.counts.nodes + run.grain;
        // The new task may have run here, undeferred (a team of one, or
        // libgomp's cut-off), and polled: its poll moved this thread's
        // next poll on, so the stop it saw is looked at now.
        if (run.stop.stopped()) {
          me.cut = true;
          return;
        }
      }
    }
  };
  using Way = Expander::Way;
  switch (ways->way()) {
    case Way::lanes: loop(std::integral_constant<Way, Way::lanes>{}); break;
    case Way::slots: loop(std::integral_constant<Way, Way::slots>{}); break;
    case Way::slots_visit_in_kernel: loop(std::integral_constant<Way, Way::slots_visit_in_kernel>{}); break;
  }
  me.work_ticks += tick::now() - segment;
  // A stopped task's expander may hold queued children: not reused.
  if (!me.cut) spare.push_back(std::move(ways));
}

}  // namespace

std::string openmp_runtime() {
  Dl_info info{};
  // The shared object that defines the OpenMP entry points this process calls.
  if (dladdr(reinterpret_cast<void*>(&omp_get_num_threads), &info) != 0 && info.dli_fname) {
    const std::string file = info.dli_fname;
    const std::string base = file.substr(file.find_last_of('/') + 1);
    if (base.rfind("libgomp", 0) == 0) return "libgomp";
    if (base.rfind("libomp", 0) == 0) return "libomp";
    if (base.rfind("libiomp", 0) == 0) return "libiomp";
  }
  return "OpenMP";
}

namespace {

// The OpenMP workers of a team created while one lives get a
// kLargeStackBytes stack, unless the user chose their size
// (OMP_STACKSIZE, or the runtime's own GOMP_STACKSIZE / KMP_STACKSIZE).
// - libgomp passes pthread_create attributes whose size is unset when
//   OMP_STACKSIZE is, so glibc's default applies: raised here, restored
//   after (pthread_setattr_default_np).
// - libomp sets each worker's size itself, from OMP_STACKSIZE read at its
//   start (kmp_set_stacksize_s is ignored after its first parallel region,
//   which main has run); kmp_set_defaults("OMP_STACKSIZE=...") still sets
//   the size of the workers it creates from then on. It stays for the
//   process: reserved address space only.
// Only a new team's workers: the team of the thread that runs the
// traversal (on_large_stack), whose threads libgomp and libomp create for it.
class LargeWorkerStacks {
 public:
  LargeWorkerStacks() {
    for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE", "KMP_STACKSIZE"}) {
      const char* v = std::getenv(name);
      if (v && *v) return;
    }
    const std::string runtime = openmp_runtime();
    if (runtime == "libgomp") {
      pthread_attr_t attr;
      if (pthread_getattr_default_np(&attr) != 0) return;
      std::size_t size = 0;
      if (pthread_attr_getstacksize(&attr, &size) == 0 && size < kLargeStackBytes &&
          pthread_attr_setstacksize(&attr, kLargeStackBytes) == 0 && pthread_setattr_default_np(&attr) == 0)
        restore_ = size;
      pthread_attr_destroy(&attr);
    } else if (runtime == "libomp" || runtime == "libiomp") {
      // Looked up: GCC's omp.h does not declare it, libgomp has none.
      using SetDefaults = void (*)(const char*);
      if (auto set = reinterpret_cast<SetDefaults>(dlsym(RTLD_DEFAULT, "kmp_set_defaults")))
        set(("OMP_STACKSIZE=" + std::to_string(kLargeStackBytes >> 20) + "M").c_str());
    }
  }
  ~LargeWorkerStacks() {
    if (restore_ == 0) return;
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) != 0) return;
    if (pthread_attr_setstacksize(&attr, restore_) == 0) pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);
  }
  LargeWorkerStacks(const LargeWorkerStacks&) = delete;
  LargeWorkerStacks& operator=(const LargeWorkerStacks&) = delete;

 private:
  std::size_t restore_ = 0;  // glibc's default stack size before, when raised
};

RunResult run_team(const Tree& tree, const EngineSettings& settings, const StopRule& stop_rule,
                   ProgressBoard& progress) {
  const int threads = settings.threads;
  if (threads > omp_get_thread_limit())
    throw std::runtime_error("--threads " + std::to_string(threads) + ": OpenMP allows only " +
                             std::to_string(omp_get_thread_limit()) +
                             (omp_get_thread_limit() == 1 ? " thread" : " threads") + " (check OMP_THREAD_LIMIT)");
  const auto nthreads = static_cast<std::size_t>(threads);
  const bool literature_form = settings.scheduler.form == SchedulerForm::literature;
  const Placement placement = place_team(settings.bind, threads);
  TaskStop stop(stop_rule, progress);
  std::vector<TaskTally> tallies(nthreads);
  std::vector<std::vector<std::unique_ptr<Expander>>> spares(nthreads);
  Run run{tree, stop, tallies, settings.scheduler.grain, spares};
  RunResult out;
  out.threads.resize(nthreads);
  out.places.resize(nthreads);
  std::vector<std::uint64_t> region_ticks(nthreads, 0);
  std::vector<std::vector<std::int64_t>> counter_values(nthreads);
  std::atomic<int> counters_scaled{0};
  tick::Span span;
  Clock::time_point start;
  int granted = threads;

  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
#pragma omp single
    granted = omp_get_num_threads();
    placement.bind_again(id);
    interrupt::watch(stop.flag().watchable());
    ThreadCounters counters;  // --counters: opened by this thread, read around the run
    counters.open(settings.counters);
#pragma omp barrier
    if (granted == threads) {
#pragma omp single
      {
        start = Clock::now();
        span.begin();
      }
      counters.start();
      // Every thread's time counts from the run's start (span's first
      // tick), not from a reading of its own here: libgomp lets a thread
      // still leaving the barrier above run the first tasks inside it.
#pragma omp single nowait
      {
        TaskTally& me = tallies[static_cast<std::size_t>(id)];
        const Node root = tree.root();
        if (visit(root, me.counts)) {
          ++me.tasks;
          if (literature_form) {
            spawn_literature(&run, root);
          } else {
            spawn_tuned(run, std::vector<NodeWords>{NodeWords::pack(root)});
          }
        }
      }
      // Every task is done at this barrier (a task scheduling point where
      // the team runs the tasks left).
#pragma omp barrier
      region_ticks[static_cast<std::size_t>(id)] = tick::now() - span.first_tick();
      counters.stop();
#pragma omp single
      {
        out.seconds = seconds_since(start);
        span.end();
      }
    }
    interrupt::watch(nullptr);
    bool scaled = false;
    std::vector<std::int64_t> v;
    for (const auto& c : counters.values(scaled)) v.push_back(c ? static_cast<std::int64_t>(*c) : -1);
    counter_values[static_cast<std::size_t>(id)] = std::move(v);
    if (scaled) counters_scaled.store(1, std::memory_order_relaxed);  // relaxed: read after the region
    out.places[static_cast<std::size_t>(id)] = placement.sample();
  }
  if (granted != threads)
    throw std::runtime_error("--threads " + std::to_string(threads) + ": OpenMP granted only " +
                             std::to_string(granted) + " threads (check OMP_THREAD_LIMIT)");
  const double tps = span.ticks_per_second();
  bool cut = false;
  for (std::size_t i = 0; i < nthreads; ++i) {
    const TaskTally& t = tallies[i];
    out.counts.merge(t.counts);
    progress.publish(static_cast<int>(i), t.counts.nodes);
    ThreadStats& st = out.threads[i];
    st.nodes = t.counts.nodes;
    st.tasks = t.tasks;
    st.time_phase[static_cast<int>(Phase::work)] = double(t.work_ticks) / tps;
    st.time_total = double(region_ticks[i]) / tps;
    cut = cut || t.cut;
  }
  // Partial when a task left work undone; a signal's stop is never excused
  // (as in the engine: it came before the run's end).
  if (cut || stop.flag().signal() != 0) {
    out.status = stop.flag().reason();
    out.stop_signal = stop.flag().signal();
  }
  if (out.status == RunStatus::complete && interrupt::requested()) {
    out.status = RunStatus::interrupted;
    out.stop_signal = interrupt::signal_number();
  }
  out.ticks_per_second = tps;
  out.rank_places = {placement.rank_place()};
  out.topology = placement.summary();
  out.runtime = openmp_runtime();
  for (const CounterRequest& c : settings.counters) out.counters.names.push_back(c.name);
  if (!settings.counters.empty()) out.counters.per_thread = std::move(counter_values);
  out.counters.scaled = counters_scaled.load(std::memory_order_relaxed);  // relaxed: read after the region
  return out;
}

std::string omp_task_runtime() { return openmp_runtime(); }

}  // namespace

// The literature form recurses once per tree level (T3L: 17,844), on every
// thread of the team: its team is a new one, started from a thread with a
// large stack, whose workers the runtime creates with large stacks too
// (docs/schedulers.md, "Deep trees"). The tuned form keeps the tree on heap
// stacks and runs on the team main created.
RunResult run_omp_task(const Tree& tree, const EngineSettings& settings, const StopRule& stop_rule,
                       ProgressBoard& progress) {
  if (settings.scheduler.form != SchedulerForm::literature) return run_team(tree, settings, stop_rule, progress);
  const LargeWorkerStacks stacks;
  RunResult out;
  auto traverse = [&] { out = run_team(tree, settings, stop_rule, progress); };
  on_large_stack(traverse);
  return out;
}

// The default grain: see docs/schedulers.md, "Choosing the grain".
const SchedulerEntry kOmpTaskScheduler{
    "omp-task", "OpenMP tasks (libgomp or libomp): --scheduler-form literature|tuned, --task-grain", run_omp_task,
    omp_task_runtime, /*has_forms=*/true, /*default_grain=*/4096, /*reports_time_split=*/true};

}  // namespace uts
