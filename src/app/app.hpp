// What main.cpp and the MPI entry (mpi_main.cpp) share: exit statuses, who
// speaks under mpirun, and the report of a tree traversal.
#pragma once

#include <string>

#include "app/output.hpp"
#include "cli/options.hpp"
#include "run/result.hpp"
#include "tree/tree.hpp"
#include "uts_build_config.hpp"

namespace uts::app {

// docs/output.md, section 6. A run stopped by a signal exits 128 + its number
// (130 SIGINT, 143 SIGTERM, 129 SIGHUP, 138 SIGUSR1, 140 SIGUSR2).
constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;
constexpr int kExitOutOfMemory = 3;
constexpr int kExitOutput = 4;
constexpr int kExitInterrupted = 130;  // a stop without a signal number (SIGINT's)

// Under mpirun every rank finds the same bad input; only rank 0 says so.
struct Voice {
  bool speaks = true;
  bool silent_rank_waits = false;  // under mpirun, before MPI started
  // One line on stderr (rank 0 only); returns `status` (kExitUsage).
  int error(const std::string& message, int status = kExitUsage) const;
  int usage_error(const std::string& message) const { return error(message, kExitUsage); }
};

// The exit status of a run that ended with `status` (and that signal).
int status_exit(RunStatus status, int stop_signal);

// Prints the record of a run on stdout and appends it to `record` (when
// open); returns the exit status. Throws OutputError.
int report_run(const cli::RunConfig& cfg, const RunResult& result, RecordFile& record);

#if UTS_HAVE_MPI
// This process is one rank of an MPI job: MPI starts, the ranks run, rank 0
// reports. Returns the exit status.
int run_as_rank(cli::RunConfig& cfg, const Tree& tree, bool progress, RecordFile& record, int& argc, char**& argv,
                Voice& voice);
#endif

}  // namespace uts::app
