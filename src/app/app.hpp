// What main.cpp and the MPI entry (mpi_main.cpp) share: exit statuses, who
// speaks under mpirun, and the report of a tree traversal.
#pragma once

#include <fstream>
#include <string>

#include "cli/options.hpp"
#include "run/result.hpp"
#include "tree/tree.hpp"
#include "uts_build_config.hpp"

namespace uts::app {

// docs/output.md, section 6.
constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;

// Under mpirun every rank finds the same bad input; only rank 0 says so.
struct Voice {
  bool speaks = true;
  bool silent_rank_waits = false;  // under mpirun, before MPI started
  // One line on stderr (rank 0 only); returns kExitUsage.
  int usage_error(const std::string& message) const;
};

// Prints the record of a run on stdout and appends it to `record` (when
// open); returns the exit status.
int report_run(const cli::RunConfig& cfg, const RunResult& result, std::ofstream& record);

// Appends a record to --output: JSON, or CSV under one header.
void append_record(std::ofstream& record, cli::Format format, const std::string& json, const std::string& csv_header,
                   const std::string& csv_rows);

#if UTS_HAVE_MPI
// This process is one rank of an MPI job: MPI starts, the ranks run, rank 0
// reports. Returns the exit status.
int run_as_rank(cli::RunConfig& cfg, const Tree& tree, bool progress, std::ofstream& record, int& argc, char**& argv,
                Voice& voice);
#endif

}  // namespace uts::app
