// uts: Unbalanced Tree Search. Parses the command line, runs one traversal,
// reports it. Exit status: 0 success, 1 --verify mismatch, 2 bad usage or
// input, 130 interrupted. Started by mpirun (a build with -Dmpi), every rank
// runs this; rank 0 alone prints, bad input included.
#include <omp.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "cli/usage_error.hpp"
#include "distrib/launch.hpp"
#include "report/format.hpp"
#include "report/machine.hpp"
#include "report/pool_format.hpp"
#include "traversal/run.hpp"
#include "util/interrupt.hpp"
#include "uts_build_config.hpp"
#if UTS_HAVE_MPI
#include "distrib/mpi_run.hpp"
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;

// Under mpirun every rank finds the same bad input; only rank 0 says so.
bool g_speaks = true;
bool g_silent_rank_waits = false;  // under mpirun, before MPI started

int usage_error(const std::string& message) {
  if (g_speaks) std::fprintf(stderr, "uts: %s\n", message.c_str());
  // mpirun aborts the job when the first rank exits non-zero: the other
  // ranks give rank 0 time to print its line and be that first rank.
  else if (g_silent_rank_waits) std::this_thread::sleep_for(std::chrono::seconds(2));
  return kExitUsage;
}

// The report of a tree traversal, on stdout and in the --output record.
int report_run(const uts::cli::RunConfig& cfg, const uts::RunResult& result, std::ofstream& record) {
  if (result.truncations)
    std::fprintf(stderr, "*** Number of children truncated to the cap for %llu node(s)\n",
                 static_cast<unsigned long long>(result.truncations));

  const uts::MachineInfo machine = uts::collect_machine_info();
  std::optional<bool> verified;
  if (cfg.verify) verified = uts::matches_expected(result, cfg.expected);
  const uts::RunReport report{cfg.tree, cfg.engine, cfg.preset, result, cfg.expected, verified, machine};

  switch (cfg.format) {
    case uts::cli::Format::text: std::cout << uts::render_text(report, cfg.verbose); break;
    case uts::cli::Format::json: std::cout << uts::render_json(report); break;
    case uts::cli::Format::csv: std::cout << uts::csv_header() << uts::render_csv_row(report); break;
  }
  std::cout.flush();
  if (record.is_open()) {
    if (cfg.format == uts::cli::Format::csv) {
      if (record.tellp() == 0) record << uts::csv_header();
      record << uts::render_csv_row(report);
    } else {
      record << uts::render_json(report);
    }
  }

  if (result.status == uts::RunStatus::interrupted) return kExitInterrupted;
  if (verified && !*verified) {
    std::fprintf(stderr, "uts: --verify: result does not match the expected values\n");
    return kExitMismatch;
  }
  return kExitOk;
}

void print_presets() {
  const auto presets = uts::cli::list_presets();
  if (presets.empty()) {
    std::printf("no presets found (searched:");
    for (const auto& d : uts::cli::preset_dirs()) std::printf(" %s", d.c_str());
    std::printf(")\n");
    return;
  }
  for (const auto& p : presets) std::printf("%-8s %s\n", p.name.c_str(), p.description.c_str());
}

// --workload pool: the concurrent-pools experiment. Exit 1 when an item was
// lost or duplicated (initial + added - removed != remaining).
int run_pool_workload(const uts::cli::RunConfig& cfg, std::ofstream& record) {
  std::ofstream trace;
  if (!cfg.trace_file.empty()) {
    trace.open(cfg.trace_file, std::ios::trunc);
    if (!trace) return usage_error("--trace: cannot open '" + cfg.trace_file + "' for writing");
  }
  if (cfg.pool.threads > omp_get_thread_limit())
    return usage_error("--threads " + std::to_string(cfg.pool.threads) + ": OpenMP allows only " +
                       std::to_string(omp_get_thread_limit()) + " threads (check OMP_THREAD_LIMIT)");
  const uts::PoolResult result = uts::run_pool(cfg.pool);
  const uts::MachineInfo machine = uts::collect_machine_info();
  switch (cfg.format) {
    case uts::cli::Format::text: std::cout << uts::render_pool_text(cfg.pool, result, cfg.verbose); break;
    case uts::cli::Format::json: std::cout << uts::render_pool_json(cfg.pool, result, machine); break;
    case uts::cli::Format::csv: std::cout << uts::pool_csv_header() << uts::render_pool_csv_rows(cfg.pool, result, machine); break;
  }
  std::cout.flush();
  if (record.is_open()) {
    if (cfg.format == uts::cli::Format::csv) {
      if (record.tellp() == 0) record << uts::pool_csv_header();
      record << uts::render_pool_csv_rows(cfg.pool, result, machine);
    } else {
      record << uts::render_pool_json(cfg.pool, result, machine);
    }
  }
  if (trace.is_open()) trace << uts::render_pool_trace_csv(result);
  if (!result.conserved()) {
    std::fprintf(stderr, "uts: pool: items were lost or duplicated (initial + added - removed != remaining)\n");
    return kExitMismatch;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const uts::distrib::Launch launch = uts::distrib::detect_launch();
  g_speaks = launch.rank == 0;
  g_silent_rank_waits = launch.under_mpi;
  uts::cli::RunConfig cfg;
  try {
    cfg = uts::cli::parse_command_line(argc, argv, omp_get_max_threads());
  } catch (const uts::cli::UsageError& e) {
    return usage_error(e.what());
  }
  if (!g_speaks && (cfg.show_help || cfg.show_version || cfg.show_presets)) return kExitOk;
  if (launch.ranks > 1) {
    if (!UTS_HAVE_MPI)
      return usage_error("started as " + std::to_string(launch.ranks) +
                         " MPI ranks, but this uts was built without MPI (rebuild with meson -Dmpi=enabled)");
    if (cfg.workload == uts::cli::Workload::pool)
      return usage_error("--workload pool runs in one process, not as " + std::to_string(launch.ranks) + " MPI ranks");
    if (cfg.engine.sequential)
      return usage_error("--sequential runs in one process, not as " + std::to_string(launch.ranks) + " MPI ranks");
  }
  if (cfg.show_help) {
    std::cout << cfg.help_text;
    return kExitOk;
  }
  if (cfg.show_version) {
    std::printf("uts %s, built %s MPI\n", uts::collect_machine_info().uts_version.c_str(),
                UTS_HAVE_MPI ? "with" : "without");
    return kExitOk;
  }
  if (cfg.show_presets) {
    print_presets();
    return kExitOk;
  }

  // Open the record file before the run so a bad path costs nothing.
  std::ofstream record;
  if (!cfg.output_file.empty() && g_speaks) {
    record.open(cfg.output_file, std::ios::app);
    if (!record) return usage_error("--output: cannot open '" + cfg.output_file + "' for appending");
  }

  if (cfg.workload == uts::cli::Workload::pool) return run_pool_workload(cfg, record);

  uts::interrupt::install();
  // Checked before the run: asking for SHA-NI on a CPU without it is bad input.
  const auto path = uts::sha1::resolve(cfg.engine.sha1);
  if (!path) return usage_error("--sha1 shani: this CPU has no SHA extensions (use auto or cryptopp)");
  cfg.engine.sha1 = *path;
  const uts::Tree tree(cfg.tree, *path);
  const bool progress = cfg.progress == uts::cli::Progress::on ||
                        (cfg.progress == uts::cli::Progress::automatic && isatty(fileno(stderr)));
#if UTS_HAVE_MPI
  if (launch.under_mpi) {
    uts::distrib::MpiSession session(argc, argv);
    if (!session.ok()) return usage_error("MPI could not start with MPI_THREAD_FUNNELED");
    cfg.engine.mpi = true;
    cfg.engine.rank = session.rank();
    cfg.engine.ranks = session.ranks();
    g_speaks = session.rank() == 0;
    g_silent_rank_waits = false;  // from here every rank returns and finalises
    uts::RunResult result;
    int code = kExitOk;
    try {
      result = uts::distrib::run_ranks(tree, cfg.engine, cfg.stop, progress);
      if (g_speaks) code = report_run(cfg, result, record);
      else code = result.status == uts::RunStatus::interrupted ? kExitInterrupted : kExitOk;
    } catch (const std::exception& e) {  // the same on every rank (e.g. OMP_THREAD_LIMIT)
      code = usage_error(e.what());
    }
    // mpirun ends the job when the first rank exits non-zero: nobody leaves
    // before rank 0 has printed.
    session.barrier();
    return code;
  }
#endif
  uts::RunResult result;
  try {
    result = uts::run(tree, cfg.engine, cfg.stop, progress);
  } catch (const std::exception& e) {  // e.g. OMP_THREAD_LIMIT below --threads
    return usage_error(e.what());
  }
  return report_run(cfg, result, record);
}
