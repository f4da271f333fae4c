// The command line: reference UTS single-letter flags plus long options,
// preset and config files underneath (the command line wins).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "run/result.hpp"
#include "run/settings.hpp"
#include "run/status.hpp"
#include "tree/params.hpp"
#include "workload/pool_types.hpp"

namespace uts::cli {

enum class Format { text, json, csv };
enum class Progress { automatic, on, off };
enum class Workload { uts, pool };

struct RunConfig {
  TreeParams tree;
  EngineSettings engine;
  StopRule stop;
  ExpectedResults expected;
  std::string preset;       // the preset the tree is (--preset), empty if none or if tree options changed it
  std::string preset_base;  // --preset whose tree options were changed: the preset the run started from
  std::vector<std::string> command_line;  // argv as given
  std::string config_file;  // path given with --config, empty if none
  bool verify = false;
  Format format = Format::text;
  std::string output_file;
  int verbose = 0;
  Progress progress = Progress::automatic;

  bool show_help = false;
  bool show_version = false;
  bool show_presets = false;
  bool show_schedulers = false;  // --list-schedulers
  std::string help_text;

  Workload workload = Workload::uts;  // --workload
  PoolSettings pool;                  // --workload pool
  std::string trace_file;             // --trace: the event trace (JSON), or the pool's segment sizes (CSV)
  bool work_baseline_sequential = false;  // --work-baseline sequential
  std::optional<double> work_baseline;    // --work-baseline SECONDS
  std::vector<CounterRequest> counters_wanted;  // --counters, before the machine is asked
  std::string counters_unavailable;             // those it does not allow, and why (app/main.cpp)

  std::set<std::string> given;       // the options given on the command line (long names)
  std::vector<std::string> ignored;  // options a file set that do not apply to this run (applicability.cpp)
  std::string threads_from;          // where the thread count came from ("--threads", "OMP_NUM_THREADS", ...)
};

// The thread count when --threads is not given: OMP_NUM_THREADS (checked as
// --threads is: 1 to 4096), else every core; clamped to the runtime's thread
// limit (OMP_THREAD_LIMIT), which `source` then says.
struct ThreadDefault {
  int threads = 1;
  std::string source = "default";
  int limit = 1 << 30;  // the runtime's thread limit
};
// Reads the environment and the OpenMP runtime; throws UsageError for a
// malformed OMP_NUM_THREADS or OMP_THREAD_LIMIT.
ThreadDefault thread_default();

// Throws UsageError (one line, naming the option or file:line) on bad input.
RunConfig parse_command_line(int argc, const char* const* argv, const ThreadDefault& threads);
inline RunConfig parse_command_line(int argc, const char* const* argv, int default_threads) {
  return parse_command_line(argc, argv, ThreadDefault{default_threads, "default", 1 << 30});
}

const char* to_string(Format f);

}  // namespace uts::cli
