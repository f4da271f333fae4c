// The command line: reference UTS single-letter flags plus long options,
// preset and config files underneath (the command line wins).
#pragma once

#include <string>

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
  std::string preset;       // name given with --preset, empty if none
  std::string config_file;  // path given with --config, empty if none
  bool verify = false;
  Format format = Format::text;
  std::string output_file;
  int verbose = 0;
  Progress progress = Progress::automatic;

  bool show_help = false;
  bool show_version = false;
  bool show_presets = false;
  std::string help_text;

  Workload workload = Workload::uts;  // --workload
  PoolSettings pool;                  // --workload pool
  std::string trace_file;             // --trace: the pool's segment-size samples (CSV)
};

// Throws UsageError (one line, naming the option or file:line) on bad input.
RunConfig parse_command_line(int argc, const char* const* argv, int default_threads);

const char* to_string(Format f);

}  // namespace uts::cli
