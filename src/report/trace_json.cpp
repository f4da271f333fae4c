// The event trace as Chrome/Perfetto trace JSON (trace_json.hpp): state
// intervals, steal attempts and their arrows, wake-ups, MPI events.
#include "report/trace_json.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "base/tick.hpp"
#include "report/format.hpp"
#include "report/text_util.hpp"
#include "run/trace.hpp"
#include "steal/registry.hpp"

namespace uts {

namespace {

// Microseconds since the rank's start, 3 decimals (ns).
struct TraceClock {
  TickCalibration c;
  // Rounded to the nanosecond, so that an interval's start plus its
  // duration is the next one's start, as written.
  double us(std::uint64_t t) const {
    const double d = t >= c.start_tick ? double(t - c.start_tick) : -double(c.start_tick - t);
    return std::nearbyint(d / c.ticks_per_second * 1e9) / 1e3;
  }
};

std::string us_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace

std::string render_trace_json(const RunReport& r) {
  const RunResult& res = r.result;
  const int per_rank = r.engine.sequential ? 1 : r.engine.threads;
  const int ranks = r.engine.sequential ? 1 : r.engine.ranks.count;
  std::ostringstream s;
  s << "{\"traceEvents\":[";
  bool first = true;
  auto sep = [&]() -> std::ostringstream& {
    s << (first ? "\n" : ",\n");
    first = false;
    return s;
  };
  for (int k = 0; k < ranks; ++k)
    sep() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << k << ",\"args\":{\"name\":\"rank " << k << "\"}}";
  std::uint64_t steals = 0, nodes_stolen = 0, flow = 0;
  for (std::size_t i = 0; i < res.traces.size(); ++i) {
    const int pid = static_cast<int>(i) / per_rank, tid = static_cast<int>(i) % per_rank;
    const TraceClock clk{res.clocks.empty() ? TickCalibration{}
                                         : res.clocks[std::min<std::size_t>(static_cast<std::size_t>(pid),
                                                                            res.clocks.size() - 1)]};
    sep() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
          << ",\"args\":{\"name\":\"thread " << tid << "\"}}";
    const auto& ev = res.traces[i].events;
    // State intervals: from each state event to the next one.
    const TraceEvent* open = nullptr;
    for (const TraceEvent& e : ev) {
      if (e.kind != TraceEvent::state) continue;
      if (open && open->detail != 255) {
        const double a = clk.us(open->t0), b = clk.us(e.t0);
        if (b > a)
          sep() << "{\"ph\":\"X\",\"cat\":\"state\",\"name\":\"" << state_name(open->detail) << "\",\"ts\":" << us_text(a)
                << ",\"dur\":" << us_text(b - a) << ",\"pid\":" << pid << ",\"tid\":" << tid << "}";
      }
      open = &e;
    }
    for (const TraceEvent& e : ev) {
      switch (e.kind) {
        case TraceEvent::state: break;
        case TraceEvent::steal: {
          const double a = clk.us(e.t0), b = clk.us(e.t1);
          sep() << "{\"ph\":\"X\",\"cat\":\"steal\",\"name\":\"steal\",\"ts\":" << us_text(a)
                << ",\"dur\":" << us_text(b > a ? b - a : 0) << ",\"pid\":" << pid << ",\"tid\":" << tid
                << ",\"args\":{\"victim_rank\":" << pid << ",\"victim_thread\":" << e.peer << ",\"outcome\":\""
                << outcome_name(e.detail) << "\",\"nodes\":" << e.count << "}}";
          if (e.detail == TraceEvent::success) {
            ++steals;
            nodes_stolen += e.count;
            ++flow;
            // At the middle of the steal, so that the arrow's end binds to the
            // steal slice (at its end, a viewer may take the next slice).
            const double mid = std::nearbyint((a + (b > a ? b - a : 0) / 2) * 1e3) / 1e3;
            sep() << "{\"ph\":\"s\",\"cat\":\"steal\",\"name\":\"steal\",\"id\":" << flow << ",\"ts\":" << us_text(mid)
                  << ",\"pid\":" << pid << ",\"tid\":" << e.peer << "}";
            sep() << "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"steal\",\"name\":\"steal\",\"id\":" << flow
                  << ",\"ts\":" << us_text(mid) << ",\"pid\":" << pid << ",\"tid\":" << tid << "}";
          }
          break;
        }
        case TraceEvent::wake:
          sep() << "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"wake\",\"name\":\"wake\",\"ts\":" << us_text(clk.us(e.t0))
                << ",\"pid\":" << pid << ",\"tid\":" << tid << ",\"args\":{\"target_thread\":" << e.peer << "}}";
          break;
        case TraceEvent::global:
          sep() << "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"global\",\"name\":\"" << global_name(e.detail)
                << "\",\"ts\":" << us_text(clk.us(e.t0)) << ",\"pid\":" << pid << ",\"tid\":" << tid
                << ",\"args\":{\"peer_rank\":" << e.peer << ",\"nodes\":" << e.count << "}}";
          break;
      }
    }
  }
  // (No displayTimeUnit: some Perfetto versions read "ns" as the unit of ts.)
  s << "\n],\"otherData\":{\"uts_version\":" << fmt::json_string(r.machine.uts_version)
    << ",\"commit\":" << fmt::json_string(r.machine.commit) << ",\"tree\":" << fmt::json_string(to_string(r.tree.type))
    << ",\"preset\":" << (r.preset.empty() ? std::string("null") : fmt::json_string(r.preset))
    << ",\"protocol\":" << (r.engine.sequential ? std::string("null") : fmt::json_string(r.engine.protocol))
    << ",\"engine\":\"" << (r.engine.sequential ? "sequential" : "parallel") << "\",\"threads\":" << per_rank
    << ",\"ranks\":" << ranks << ",\"events_per_thread\":" << r.engine.trace_events << ",\"recorded\":[";
  for (std::size_t i = 0; i < res.traces.size(); ++i) s << (i ? "," : "") << res.traces[i].events.size();
  s << "],\"dropped\":[";
  for (std::size_t i = 0; i < res.traces.size(); ++i) s << (i ? "," : "") << res.traces[i].dropped;
  s << "],\"steals\":" << steals << ",\"nodes_stolen\":" << nodes_stolen << ",\"clock\":\"" << tick::source()
    << "\",\"seconds\":" << fmt::num(res.seconds) << ",\"size\":" << res.counts.nodes
    << ",\"cores\":" << res.topology.cores << ",\"pus\":" << res.topology.pus
    << ",\"topology\":" << fmt::json_string(res.topology.text());
  if (res.domains) {
    s << ",\"domains\":[";
    for (std::size_t i = 0; i < res.domains->of_thread.size(); ++i) s << (i ? "," : "") << res.domains->of_thread[i];
    s << "]";
  }
  s << "}}\n";
  return s.str();
}

}  // namespace uts
