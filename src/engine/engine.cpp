// The parallel run: an OpenMP region with one worker (engine/worker.hpp)
// per thread, the steal protocol chosen at run time, and the threads'
// counts, times and statistics gathered into one RunResult.
#include "engine/engine.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "base/out_of_memory.hpp"
#include "base/tick.hpp"
#include "engine/worker.hpp"
#include "steal/registry.hpp"
#include "topology/domains.hpp"
#include "topology/counters.hpp"
#include "topology/placement.hpp"

namespace uts {

namespace {

template <StealProtocol P>
RunResult run_with(const Tree& tree, const EngineSettings& settings, const StopRule& stop, ProgressBoard& progress,
                   RemoteLink* link, const Placement* placed) {
  const int threads = settings.threads;
  // Placement first: the domain map reads the threads' binding.
  Placement own;
  if (!placed) own = place_team(settings.bind, threads);
  const Placement& placement = placed ? *placed : own;
  std::optional<DomainMap> domains;
  if (settings.uses_domains()) domains = build_domain_map(settings.locality.domains, threads);
  Shared<P> shared(threads, tree, settings, stop, progress, std::move(domains), link && link->ranks() > 1);
  shared.trace_capacity = settings.trace_events;
  tick::Span span;
  RunResult out;
  out.threads.resize(static_cast<std::size_t>(threads));
  out.places.resize(static_cast<std::size_t>(threads));
  std::vector<Counts> counts(static_cast<std::size_t>(threads));  // merged after the region
  std::vector<char> ended_empty(static_cast<std::size_t>(threads), 0);
  std::vector<std::uint64_t> last_work(static_cast<std::size_t>(threads), 0);
  std::vector<ThreadTrace> traces(settings.trace_events ? static_cast<std::size_t>(threads) : 0);
  std::vector<std::vector<std::int64_t>> counter_values(static_cast<std::size_t>(threads));
  std::atomic<int> counters_scaled{0};
  Clock::time_point start;
  int granted = threads;

  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
#pragma omp single
    granted = omp_get_num_threads();
    // Bound again here, before the worker's first touch: this region's
    // thread `id` need not be the one place_team() bound.
    placement.bind_again(id);
    ThreadCounters counters;  // --counters: opened by this thread, read around its run
    counters.open(settings.counters);
    // Each worker is allocated and first touched by its own thread. Out of
    // memory here is said in one line naming the option (nothing can be
    // unwound out of the region).
    Worker<P>* me = nullptr;
    try {
      me = new Worker<P>(shared.protocol, id);
    } catch (const std::bad_alloc&) {
      oom::fail("the state of " + std::to_string(threads) + " threads (--threads)");
    }
    if (shared.trace_capacity) {
      try {
        me->trace.events.reserve(shared.trace_capacity);  // before the run's start
      } catch (const std::bad_alloc&) {
        oom::fail("--trace-events " + std::to_string(shared.trace_capacity) + ": " + std::to_string(threads) +
                  (threads == 1 ? " thread's" : " threads'") + " trace buffers do not fit (give fewer events)");
      } catch (const std::length_error&) {
        oom::fail("--trace-events " + std::to_string(shared.trace_capacity) + ": more events than a buffer can hold");
      }
    }
    shared.workers[static_cast<std::size_t>(id)] = me;
#pragma omp barrier
    if (granted == threads) {
#pragma omp single
      {
        start = Clock::now();
        span.begin();
      }
      ThreadRun<P> run(id, threads, shared, link);
      try {
        counters.start();
        run.begin_timing(span.first_tick());
        run.seed_work();
#pragma omp barrier
        run.run();
        counters.stop();
      } catch (const std::bad_alloc&) {
        // Out of memory or a deque past 2^30 slots: no partial result could
        // be trusted, and the other threads cannot be unwound out of the
        // region, so say why (once, whichever threads fail) and leave at
        // once (exit status 3).
        oom::fail("the nodes waiting to be expanded no longer fit");
      } catch (const std::exception& e) {
        oom::fail(e.what());
      }
    }
#pragma omp barrier
#pragma omp single
    {
      // Across ranks, without thread 0's closing (it began once every
      // thread of the rank had ended).
      out.closing_seconds = shared.workers[0]->closing_seconds;
      out.seconds = seconds_since(start) - out.closing_seconds;
      span.end();
    }
    out.threads[static_cast<std::size_t>(id)] = me->stats;
    counts[static_cast<std::size_t>(id)] = me->counts;
    ended_empty[static_cast<std::size_t>(id)] = me->ended_empty;
    {
      // The thread's time in seconds, at the tick rate of the run's span.
      ThreadStats& st = out.threads[static_cast<std::size_t>(id)];
      const double tps = span.ticks_per_second();
      for (int p = 0; p < kPhases; ++p) st.time_phase[p] = double(me->phase_ticks[p]) / tps;
      st.time_total = double(me->total_ticks) / tps;
      last_work[static_cast<std::size_t>(id)] = me->last_work_end_tick;
      if (id == 0) out.finish_tick = me->finish_tick;
      if (shared.trace_capacity) traces[static_cast<std::size_t>(id)] = std::move(me->trace);
      bool scaled = false;
      std::vector<std::int64_t> v;
      for (const auto& c : counters.values(scaled)) v.push_back(c ? static_cast<std::int64_t>(*c) : -1);
      counter_values[static_cast<std::size_t>(id)] = std::move(v);
      if (scaled) counters_scaled.store(1, std::memory_order_relaxed);  // relaxed: read after the region
    }
    out.places[static_cast<std::size_t>(id)] = placement.sample();
#pragma omp barrier
    delete me;
  }
  for (const Counts& c : counts) out.counts.merge(c);
  for (std::uint64_t t : last_work) out.last_work_tick = std::max(out.last_work_tick, t);
  out.ticks_per_second = span.ticks_per_second();
  if (granted != threads)
    throw std::runtime_error("--threads " + std::to_string(threads) + ": OpenMP granted only " +
                             std::to_string(granted) + " threads (check OMP_THREAD_LIMIT)");
  // Complete when the run ended by its termination and no signal came
  // before that end (idle/termination.hpp: a signal may have cut a wait
  // short, a --remote-delay or a sleep, even with every node expanded; one
  // after the end leaves the run complete). Without that end the stop flag
  // says why the threads left: partial, except that in one process a
  // --max-nodes stop that came just as the last node was expanded (every
  // deque and expander ended empty, nothing given up) is complete. A
  // signal's stop is never excused so: it came before any end.
  bool all_empty = !shared.multi_rank;
  for (char e : ended_empty) all_empty = all_empty && e;
  if (shared.termination.done()) {
    if (const int sig = shared.termination.signal_at_end()) {
      out.status = RunStatus::interrupted;
      out.stop_signal = sig;
    }
  } else if (!all_empty || shared.stop_flag.signal() != 0) {
    out.status = shared.stop_flag.reason();
    out.stop_signal = shared.stop_flag.signal();
  }
  out.domains = shared.domains;
  out.rank_places = {placement.rank_place()};
  out.topology = placement.summary();
  for (const CounterRequest& c : settings.counters) out.counters.names.push_back(c.name);
  if (!settings.counters.empty()) out.counters.per_thread = std::move(counter_values);
  out.counters.scaled = counters_scaled.load(std::memory_order_relaxed);  // relaxed: read after the region
  if (settings.trace_events) {
    out.traces = std::move(traces);
    out.clocks = {TickCalibration{span.first_tick(), span.ticks_per_second()}};
  }
  return out;
}

}  // namespace

RunResult run_parallel(const Tree& tree, const EngineSettings& settings, const StopRule& stop,
                       ProgressBoard& progress, RemoteLink* link, const Placement* placement) {
  const int threads = settings.threads;
  // Checked up front: libomp would print its own warning and shrink the team.
  if (threads > omp_get_thread_limit())
    throw std::runtime_error("--threads " + std::to_string(threads) + ": OpenMP allows only " +
                             std::to_string(omp_get_thread_limit()) + (omp_get_thread_limit() == 1 ? " thread" : " threads") +
                             " (check OMP_THREAD_LIMIT)");
  return with_protocol(settings.protocol, [&]<StealProtocol P>() {
    return run_with<P>(tree, settings, stop, progress, link, placement);
  });
}

}  // namespace uts
