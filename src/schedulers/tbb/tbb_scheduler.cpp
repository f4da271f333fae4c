// The oneTBB scheduler's two forms (tbb_scheduler.hpp), the arena they run
// in, and the observer that places and arms oneTBB's worker threads.
#include "schedulers/tbb/tbb_scheduler.hpp"

#include <stdexcept>

#include "uts_build_config.hpp"

#if UTS_HAVE_TBB
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include "base/cache_line.hpp"
#include "base/clock.hpp"
#include "base/interrupt.hpp"
#include "engine/stop_flag.hpp"
#include "topology/placement.hpp"
#include "tree/counts.hpp"
#include "tree/expand.hpp"
#include "tree/expand_node.hpp"
#endif

namespace uts::tbb_scheduler {

const char* to_string(Form form) { return form == Form::literature ? "literature" : "tuned"; }

#if !UTS_HAVE_TBB

bool available() { return false; }

RunResult run(const Tree&, const Settings&, const StopRule&, ProgressBoard&) {
  throw std::runtime_error(kUnavailable);
}

#else

bool available() { return true; }

namespace {

// Stack of every thread that runs the traversal: oneTBB's workers (through
// global_control) and the thread that starts it. The literature form
// recurses once per tree level, and a wait runs other tasks on top of its
// own frames; T3L is 17,844 levels deep. Reserved, not touched: only the
// pages a run reaches are committed (libfork's suite sets 128 MiB; twice
// that leaves room for the waits' nesting).
constexpr std::size_t kStackBytes = std::size_t{256} << 20;

// What one arena slot counts. A slot is held by one thread at a time, and
// oneTBB's hand-over of a slot orders one holder's writes before the next's.
struct Local {
  Counts counts;
  std::uint64_t next_poll = kPollNodes;
  double work_seconds = 0;  // tuned form: time inside tasks
};

struct Shared {
  const Tree& tree;
  const Settings& settings;
  const StopRule& stop_rule;
  ProgressBoard& progress;
  StopFlag stop;
  std::vector<Padded<Local>> local;
  oneapi::tbb::task_group group;  // the tuned form's tasks, waited for once

  Shared(const Tree& t, const Settings& s, const StopRule& r, ProgressBoard& p)
      : tree(t), settings(s), stop_rule(r), progress(p), local(static_cast<std::size_t>(s.threads)) {}

  int slot() const { return oneapi::tbb::this_task_arena::current_thread_index(); }
  Local& mine() { return local[static_cast<std::size_t>(slot())].value; }

  // Every kPollNodes nodes a slot generates: progress, signals, --max-nodes.
  // true: stop now.
  bool poll(Local& me) {
    me.next_poll = me.counts.nodes + kPollNodes;
    progress.publish(slot(), me.counts.nodes);
    if (interrupt::requested()) stop.raise(RunStatus::interrupted, interrupt::signal_number());
    if (stop_rule.max_nodes != 0 && progress.total() >= stop_rule.max_nodes) stop.raise(RunStatus::max_nodes);
    return stop.raised();
  }
  auto keep_going(Local& me) {
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
  if (sh.stop.raised()) return;
  Children kids;
  {
    Local& me = sh.mine();
    if (!expand_range(sh.tree, parent, 0, parent.children, me.counts, kids, sh.keep_going(me))) return;
    if (me.counts.nodes >= me.next_poll && sh.poll(me)) return;
  }
  if (kids.size == 0) return;
  oneapi::tbb::task_group group;
  for (std::size_t i = 0; i + 1 < kids.size; ++i) {
    group.run([&sh, child = kids.nodes[i]] { literature(sh, child); });
  }
  literature(sh, kids.nodes[kids.size - 1]);
  group.wait();
}

// ---- tuned form ----------------------------------------------------------

// A task's depth-first stack (the sequential baseline's, plus the hand-off
// of its bottom half).
class NodeStack {
 public:
  struct Pusher {
    NodeWords* top;
    void push(const Node& node) { *top++ = NodeWords::pack(node); }
  };
  explicit NodeStack(std::vector<NodeWords> nodes) : nodes_(std::move(nodes)), size_(nodes_.size()) {}
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
  std::size_t size() const { return size_; }
  // The bottom half (the oldest nodes, nearest the root: the largest
  // subtrees on average), removed from this stack.
  std::vector<NodeWords> take_bottom_half() {
    const std::size_t half = size_ / 2;
    std::vector<NodeWords> out(nodes_.begin(), nodes_.begin() + static_cast<std::ptrdiff_t>(half));
    std::copy(nodes_.begin() + static_cast<std::ptrdiff_t>(half), nodes_.begin() + static_cast<std::ptrdiff_t>(size_),
              nodes_.begin());
    size_ -= half;
    return out;
  }

 private:
  std::vector<NodeWords> nodes_;
  std::size_t size_ = 0;
};

void tuned(Shared& sh, std::vector<NodeWords> start);

// A new task for these nodes. oneTBB keeps the functor const: the nodes go
// through a pointer the task moves them out of.
void hand_off(Shared& sh, std::vector<NodeWords> nodes) {
  auto box = std::make_unique<std::vector<NodeWords>>(std::move(nodes));
  sh.group.run([&sh, box = std::move(box)] { tuned(sh, std::move(*box)); });
}

void tuned(Shared& sh, std::vector<NodeWords> start) {
  if (sh.stop.raised()) return;
  const auto t0 = Clock::now();
  Local& me = sh.mine();
  NodeStack stack(std::move(start));
  const std::uint64_t grain = sh.settings.grain;
  std::uint64_t next_hand_off = me.counts.nodes + grain;
  auto keep_going = sh.keep_going(me);
  auto refill = [&](Node& parent) __attribute__((always_inline)) { return stack.pop(parent); };
  Expander ways(sh.tree);
  Node node;
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
        break;
      }
      if (me.counts.nodes >= next_hand_off) {
        next_hand_off = me.counts.nodes + grain;
        if (stack.size() >= 2) hand_off(sh, stack.take_bottom_half());
      }
      if (me.counts.nodes >= me.next_poll && sh.poll(me)) break;
    }
  };
  using Way = Expander::Way;
  switch (ways.way()) {
    case Way::lanes: loop(std::integral_constant<Way, Way::lanes>{}); break;
    case Way::slots: loop(std::integral_constant<Way, Way::slots>{}); break;
    case Way::slots_visit_in_kernel: loop(std::integral_constant<Way, Way::slots_visit_in_kernel>{}); break;
  }
  me.work_seconds += seconds_since(t0);
}

// Runs fn on a new thread with a kStackBytes stack and waits for it: the
// traversal's first thread recurses as deep as oneTBB's workers do.
template <class Fn>
void on_large_stack(Fn& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  std::exception_ptr error;
  struct Call {
    Fn* fn;
    std::exception_ptr* error;
  } call{&fn, &error};
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        try {
          (*c->fn)();
        } catch (...) {
          *c->error = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    fn();  // no thread: on this one's stack
    return;
  }
  pthread_join(thread, nullptr);
  if (error) std::rethrow_exception(error);
}

}  // namespace

RunResult run(const Tree& tree, const Settings& settings, const StopRule& stop, ProgressBoard& progress) {
  if (settings.threads < 1) throw std::runtime_error("--scheduler tbb: at least one thread");
  if (settings.form == Form::tuned && settings.grain < 1) throw std::runtime_error("--grain: at least 1");
  RunResult out;
  Shared sh(tree, settings, stop, progress);

  // The plan of --bind, by arena slot; omp leaves placement to OMP_PLACES,
  // which places OpenMP's threads, not oneTBB's.
  Placement placement = prepare_placement();
  if (placement.topology && placement.topology->loaded())
    placement.plan = plan_placement(*placement.topology, settings.bind.policy, settings.bind.smt, settings.threads,
                                    placement.usable);
  if (settings.bind.policy == BindPolicy::omp)
    std::fprintf(stderr, "uts: warning: --bind omp: OMP_PLACES places OpenMP threads; oneTBB's workers run unbound\n");

  // As many threads as asked, even past the machine's PUs (oneTBB's default
  // ceiling), and their stacks.
  oneapi::tbb::global_control parallelism(oneapi::tbb::global_control::max_allowed_parallelism,
                                          static_cast<std::size_t>(settings.threads));
  oneapi::tbb::global_control stack_size(oneapi::tbb::global_control::thread_stack_size, kStackBytes);
  oneapi::tbb::task_arena arena(settings.threads);
  arena.initialize();
  Observer observer(arena, placement, sh.stop, settings.threads);
  observer.observe(true);

  double seconds = 0;
  auto traverse = [&] {
    arena.execute([&] {
      // The calling thread's entry is observed too; arrive() again is
      // harmless, and covers a thread already in the arena.
      observer.arrive();
      const auto start = Clock::now();
      Local& me = sh.mine();
      const Node root = tree.root();
      if (visit(root, me.counts)) {
        if (settings.form == Form::literature) {
          // Every task in this arena is this traversal's: a wait that takes
          // another task takes the same tree's work, so no isolation.
          literature(sh, root);
        } else {
          std::vector<NodeWords> first{NodeWords::pack(root)};
          sh.group.run([&sh, &first] { tuned(sh, std::move(first)); });
          sh.group.wait();
        }
      }
      seconds = seconds_since(start);
      interrupt::watch(nullptr);
    });
  };
  on_large_stack(traverse);
  observer.observe(false);

  out.seconds = seconds;
  if (sh.stop.raised()) {
    out.status = sh.stop.reason();
    out.stop_signal = sh.stop.signal();
  } else if (interrupt::requested()) {
    // A signal after the last poll still came before the run's end
    // (docs/output.md, section 7), as in the sequential baseline.
    out.status = RunStatus::interrupted;
    out.stop_signal = interrupt::signal_number();
  }
  out.threads.resize(static_cast<std::size_t>(settings.threads));
  for (std::size_t i = 0; i < sh.local.size(); ++i) {
    const Local& l = sh.local[i].value;
    out.counts.merge(l.counts);
    ThreadStats& t = out.threads[i];
    t.nodes = l.counts.nodes;
    if (settings.form == Form::tuned) {
      const double work = std::min(l.work_seconds, seconds);
      t.time_phase[static_cast<int>(Phase::work)] = work;
      t.time_phase[static_cast<int>(Phase::idle)] = seconds - work;
      t.idle_seconds = seconds - work;
      t.time_total = seconds;
    }
  }
  out.places = observer.places();
  out.rank_places = {placement.rank_place()};
  out.topology = placement.summary();
  out.truncations = tree.truncations();
  return out;
}

#endif

}  // namespace uts::tbb_scheduler
