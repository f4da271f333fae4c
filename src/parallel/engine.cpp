#include "parallel/engine.hpp"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>

#include "distrib/rank_link.hpp"
#include "parallel/backoff.hpp"
#include "parallel/chase_lev.hpp"
#include "parallel/locked_stack.hpp"
#include "parallel/protocol.hpp"
#include "parallel/request_protocol.hpp"
#include "parallel/sleep.hpp"
#include "parallel/split_protocol.hpp"
#include "parallel/termination.hpp"
#include "parallel/victim.hpp"
#include "topology/domains.hpp"
#include "util/clock.hpp"
#include "util/interrupt.hpp"

namespace uts {

namespace {

constexpr unsigned kPollMask = 255;        // stop checks, progress and wake-ups every 256 expansions
constexpr unsigned kMaxNodesMask = 4095;   // --max-nodes sums all threads' counts every 4096
constexpr unsigned kWakeSpacing = 4;       // polls between two wake-ups sent by one owner
constexpr std::chrono::microseconds kSleepTimeout{20000};  // a safety net; wake-ups are explicit

// Per-thread state, allocated and first written by its owner.
template <class P>
struct Worker {
  Worker(typename P::Context& ctx, int id) : deque(ctx, id) {}
  typename P::Deque deque;
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

// What every thread of one run shares.
template <class P>
struct Shared {
  Shared(int threads, const Tree& tree, const EngineSettings& settings, const StopRule& stop, ProgressBoard& progress)
      : tree(tree),
        settings(settings),
        stop(stop),
        progress(progress),
        protocol(threads, settings),
        workers(static_cast<std::size_t>(threads), nullptr),
        termination(threads),
        manber(threads) {}
  const Tree& tree;
  const EngineSettings& settings;
  const StopRule& stop;
  ProgressBoard& progress;
  typename P::Context protocol;
  std::vector<Worker<P>*> workers;
  Termination termination;
  ManberTree manber;
  StopFlag stop_flag;
  SleepBoard sleep;
  // Threads whose loop has ended (MPI: thread 0 stays its rank's agent until
  // all have). acq_rel/acquire: only a count; the results are merged after
  // the OpenMP barrier.
  struct alignas(kCacheLine) {
    std::atomic<int> value{0};
  } finished;
  // Locality (settings.uses_domains()): the thread -> domain map, and per
  // domain whether one of its threads has a remote steal round in flight.
  std::optional<DomainMap> domains;
  struct alignas(kCacheLine) RemoteSlot {
    std::atomic<bool> in_flight{false};
  };
  std::unique_ptr<RemoteSlot[]> remote_slots;
};

// The one worker loop, generic over the steal protocol (protocol.hpp).
// Under MPI (ranks > 1) thread 0 also runs its rank's agent (`link`): it
// answers other ranks every --rank-poll expansions and steals from them when
// idle; the RankHost methods are what it lends the agent.
template <StealProtocol P>
class ThreadRun final : public distrib::RankHost {
 public:
  ThreadRun(int id, int threads, Shared<P>& shared, distrib::RankLink* link)
      : id_(id),
        threads_(threads),
        sh_(shared),
        link_(id == 0 ? link : nullptr),
        multi_rank_(link != nullptr && link->ranks() > 1),
        self_(*shared.workers[static_cast<std::size_t>(id)]),
        busy_(shared.termination, id),
        victims_(shared.settings.victim, id, threads, &shared.manber, static_cast<std::uint64_t>(id) + 1) {
    if (shared.domains) {
      const DomainMap& m = *shared.domains;
      domain_ = m.of_thread[static_cast<std::size_t>(id)];
      for (int t = 0; t < threads; ++t) {
        if (t == id) continue;
        (m.same(t, id) ? local_ : remote_).push_back(t);
      }
    }
  }

  void seed_work() {
    const Node root = sh_.tree.root();
    // Under MPI the processing elements are ranks x threads, numbered rank-major.
    const int rank = sh_.settings.rank, ranks = multi_rank_ ? sh_.settings.ranks : 1;
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
    expand_range(sh_.tree, root, first, first + count, self_.counts, self_.deque);
  }

  void run() {
    for (;;) {
      work();
      if (!find_work()) break;
    }
    sh_.finished.value.fetch_add(1, std::memory_order_acq_rel);  // acq_rel: see Shared::finished
    if (link_) {
      // The rank's other threads may still work (-s 0: each ends with its
      // own share; or a stop still reaching them): until they are done,
      // thread 0 goes on answering other ranks, passing SIGINT and STOP on
      // and counting for --max-nodes. Only then may it close.
      while (sh_.finished.value.load(std::memory_order_acquire) < threads_) {  // acquire: see Shared::finished
        // A SIGINT after the job ended does not make it interrupted.
        if (!sh_.termination.done() && interrupt::requested()) stop(RunStatus::interrupted);
        link_->poll_busy(*this);
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
      link_->close(*this);
    }
    self_.stats.nodes = self_.counts.nodes;
    self_.deque.report(self_.stats);
  }

  // distrib::RankHost, for thread 0's agent (thread 0 only).
  std::size_t give(std::size_t max, std::vector<Node>& out) override {
    // Take every node out (deepest first), send the shallowest, put the rest
    // back in their order. Thread 0 stays busy throughout, so the nodes are
    // always held by a busy thread; the deque is small (depth-first).
    drained_.clear();
    Node n;
    while (self_.deque.pop(n)) drained_.push_back(n);
    const std::size_t give = drained_.size() < 2 ? 0 : std::min(max, drained_.size() / 2);
    const std::size_t keep = drained_.size() - give;
    out.insert(out.end(), drained_.begin() + static_cast<std::ptrdiff_t>(keep), drained_.end());
    self_.deque.reserve(static_cast<std::uint32_t>(keep));
    for (std::size_t i = keep; i-- > 0;) self_.deque.push(drained_[i]);
    return give;
  }
  void take(const Node* nodes, std::size_t count) override {
    if (searching_) busy_.busy();  // before the nodes are ours (termination.hpp)
    self_.deque.reserve(static_cast<std::uint32_t>(count));
    for (std::size_t i = 0; i < count; ++i) self_.deque.push(nodes[i]);
  }
  bool quiescent() override { return searching_ && sh_.termination.quiescent(scan_); }
  std::uint64_t nodes_so_far() override {
    sh_.progress.publish(id_, self_.counts.nodes);
    return sh_.progress.total();
  }
  bool stop_raised() override { return sh_.stop_flag.raised(); }
  RunStatus stop_reason() override { return sh_.stop_flag.reason(); }
  void stop(RunStatus why) override {
    sh_.stop_flag.raise(why);
    sh_.sleep.wake_all();
  }
  void finish() override {
    sh_.termination.finish();
    sh_.sleep.wake_all();
  }

 private:
  void work() {
    Node node;
    auto& deque = self_.deque;
    for (;;) {
      if (!deque.pop(node)) {
        // Children still queued are this thread's work: hash them (pushing
        // their children) before the deque may be called empty.
        if (expander_.flush(sh_.tree, self_.counts, deque)) continue;
        return;
      }
      expander_.add(sh_.tree, node, self_.counts, deque);
      deque.maintain();
      if (link_ && ++rank_polls_ >= sh_.settings.rank_poll) {
        rank_polls_ = 0;
        link_->poll_busy(*this);
      }
      if ((++polls_ & kPollMask) == 0 && poll()) return;
    }
  }

  // Every 256 expansions: progress, wake-ups, stop conditions. true: stop now.
  bool poll() {
    sh_.progress.publish(id_, self_.counts.nodes);
    if (sh_.sleep.sleepers() > 0) offer_work();
    if (interrupt::requested()) stop(RunStatus::interrupted);
    // Across ranks, rank 0's agent adds up every rank's count instead.
    if (sh_.stop.max_nodes != 0 && !multi_rank_ && (polls_ & kMaxNodesMask) == 0 &&
        sh_.progress.total() >= sh_.stop.max_nodes)
      stop(RunStatus::max_nodes);
    return sh_.stop_flag.raised();
  }

  // Some thread sleeps: make nodes stealable if we can, and wake one sleeper
  // when stealable nodes have sat unclaimed since an earlier poll.
  void offer_work() {
    if (self_.deque.offer() && polls_ - last_wake_poll_ >= kWakeSpacing * (kPollMask + 1)) {
      last_wake_poll_ = polls_;
      sh_.sleep.wake_one(id_);
    }
  }

  // Idle until a steal succeeds (true) or the run is over (false).
  bool find_work() {
    sh_.progress.publish(id_, self_.counts.nodes);
    self_.deque.go_idle();  // first: request cells close even when the run stops here
    if (sh_.stop_flag.raised()) return false;
    if (!sh_.settings.stealing) {  // -s 0: each thread ends with its own work
      if (!multi_rank_) return false;
      // Across ranks the job still ends by the ranks' termination: idle
      // (truthfully: the deque is empty) for this rank's quiescence, and
      // thread 0 stays the agent (STOP, --max-nodes) until the job ends.
      sh_.termination.idle(id_);
      if (!link_) return false;
    }
    sh_.termination.idle(id_);
    searching_ = true;
    const auto idle_start = std::chrono::steady_clock::now();
    victims_.begin_search();
    Backoff backoff;
    bool found = false;
    int hinted = -1;
    std::uint32_t idle_polls = 0;
    int misses = 0;  // thread 0 under MPI: local victims missed in a row
    for (;;) {
      if (sh_.termination.done()) break;
      if (link_ && link_->poll_idle(*this, threads_ == 1 || misses >= threads_ - 1)) {
        found = true;  // another rank's nodes (take() marked us busy)
        break;
      }
      if ((++idle_polls & 63) == 0 && (interrupt::requested() || sh_.stop_flag.raised())) {
        if (interrupt::requested()) stop(RunStatus::interrupted);
        break;
      }
      if (!sh_.settings.stealing) {  // thread 0 under MPI with -s 0: only the agent's work
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        continue;
      }
      if (hinted >= 0 && hinted != id_) {
        // The owner that woke us has unclaimed shared nodes: try it first,
        // outside the victim policy's order (which it must not advance).
        const int v = hinted;
        hinted = -1;
        if (try_hinted(v)) {
          found = true;
          break;
        }
        continue;
      }
      if (sh_.settings.victim == VictimOrder::hier) {
        if (threads_ == 1) {
          if (detect()) break;
          if (!link_) continue;
        } else if (hier_round()) {
          found = true;
          break;
        } else {
          misses = threads_;  // a whole round failed
        }
      } else {
        const int v = victims_.next();
        if (v < 0) {  // a single thread: nobody to steal from
          if (detect()) break;
          if (!link_) continue;
        } else if (try_victim(v)) {
          victims_.found_work(v);
          found = true;
          break;
        } else {
          victims_.missed();
          ++misses;
        }
      }
      if (backoff.next() == Backoff::Step::sleep) {
        if (detect()) {
          sh_.sleep.wake_all();
          break;
        }
        if (link_) {
          // The agent must keep answering other ranks and passing the
          // token: a short nap, never the futex sleep.
          std::this_thread::sleep_for(std::chrono::microseconds(20));
          backoff.reset();
          misses = 0;
          continue;
        }
        ++self_.stats.sleeps;
        hinted = sh_.sleep.sleep(kSleepTimeout, [&] { return sh_.termination.done() || sh_.stop_flag.raised(); });
        backoff.reset();
      }
    }
    searching_ = false;
    self_.stats.idle_seconds += seconds_since(idle_start);
    if (found) self_.deque.got_work();
    return found;
  }

  // This rank's end. Under MPI with several ranks a rank's threads all idle
  // is not the end: only the agent's global termination (finish()) is.
  bool detect() { return !multi_rank_ && sh_.termination.detect(scan_); }

  // --victim hier (the Chapel DistBag_DFS policy): a local round over the
  // other threads of this domain in random order, taking --steal-local;
  // after it failed, one remote round over the other domains' threads in
  // random order, taking --steal-remote, unless another thread of this
  // domain has a remote round in flight (then this one goes back to local
  // rounds). true when nodes were stolen.
  bool hier_round() {
    shuffle(local_);
    for (int v : local_)
      if (try_victim(v, sh_.settings.steal_local)) return true;
    if (remote_.empty()) return false;
    auto& slot = sh_.remote_slots[static_cast<std::size_t>(domain_)].in_flight;
    // relaxed, both: the flag only limits how many remote rounds run at once;
    // it guards no data (each claim is validated by its protocol).
    if (slot.load(std::memory_order_relaxed) || slot.exchange(true, std::memory_order_relaxed)) return false;
    shuffle(remote_);
    bool got = false;
    for (int v : remote_)
      if ((got = try_victim(v, sh_.settings.steal_remote))) break;
    slot.store(false, std::memory_order_relaxed);  // relaxed: as above
    return got;
  }

  void shuffle(std::vector<int>& v) {
    for (std::size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[victims_.random_below(static_cast<std::uint32_t>(i))]);
  }

  bool try_victim(int v) { return try_victim(v, sh_.settings.steal); }

  // The victim a waker named. Under hier it keeps hier's rules: the local
  // amount inside the domain; across domains the remote amount, and only if
  // no other thread of this domain has a remote round in flight.
  bool try_hinted(int v) {
    if (sh_.settings.victim != VictimOrder::hier) return try_victim(v);
    if (sh_.domains->same(id_, v)) return try_victim(v, sh_.settings.steal_local);
    auto& slot = sh_.remote_slots[static_cast<std::size_t>(domain_)].in_flight;
    // relaxed, both: as in hier_round().
    if (slot.load(std::memory_order_relaxed) || slot.exchange(true, std::memory_order_relaxed)) return false;
    const bool got = try_victim(v, sh_.settings.steal_remote);
    slot.store(false, std::memory_order_relaxed);  // relaxed: as above
    return got;
  }

  // One probe of victim v, taking `amount`; true when nodes were stolen into
  // our deque. A victim in another domain costs --remote-delay before the
  // probe and again before the claim.
  bool try_victim(int v, const StealPolicy& amount) {
    ++self_.stats.deques_examined;
    Worker<P>& victim = *sh_.workers[static_cast<std::size_t>(v)];
    const bool remote = sh_.domains && !sh_.domains->same(id_, v);
    const RemoteDelay delay{remote ? sh_.settings.remote_delay_ns : 0};
    delay();
    const StealOutcome got = self_.deque.steal(victim.deque, busy_, amount, delay);
    if (got.attempted) {
      ++self_.stats.steal_attempts;
      ++(remote ? self_.stats.remote_steal_attempts : self_.stats.local_steal_attempts);
    }
    if (got.nodes == 0) return false;
    ++self_.stats.steals;
    self_.stats.nodes_stolen += got.nodes;
    ++(remote ? self_.stats.remote_steals : self_.stats.local_steals);
    (remote ? self_.stats.remote_steal_nodes : self_.stats.local_steal_nodes) += got.nodes;
    return true;
  }

  int id_;
  int threads_;
  Shared<P>& sh_;
  distrib::RankLink* link_;  // thread 0 under MPI only
  bool multi_rank_;          // the job has other ranks
  bool searching_ = false;   // in find_work(), marked idle
  std::uint32_t rank_polls_ = 0;
  std::vector<Node> drained_;  // give()'s scratch
  Worker<P>& self_;
  BusyMark busy_;
  VictimSelector victims_;
  unsigned polls_ = 0;
  unsigned last_wake_poll_ = 0;
  Expander expander_;
  std::vector<std::uint64_t> scan_;  // termination detection scratch
  int domain_ = 0;
  std::vector<int> local_, remote_;  // other threads in this domain, in others
};

template <StealProtocol P>
RunResult run_with(const Tree& tree, const EngineSettings& settings, const StopRule& stop, ProgressBoard& progress,
                   distrib::RankLink* link) {
  const int threads = settings.threads;
  Shared<P> shared(threads, tree, settings, stop, progress);
  // Domains: virtual ones need nothing from the machine; hardware ones need
  // each thread's binding, read inside the region below.
  std::unique_ptr<Topology> topology;
  std::vector<int> hw_domain(static_cast<std::size_t>(threads), -1);
  if (settings.uses_domains() && settings.domains.level != DomainLevel::virtual_count) {
    topology = std::make_unique<Topology>();
    if (!topology->loaded())
      std::fprintf(stderr, "uts: warning: cannot read the hardware topology (%s): one domain\n",
                   topology->error().c_str());
  }
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
    auto* me = new Worker<P>(shared.protocol, id);
    shared.workers[static_cast<std::size_t>(id)] = me;
    if (topology && topology->loaded())
      hw_domain[static_cast<std::size_t>(id)] = topology->domain_of_calling_thread(settings.domains.level);
#pragma omp barrier
#pragma omp single
    if (settings.uses_domains()) {
      const DomainSpec& spec = settings.domains;
      if (spec.level == DomainLevel::virtual_count) shared.domains = virtual_domains(threads, spec.count);
      else if (topology->loaded())
        shared.domains = hardware_domains(hw_domain, topology->domains_at(spec.level), to_string(spec));
      else
        shared.domains = virtual_domains(threads, 1);
      shared.remote_slots = std::make_unique<typename Shared<P>::RemoteSlot[]>(
          static_cast<std::size_t>(shared.domains->count));
    }
    if (granted == threads) {
#pragma omp single
      start = std::chrono::steady_clock::now();
      ThreadRun<P> run(id, threads, shared, link);
      try {
        run.seed_work();
#pragma omp barrier
        run.run();
      } catch (const std::exception& e) {
        // Out of memory or a deque past 2^30 slots: no partial result could
        // be trusted, and the other threads cannot be unwound out of the
        // region, so say why and leave at once.
        std::fprintf(stderr, "uts: %s\n", e.what());
        std::_Exit(3);
      }
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
  out.status = shared.stop_flag.reason();
  out.domains = shared.domains;
  return out;
}

}  // namespace

RunResult run_parallel(const Tree& tree, const EngineSettings& settings, const StopRule& stop,
                       ProgressBoard& progress, distrib::RankLink* link) {
  const int threads = settings.threads;
  // Checked up front: libomp would print its own warning and shrink the team.
  if (threads > omp_get_thread_limit())
    throw std::runtime_error("--threads " + std::to_string(threads) + ": OpenMP allows only " +
                             std::to_string(omp_get_thread_limit()) + " threads (check OMP_THREAD_LIMIT)");
  switch (settings.protocol) {
    case Protocol::split: return run_with<SplitProtocol>(tree, settings, stop, progress, link);
    case Protocol::locked: return run_with<LockedProtocol>(tree, settings, stop, progress, link);
    case Protocol::request: return run_with<RequestProtocol>(tree, settings, stop, progress, link);
    case Protocol::chaselev: return run_with<ChaseLevProtocol>(tree, settings, stop, progress, link);
  }
  throw std::logic_error("unknown protocol");
}

}  // namespace uts
