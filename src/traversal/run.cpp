// One traversal in this process: the sequential baseline or the scheduler
// the settings name (the engine's own, or a runtime's), with placement,
// counters and the trace around it.
#include "traversal/run.hpp"

#include <stdexcept>

#include "base/tick.hpp"
#include "schedulers/registry.hpp"
#include "topology/counters.hpp"
#include "topology/placement.hpp"
#include "traversal/sequential.hpp"

namespace uts {

RunResult run(const Tree& tree, const EngineSettings& engine, const StopRule& stop, ProgressBoard& progress) {
  if (!engine.sequential) {
    // The scheduler --scheduler names (schedulers/registry.cpp; the command
    // line checked the name): `uts` is the engine's run_parallel.
    const SchedulerEntry* scheduler = find_scheduler(engine.scheduler.name);
    if (!scheduler) throw std::runtime_error("--scheduler " + engine.scheduler.name + ": not in this build");
    RunResult r = scheduler->run(tree, engine, stop, progress);
    r.truncations = tree.truncations();
    return r;
  }
  // The sequential baseline runs on this thread: placed as thread 0 of 1.
  const Placement placement = place_team(engine.bind, 1);
  placement.bind_again(0);
  ThreadCounters counters;
  counters.open(engine.counters);
  tick::Span span;
  counters.start();
  span.begin();
  RunResult r = run_sequential(tree, stop, &progress);
  span.end();
  counters.stop();
  for (const CounterRequest& c : engine.counters) r.counters.names.push_back(c.name);
  if (!engine.counters.empty()) {
    std::vector<std::int64_t> v;
    for (const auto& c : counters.values(r.counters.scaled)) v.push_back(c ? static_cast<std::int64_t>(*c) : -1);
    r.counters.per_thread = {std::move(v)};
  }
  // One thread, all work (docs/trace.md): the breakdown is the run's time.
  if (!r.threads.empty()) {
    r.threads[0].time_phase[static_cast<int>(Phase::work)] = r.seconds;
    r.threads[0].time_total = r.seconds;
  }
  if (engine.trace_events) {
    const std::uint64_t end = span.first_tick() + static_cast<std::uint64_t>(r.seconds * span.ticks_per_second());
    ThreadTrace t;
    t.events.push_back(TraceEvent{span.first_tick(), span.first_tick(), -1, 0, TraceEvent::state, 0});
    t.events.push_back(TraceEvent{end, end, -1, 0, TraceEvent::state, 255});
    r.traces = {std::move(t)};
    r.clocks = {TickCalibration{span.first_tick(), span.ticks_per_second()}};
  }
  r.places = {placement.sample()};
  r.rank_places = {placement.rank_place()};
  r.topology = placement.summary();
  r.truncations = tree.truncations();
  return r;
}

}  // namespace uts
