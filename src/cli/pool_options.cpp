// The workload section of the command line: --workload pool and its
// options, and --trace, --counters and --work-baseline, whose meaning
// depends on the workload.
#include <cxxopts.hpp>

#include <algorithm>
#include <exception>
#include <string>

#include "cli/convert.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"
#include "report/trace_otf2.hpp"
#include "steal/registry.hpp"
#include "topology/counters.hpp"

namespace uts::cli {

// --workload pool and its options (checked on the merged command line and
// files: they depend on --threads and each other).
void fill_pool(const cxxopts::ParseResult& r, RunConfig& cfg) {
  static const char* const kPoolOnly[] = {"ops", "fill", "trials", "mix", "producers", "arrangement"};
  const std::string workload = value_of<std::string>(r, "workload");
  if (workload == "uts") cfg.workload = Workload::uts;
  else if (workload == "pool") cfg.workload = Workload::pool;
  else throw UsageError("--workload: '" + workload + "' is not uts or pool");
  if (r.count("trace")) {
    cfg.trace_file = value_of<std::string>(r, "trace");
    if (cfg.trace_file.empty()) throw UsageError("--trace: empty file name");
  }
  if (cfg.workload == Workload::uts) {
    for (const char* key : kPoolOnly)
      if (r.count(key)) throw UsageError(std::string("--") + key + " applies only to --workload pool");
    // The event trace (docs/trace.md): Chrome/Perfetto JSON, or an OTF2
    // archive (a folder; "run.otf2/" is "run.otf2").
    if (!cfg.trace_file.empty()) {
      const std::string& f = cfg.trace_file;
      const bool json = f.size() >= 5 && f.compare(f.size() - 5, 5, ".json") == 0;
      if (!json && !is_otf2_path(f))
        throw UsageError("--trace " + f +
                         ": name the trace *.json (Chrome/Perfetto trace JSON) or *.otf2 (an OTF2 archive folder)");
      if (!json && !otf2_available())
        throw UsageError("--trace " + f + ": this uts was built without OTF2 (rebuild with libotf2-trace-dev " +
                         "installed, or name a *.json trace)");
      cfg.engine.trace_events = 262144;
      if (r.count("trace-events"))
        cfg.engine.trace_events = static_cast<std::size_t>(int_in_range(r, "trace-events", 1, 100000000));
    } else if (r.count("trace-events")) {
      throw UsageError("--trace-events applies only with --trace FILE");
    }
    if (r.count("counters")) {
      const std::string list = value_of<std::string>(r, "counters");
      std::size_t start = 0;
      while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string name = list.substr(start, comma - start);
        const auto spec = find_counter(name);
        if (!spec) throw UsageError("--counters: '" + name + "' is not one of " + counter_names());
        for (const CounterRequest& c : cfg.counters_wanted)
          if (c.name == name) throw UsageError("--counters: '" + name + "' named twice");
        cfg.counters_wanted.push_back(*spec);
        start = comma + 1;
      }
    }
    if (r.count("work-baseline")) {
      const std::string b = value_of<std::string>(r, "work-baseline");
      if (b == "sequential") {
        if (cfg.engine.sequential) throw UsageError("--work-baseline sequential does not apply to --sequential");
        if (cfg.stop.max_nodes != 0)
          throw UsageError("--work-baseline sequential and --max-nodes do not go together (the baseline must be the "
                           "whole tree)");
        cfg.work_baseline_sequential = true;
      } else {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(b, &used);
          if (used != b.size()) v = -1;
        } catch (const std::exception&) {
          v = -1;
        }
        if (!(v > 0) || v > 1e9) throw UsageError("--work-baseline: '" + b + "' is not sequential or a time in seconds > 0");
        cfg.work_baseline = v;
      }
    }
    return;
  }
  for (const char* key : {"trace-events", "work-baseline", "counters"})
    if (r.count(key)) throw UsageError(std::string("--") + key + " does not apply to --workload pool");
  if (const std::string& f = cfg.trace_file;
      (f.size() >= 5 && f.compare(f.size() - 5, 5, ".json") == 0) || is_otf2_path(f))
    throw UsageError("--trace " + f + ": the pool's trace is CSV (segment sizes over time): name it *.csv");
  const EngineSettings& e = cfg.engine;
  if (e.sequential) throw UsageError("--workload pool and --sequential do not go together (the pool is parallel)");
  if (e.protocol != SplitProtocol::traits.name)
    throw UsageError("--workload pool and --protocol " + e.protocol +
                     " do not go together: the pool's segments are split deques");
  if (e.victim == VictimOrder::hier)
    throw UsageError("--workload pool and --victim hier do not go together (use linear, random or tree)");
  PoolSettings& p = cfg.pool;
  p.threads = e.threads;
  p.steal = e.steal;
  p.bind = e.bind;
  p.victim = e.victim;
  p.remote_delay_ns = e.locality.remote_delay_ns;
  p.seed = static_cast<std::uint64_t>(cfg.tree.seed);
  if (r.count("ops")) p.ops = static_cast<std::uint64_t>(int_in_range(r, "ops", 1, 1000000000));
  if (r.count("fill")) p.fill = static_cast<std::uint64_t>(int_in_range(r, "fill", 0, 1000000000));
  if (r.count("trials")) p.trials = static_cast<int>(int_in_range(r, "trials", 1, 1000000));
  if (r.count("mix") && r.count("producers"))
    throw UsageError("--mix and --producers do not go together (the random model or the producer/consumer model)");
  if (r.count("mix")) p.mix = static_cast<int>(int_in_range(r, "mix", 0, 100));
  if (r.count("producers")) {
    const std::int64_t k = value_of<std::int64_t>(r, "producers");
    if (k < 1 || k > e.threads)
      throw UsageError("--producers " + std::to_string(k) + ": must be from 1 to --threads (" +
                       std::to_string(e.threads) + ")");
    p.producers = static_cast<int>(k);
  }
  if (r.count("arrangement")) {
    if (!p.producers) throw UsageError("--arrangement applies only with --producers K");
    const std::string a = value_of<std::string>(r, "arrangement");
    if (a == "contiguous") p.arrangement = Arrangement::contiguous;
    else if (a == "spread") p.arrangement = Arrangement::spread;
    else throw UsageError("--arrangement: '" + a + "' is not contiguous or spread");
  }
}

}  // namespace uts::cli
