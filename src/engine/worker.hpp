// The one worker loop, generic over the steal protocol (steal/protocol.hpp):
// each thread alternates two phases, exploit (expand nodes of its own deque,
// depth-first) and explore (search other threads' deques for work, backing
// off to sleep, until a steal succeeds or the run is over). Termination,
// sleeping, stop requests, statistics and the MPI rank seam are the same for
// every protocol. engine.cpp runs it in an OpenMP region.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "base/cache_line.hpp"
#include "base/clock.hpp"
#include "base/interrupt.hpp"
#include "base/nap.hpp"
#include "base/simulated.hpp"
#include "engine/rank_give.hpp"
#include "engine/remote_link.hpp"
#include "engine/stop_flag.hpp"
#include "engine/time_split.hpp"
#include "run/locality.hpp"
#include "run/progress.hpp"
#include "run/settings.hpp"
#include "run/stats.hpp"
#include "run/status.hpp"
#include "run/trace.hpp"
#include "steal/idle/backoff.hpp"
#include "steal/idle/sleep.hpp"
#include "steal/idle/termination.hpp"
#include "steal/protocol.hpp"
#include "steal/victims/victims.hpp"
#include "tree/counts.hpp"
#include "tree/expand.hpp"
#include "tree/tree.hpp"

namespace uts {

namespace engine_detail {

// Stop checks, progress and wake-ups every kPollNodes nodes (run/status.hpp);
// --max-nodes sums all threads' counts every kMaxNodesPolls of those polls.
constexpr unsigned kMaxNodesPolls = 4;
constexpr unsigned kWakeSpacing = 4;      // polls between two wake-ups sent by one owner
constexpr unsigned kIdlePollMask = 63;    // an idle thread checks SIGINT and stop every 64 search steps
constexpr std::chrono::microseconds kSleepTimeout{20000};  // a safety net; wake-ups are explicit
constexpr std::chrono::microseconds kAgentNap{20};         // an MPI agent naps, never sleeps

}  // namespace engine_detail

// Per-thread state, allocated and first written by its owner.
template <class P>
struct Worker {
  Worker(typename P::Context& ctx, int id) : deque(ctx, id) {}
  typename P::Deque deque;
  // Owner-private from here on.
  alignas(kCacheLine) Counts counts;
  ThreadStats stats;
  // When its loop ended: nothing left in its deque or its expander, and no
  // expansion given up (a run stopped just as it finished is complete).
  bool ended_empty = false;
  std::uint64_t phase_ticks[kPhases] = {};  // TimeSplit's totals, turned into seconds after the run
  std::uint64_t total_ticks = 0;
  std::uint64_t last_work_end_tick = 0;  // when its last work ended (explore() began)
  std::uint64_t finish_tick = 0;         // thread 0 across ranks: when it learned that the job was over
  double closing_seconds = 0;            // thread 0 across ranks: its agent's close(), not in the run's time
  ThreadTrace trace;                         // --trace: the first events (capacity reserved by its owner)
};

// What every thread of one run shares.
template <class P>
struct Shared {
  Shared(int threads, const Tree& tree, const EngineSettings& settings, const StopRule& stop,
         ProgressBoard& progress, std::optional<DomainMap> domain_map, bool multi_rank)
      : tree(tree),
        settings(settings),
        stop(stop),
        progress(progress),
        multi_rank(multi_rank),
        domains(std::move(domain_map)),
        protocol(threads, settings),
        workers(static_cast<std::size_t>(threads), nullptr),
        termination(threads),
        victims(threads, settings.victim, settings.steal, settings.locality.steal_local,
                settings.locality.steal_remote, domains ? &*domains : nullptr) {}
  const Tree& tree;
  const EngineSettings& settings;
  const StopRule& stop;
  ProgressBoard& progress;
  const bool multi_rank;            // the job has other ranks
  std::optional<DomainMap> domains;  // settings.uses_domains(): the thread -> domain map
  typename P::Context protocol;
  std::vector<Worker<P>*> workers;
  Termination termination;
  VictimBoard victims;
  StopFlag stop_flag;
  SleepBoard sleep;
  // Threads whose loop has ended (MPI: thread 0 stays its rank's agent until
  // all have). A count only: the results are merged after the OpenMP barrier.
  Padded<std::atomic<int>> finished;
  std::size_t trace_capacity = 0;  // --trace: events kept per thread; 0: no trace
};

// Thread 0 of a rank in a job of several ranks is its rank's agent: it lends
// the RemoteLink its deque and state (LinkHost). Every other thread, and
// every thread of a single-process run, has an empty seat.
class RankSeat {
 public:
  RankSeat(RemoteLink* link, std::uint32_t poll_every) : link_(link), shortest_(poll_every), next_(poll_every) {}
  bool taken() const { return link_ != nullptr; }
  // After each step of the loop, `nodes` the thread's count so far: true
  // once the agent's interval has passed (--rank-poll expansions at first,
  // then what its last busy poll returned), when the caller answers other
  // ranks (poll_busy). Counted in nodes, not steps: a step of the batched
  // expander expands a whole batch, refilled from the deque as it hashes
  // (tree/expansion.hpp), so steps would stretch the interval by the batch.
  bool due(std::uint64_t nodes) const { return link_ && nodes >= next_; }
  // Idle: true when another rank's nodes arrived (take() marked us busy).
  bool idle_poll(LinkHost& host, bool dry) { return link_ && link_->poll_idle(host, dry); }
  void poll_busy(LinkHost& host, std::uint64_t nodes) {
    next_ = nodes + std::max<std::uint32_t>(1, link_->poll_busy(host));
  }
  // Thread 0 works again after an idle spell, `nodes` its count: the next
  // busy poll comes within --rank-poll expansions, whatever interval the
  // last one set, since requests and lifelines its idle polls could only
  // refuse or record may be waiting for nodes.
  void resumed(std::uint64_t nodes) { next_ = std::min(next_, nodes + shortest_); }
  // Idle, the rank's only thread (uts-smpi): wait in MPI for a message when
  // the agent has nothing to do before one (false: it has, or cannot wait).
  bool idle_wait(LinkHost& host) { return link_ && link_->wait_idle(host); }
  void close(LinkHost& host) { link_->close(host); }

 private:
  RemoteLink* link_;
  std::uint32_t shortest_;  // --rank-poll
  std::uint64_t next_;      // the node count at which the next busy poll is due
};

template <StealProtocol P>
class ThreadRun final : public LinkHost {
 public:
  ThreadRun(int id, int threads, Shared<P>& shared, RemoteLink* link)
      : id_(id),
        threads_(threads),
        sh_(shared),
        seat_(id == 0 && shared.multi_rank ? link : nullptr, shared.settings.ranks.poll),
        self_(*shared.workers[static_cast<std::size_t>(id)]),
        busy_(shared.termination, id),
        victims_(shared.victims, id, threads),
        expander_(shared.tree) {}

  // The root, or this thread's block of the root's children (--init).
  void seed_work() {
    const Node root = sh_.tree.root();
    // Across ranks the processing elements are ranks x threads, rank-major.
    const int rank = sh_.settings.ranks.rank, ranks = sh_.multi_rank ? sh_.settings.ranks.count : 1;
    const int pes = ranks * threads_, pe = rank * threads_ + id_;
    if (sh_.settings.init == InitSpread::root || pes == 1) {
      if (pe == 0 && visit(root, self_.counts)) self_.deque.push(root);
      return;
    }
    // Balanced: contiguous blocks of the root's children, sizes differing by
    // at most one (the first k mod P processing elements get one more).
    if (pe == 0) visit(root, self_.counts);
    const std::uint32_t k = root.children;
    const auto p = static_cast<std::uint32_t>(pes);
    const auto t = static_cast<std::uint32_t>(pe);
    const std::uint32_t base = k / p, extra = k % p;
    const std::uint32_t first = t * base + (t < extra ? t : extra);
    const std::uint32_t count = base + (t < extra ? 1 : 0);
    if (!expand_range(sh_.tree, root, first, first + count, self_.counts, self_.deque, keep_going()))
      seed_abandoned_ = true;
  }

  // Starts the thread's clock at the run's start (`run_start`, common to
  // all threads): the time until this thread begins (leaving the start
  // barrier) is idle, then work (the seed is work). Before seed_work().
  void begin_timing(std::uint64_t run_start) {
    begin_tick_ = run_start;
    split_.begin(run_start, Phase::idle, sh_.trace_capacity ? &self_.trace : nullptr, sh_.trace_capacity);
    split_.to(Phase::work);
  }

  void run() {
    interrupt::watch(sh_.stop_flag.watchable());  // long loops deep in the tree code watch it
    for (;;) {
      exploit();
      if (!explore()) break;
      if (seat_.taken()) seat_.resumed(self_.counts.nodes);
    }
    self_.ended_empty =
        self_.deque.size() == 0 && !expander_.pending() && !expander_.abandoned() && !seed_abandoned_;
    sh_.finished.value.fetch_add(1, std::memory_order_acq_rel);  // acq_rel: a count (see Shared::finished)
    if (seat_.taken()) serve_rank_until_all_finished();
    self_.stats.nodes = self_.counts.nodes;
    report(self_.deque, self_.stats);
    interrupt::watch(nullptr);
    const std::uint64_t end = tick::now();
    split_.end(end);
    for (int p = 0; p < kPhases; ++p) self_.phase_ticks[p] = split_.ticks(static_cast<Phase>(p));
    self_.total_ticks = end - begin_tick_;
  }

  // ---- LinkHost, for thread 0's agent (thread 0 only) ----
  std::size_t give(std::size_t max, std::vector<Node>& out) override {
    // About half of what it holds, at most `max`, by --rank-split
    // (rank_give.hpp). The deepest node is popped first and pushed back
    // after, so one is always kept whatever thieves take meanwhile (the held
    // count is only an estimate). Thread 0 stays busy throughout, so the
    // nodes, in its deque or in the vectors below, are always held by a busy
    // thread.
    if (self_.deque.size() < 2) return 0;
    Node kept;
    if (!self_.deque.pop(kept)) return 0;
    if (sh_.settings.ranks.split == RankSplit::shallowest) {
      const std::uint64_t k = std::min<std::uint64_t>(max, (self_.deque.size() + 1) / 2);
      const std::uint32_t n = self_.deque.give_shallowest(static_cast<std::uint32_t>(k), out);
      self_.deque.push(kept);
      return n;
    }
    // --rank-split levels (rank_give.hpp): every node out, shallowest first,
    // as a thief would claim them; what stays goes back in the same order,
    // so the deque's shallow end is shallow again; then the kept node.
    held_.clear();
    kept_back_.clear();
    self_.deque.give_shallowest(self_.deque.size(), held_);
    const std::size_t n = split_levels(held_, max, out, kept_back_);
    for (const Node& node : kept_back_) self_.deque.push(node);
    self_.deque.push(kept);
    return n;
  }
  void take(const Node* nodes, std::size_t count) override {
    if (searching_) busy_.busy();  // before the nodes are ours (idle/termination.hpp)
    auto in = self_.deque.pusher(static_cast<std::uint32_t>(count));
    for (std::size_t i = 0; i < count; ++i) in.push(nodes[i]);
    self_.deque.commit(in);
  }
  bool quiescent() override { return searching_ && sh_.termination.quiescent(scan_); }
  std::uint64_t nodes_so_far() override {
    sh_.progress.publish(id_, self_.counts.nodes);
    return sh_.progress.total();
  }
  bool stop_raised() override { return sh_.stop_flag.raised(); }
  RunStatus stop_reason() override { return sh_.stop_flag.reason(); }
  int stop_signal() override { return sh_.stop_flag.signal(); }
  void stop(RunStatus why) override { stop(why, why == RunStatus::interrupted ? interrupt::signal_number() : 0); }
  void stop(RunStatus why, int signal) override {
    sh_.stop_flag.raise(why, signal);
    sh_.sleep.wake_all();
  }
  void finish() override {
    self_.finish_tick = tick::now();
    sh_.termination.finish();
    sh_.sleep.wake_all();
  }
  void note_global(std::uint8_t kind, int peer, std::uint32_t nodes) override {
    if (!split_.tracing()) return;
    const std::uint64_t t = tick::now();
    split_.record(TraceEvent{t, t, peer, nodes, TraceEvent::global, kind});
  }

 private:
  using Step = VictimSearch::Step;

  // ---- exploit: expand this thread's own nodes until its deque is empty ----
  void exploit() {
    if (seed_abandoned_) {
      poll();
      return;
    }
    // One loop per way the expander queues children (tree/expand.hpp).
    switch (expander_.way()) {
      case Expander::Way::lanes: return exploit_loop<Expander::Way::lanes>();
      case Expander::Way::slots: return exploit_loop<Expander::Way::slots>();
      case Expander::Way::slots_visit_in_kernel: return exploit_loop<Expander::Way::slots_visit_in_kernel>();
    }
  }

  template <Expander::Way kWay>
  void exploit_loop() {
    Node node;
    auto& deque = self_.deque;
    auto& expander = expander_.template as<kWay>();
    // The expander pops more of our nodes while it hashes (tree/expansion.hpp,
    // NoRefill), from the private part only (steal/protocol.hpp,
    // pop_private): pop()'s reclaim (split) or reacquire (locked) was a call
    // inside the kernel, around which GCC kept the kernel's zmm state on the
    // stack (results/benchmarks/2026-11-28-engine.md). A false stops the
    // refills of one pair; the loop's next pop() reclaims (split) or
    // reacquires (locked).
    auto refill = [&deque](Node& parent) __attribute__((always_inline)) { return pop_private(deque, parent); };
    for (;;) {
      if (!deque.pop(node)) {
        // Children still queued are this thread's work: hash them (pushing
        // their children) before the deque may be called empty.
        if (!expander.flush(sh_.tree, self_.counts, deque)) return;
      } else {
        expander.add(sh_.tree, node, self_.counts, deque, keep_going(), refill);
        serve_thieves(deque);
        if (seat_.due(self_.counts.nodes)) {
          model_work();
          const std::uint64_t t0 = tick::now();
          seat_.poll_busy(*this, self_.counts.nodes);
          split_.charge(Phase::agent, t0, tick::now(), kShortestDrawn);
        }
      }
      if (self_.counts.nodes >= next_poll_ && poll()) return;
      if (expander.abandoned()) {  // a huge node or a -g batch given up: the run stops
        if (!poll()) stop(RunStatus::interrupted);
        return;
      }
    }
  }

  // uts-smpi --model-rate: the nodes expanded since the last call cost
  // simulated time at the modelled rate, before anything another rank can
  // see happens (an agent poll, the end of the work). No-op elsewhere.
  void model_work() {
#if UTS_SMPI
    const double rate = sh_.settings.ranks.model_rate;
    if (rate > 0 && self_.counts.nodes > modelled_nodes_) {
      simulated::compute(static_cast<double>(self_.counts.nodes - modelled_nodes_) / rate);
      modelled_nodes_ = self_.counts.nodes;
    }
#endif
  }

  // Between pieces of a huge node: go on unless the run must stop.
  auto keep_going() {
    return [this] { return self_.counts.nodes < next_poll_ || !poll(); };
  }

  // Every kPollNodes nodes: progress, wake-ups, stop conditions. true: stop now.
  bool poll() {
    next_poll_ = self_.counts.nodes + kPollNodes;
    ++polls_;
    sh_.progress.publish(id_, self_.counts.nodes);
    if (sh_.sleep.sleepers() > 0) wake_a_sleeper();
    if (interrupt::requested()) stop(RunStatus::interrupted);
    // Across ranks, rank 0's agent adds up every rank's count instead.
    if (sh_.stop.max_nodes != 0 && !sh_.multi_rank && polls_ % engine_detail::kMaxNodesPolls == 0 &&
        sh_.progress.total() >= sh_.stop.max_nodes)
      stop(RunStatus::max_nodes);
    return sh_.stop_flag.raised();
  }

  // Some thread sleeps: make nodes stealable if we can, and wake one sleeper
  // when stealable nodes have sat unclaimed since an earlier poll.
  void wake_a_sleeper() {
    if (self_.deque.expose_work() && polls_ - last_wake_poll_ >= engine_detail::kWakeSpacing) {
      last_wake_poll_ = polls_;
      sh_.sleep.wake_one(id_);
      if (split_.tracing()) {
        const std::uint64_t t = tick::now();
        split_.record(TraceEvent{t, t, -1, 0, TraceEvent::wake, 0});
      }
    }
  }

  // ---- explore: idle until a steal succeeds (true) or the run is over ----
  // Its time is search, claim, idle (and agent); when it ends the thread's
  // run (false), termination (time_split.hpp).
  bool explore() {
    model_work();
    self_.last_work_end_tick = tick::now();
    split_.to(Phase::search);
    split_.mark_search();
    const bool found = explore_once();
    if (found) split_.to(Phase::work);
    else split_.terminate();
    return found;
  }

  bool explore_once() {
    sh_.progress.publish(id_, self_.counts.nodes);
    on_dry(self_.deque);  // first: request cells close even when the run stops here
    if (sh_.stop_flag.raised()) return false;
    if (!sh_.settings.stealing && !seat_.taken()) {
      // -s 0: each thread ends with its own work, idle, truthfully (its
      // deque is empty). Across ranks that counts for the rank's
      // quiescence; in one process the last thread to get here detects the
      // end, which reads the signal (idle/termination.hpp): a signal after
      // every thread's last poll still came before the end.
      sh_.termination.idle(id_);
      detect();
      return false;
    }
    sh_.termination.idle(id_);
    searching_ = true;
    const auto idle_start = Clock::now();
    // -s 0 across ranks: thread 0 only serves as the agent (STOP,
    // --max-nodes) until the ranks' termination ends the job.
    const bool found = sh_.settings.stealing ? search() : serve_as_agent();
    searching_ = false;
    self_.stats.idle_seconds += seconds_since(idle_start);
    if (found) on_refilled(self_.deque);
    return found;
  }

  bool search() {
    victims_.begin();
    Backoff backoff;
    int hinted = -1;
    auto attempt = [this](int victim, const StealPolicy& amount) { return try_victim(victim, amount); };
    for (;;) {
      if (sh_.termination.done()) return false;
      if (seat_.taken() && agent_poll()) return true;  // another rank's nodes
      if (stop_requested()) return false;
      if (hinted >= 0 && hinted != id_) {
        // The owner that woke us has unclaimed stealable nodes: try it first.
        const int v = hinted;
        hinted = -1;
        if (victims_.try_hinted(v, attempt)) return true;
        continue;
      }
      const Step step = victims_.step(attempt);
      if (step == Step::found) return true;
      if (step == Step::alone) {  // nobody to steal from
        if (detect()) return false;
        if (!seat_.taken()) continue;
#if UTS_SMPI
        // uts-smpi, one thread per simulated rank: only a message can bring
        // work. The rank blocks in MPI until one arrives when its agent has
        // nothing to send before (waiting for an answer, dormant, waiting
        // for a wave's reports); otherwise it naps after each poll, in
        // simulated time. Spinning would advance simulated time by nothing
        // per MPI call, and the simulation would crawl (every rank runs in
        // one process, and each simulated event costs real time).
        if (sh_.stop_flag.raised()) return false;  // not a nap late
        split_.to(Phase::idle);
        if (!seat_.idle_wait(*this)) nap(engine_detail::kAgentNap);
        split_.to(Phase::search);
        continue;
#endif
      }
      const std::uint64_t spin_start = tick::now();
      const Backoff::Step backed_off = backoff.next();
      split_.charge(Phase::idle, spin_start, tick::now(), kShortestDrawn);
      if (backed_off == Backoff::Step::sleep) {
        if (detect()) {
          sh_.sleep.wake_all();
          return false;
        }
        if (seat_.taken()) {
          // The agent must keep answering other ranks and passing the
          // token: a short nap, never the futex sleep.
          split_.to(Phase::idle);
          nap(engine_detail::kAgentNap);
          split_.to(Phase::search);
          backoff.reset();
          victims_.reset_dry();
          continue;
        }
        ++self_.stats.sleeps;
        split_.to_at(tick::now(), Phase::idle, TraceEvent::kSleep);
        hinted = sh_.sleep.sleep(engine_detail::kSleepTimeout,
                                 [&] { return sh_.termination.done() || sh_.stop_flag.raised(); });
        split_.to(Phase::search);
        backoff.reset();
      }
    }
  }

  bool serve_as_agent() {
    for (;;) {
      if (sh_.termination.done()) return false;
      if (agent_poll()) return true;
      if (stop_requested()) return false;
      split_.to(Phase::idle);
      nap(engine_detail::kAgentNap);
      split_.to(Phase::search);
    }
  }

  // Thread 0 of a rank, idle: answer other ranks, ask them for work (agent
  // time). true: another rank's nodes arrived.
  bool agent_poll() {
    const std::uint64_t t0 = tick::now();
    const bool got = seat_.idle_poll(*this, victims_.dry());
    split_.charge(Phase::agent, t0, tick::now(), kShortestDrawn);
    return got;
  }

  // Every 64 idle steps: SIGINT or a stop raised elsewhere ends the search.
  bool stop_requested() {
    if ((++idle_polls_ & engine_detail::kIdlePollMask) != 0) return false;
    if (interrupt::requested()) stop(RunStatus::interrupted);
    return sh_.stop_flag.raised();
  }

  // The rank's other threads may still work (-s 0: each ends with its own
  // share; or a stop still reaching them): until they are done, thread 0
  // goes on answering other ranks, passing SIGINT and STOP on and counting
  // for --max-nodes. Only then may it close.
  void serve_rank_until_all_finished() {
    while (sh_.finished.value.load(std::memory_order_acquire) < threads_) {  // acquire: see Shared::finished
      // A SIGINT after the job ended does not make it interrupted.
      if (!sh_.termination.done() && interrupt::requested()) stop(RunStatus::interrupted);
      seat_.poll_busy(*this, self_.counts.nodes);
      nap(engine_detail::kAgentNap);
    }
    // Closing completes the messages after the job's end (distrib/closing.hpp): the
    // engine leaves it out of the run's time and reports it apart.
    const auto closing_start = Clock::now();
    seat_.close(*this);
    self_.closing_seconds = seconds_since(closing_start);
  }

  // This rank's end. Across ranks, all of a rank's threads idle is not the
  // end: only the ranks' termination (finish()) is.
  bool detect() { return !sh_.multi_rank && sh_.termination.detect(scan_); }

  // One probe of victim v, taking `amount`; true when nodes were stolen into
  // our deque. A victim in another domain costs --remote-delay before the
  // probe and again before the claim.
  bool try_victim(int v, const StealPolicy& amount) {
    ++self_.stats.deques_examined;
    Worker<P>& victim = *sh_.workers[static_cast<std::size_t>(v)];
    const bool remote = sh_.domains && !sh_.domains->same(id_, v);
    const RemoteDelay delay{remote ? sh_.settings.locality.remote_delay_ns : 0, &sh_.termination.done_flag()};
    delay();
    const std::uint64_t t0 = tick::now();
    const StealOutcome got = self_.deque.steal(victim.deque, busy_, amount, delay);
    const std::uint64_t t1 = tick::now();
    if (got.nodes > 0) {  // the claim that succeeded; failed claims are search
      split_.to_at(t0, Phase::claim);
      split_.to_at(t1, Phase::search);
    }
    if (split_.tracing())
      split_.record(TraceEvent{t0, t1, v, got.nodes, TraceEvent::steal,
                               got.nodes > 0   ? TraceEvent::success
                               : got.attempted ? TraceEvent::contended
                                               : TraceEvent::empty});
    ThreadStats& st = self_.stats;
    if (got.attempted) {
      ++st.steal_attempts;
      ++(remote ? st.remote_steal_attempts : st.local_steal_attempts);
    }
    if (got.nodes == 0) return false;
    ++st.steals;
    st.nodes_stolen += got.nodes;
    ++(remote ? st.remote_steals : st.local_steals);
    (remote ? st.remote_steal_nodes : st.local_steal_nodes) += got.nodes;
    return true;
  }

  int id_;
  int threads_;
  Shared<P>& sh_;
  RankSeat seat_;
  bool searching_ = false;  // in explore(), marked idle
  Worker<P>& self_;
  BusyMark busy_;
  VictimSearch victims_;
  std::uint64_t next_poll_ = kPollNodes;  // poll when this thread's count reaches it
  std::vector<Node> held_, kept_back_;  // give() with --rank-split levels: reused, not reallocated
  std::uint64_t modelled_nodes_ = 0;      // uts-smpi --model-rate: nodes whose cost was simulated
  unsigned polls_ = 0;
  unsigned last_wake_poll_ = 0;
  unsigned idle_polls_ = 0;
  bool seed_abandoned_ = false;
  Expander expander_;
  std::vector<std::uint64_t> scan_;  // termination detection scratch
  TimeSplit split_;
  std::uint64_t begin_tick_ = 0;
  // Agent polls and back-off steps shorter than this many ticks (about a
  // microsecond) are counted but not drawn in the trace: they would fill it.
  static constexpr std::uint64_t kShortestDrawn = 2000;
};

}  // namespace uts
