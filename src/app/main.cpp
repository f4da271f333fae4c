// uts: Unbalanced Tree Search. Parses the command line, runs one traversal
// (or the pool workload), reports it. Exit status (docs/output.md, section
// 6): 0 success, 1 --verify mismatch, 2 bad usage or input, 3 out of memory,
// 130 interrupted. Started by mpirun (a build with -Dmpi), every rank runs
// this; rank 0 alone prints, bad input included.
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>

#include "app/app.hpp"
#include "app/progress.hpp"
#include "base/interrupt.hpp"
#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "cli/usage_error.hpp"
#include "distrib/launch.hpp"
#include "report/format.hpp"
#include "report/machine.hpp"
#include "report/pool_format.hpp"
#include "traversal/run.hpp"
#include "workload/pool.hpp"

namespace uts::app {

int Voice::usage_error(const std::string& message) const {
  if (speaks) std::fprintf(stderr, "uts: %s\n", message.c_str());
  // mpirun aborts the job when the first rank exits non-zero: the other
  // ranks give rank 0 time to print its line and be that first rank.
  else if (silent_rank_waits) std::this_thread::sleep_for(std::chrono::seconds(2));
  return kExitUsage;
}

void append_record(std::ofstream& record, cli::Format format, const std::string& json, const std::string& csv_header,
                   const std::string& csv_rows) {
  if (!record.is_open()) return;
  if (format == cli::Format::csv) {
    if (record.tellp() == 0) record << csv_header;
    record << csv_rows;
  } else {
    record << json;
  }
}

int report_run(const cli::RunConfig& cfg, const RunResult& result, std::ofstream& record) {
  if (result.truncations)
    std::fprintf(stderr, "*** Number of children truncated to the cap for %llu node(s)\n",
                 static_cast<unsigned long long>(result.truncations));

  const MachineInfo machine = collect_machine_info();
  std::optional<bool> verified;
  if (cfg.verify) verified = matches_expected(result, cfg.expected);
  const RunReport report{cfg.tree, cfg.engine, cfg.preset, result, cfg.expected, verified, machine};

  const std::string json = render_json(report), csv_row = render_csv_row(report);
  switch (cfg.format) {
    case cli::Format::text: std::cout << render_text(report, cfg.verbose); break;
    case cli::Format::json: std::cout << json; break;
    case cli::Format::csv: std::cout << csv_header() << csv_row; break;
  }
  std::cout.flush();
  append_record(record, cfg.format, json, csv_header(), csv_row);

  if (result.status == RunStatus::interrupted) return kExitInterrupted;
  if (verified && !*verified) {
    std::fprintf(stderr, "uts: --verify: result does not match the expected values\n");
    return kExitMismatch;
  }
  return kExitOk;
}

namespace {

void print_presets() {
  const auto presets = cli::list_presets();
  if (presets.empty()) {
    std::printf("no presets found (searched:");
    for (const auto& d : cli::preset_dirs()) std::printf(" %s", d.c_str());
    std::printf(")\n");
    return;
  }
  for (const auto& p : presets) std::printf("%-8s %s\n", p.name.c_str(), p.description.c_str());
}

// --workload pool: the concurrent-pools experiment. Exit 1 when an item was
// lost or duplicated (initial + added - removed != remaining).
int run_pool_workload(const cli::RunConfig& cfg, std::ofstream& record, const Voice& voice) {
  std::ofstream trace;
  if (!cfg.trace_file.empty()) {
    trace.open(cfg.trace_file, std::ios::trunc);
    if (!trace) return voice.usage_error("--trace: cannot open '" + cfg.trace_file + "' for writing");
  }
  if (cfg.pool.threads > omp_get_thread_limit())
    return voice.usage_error("--threads " + std::to_string(cfg.pool.threads) + ": OpenMP allows only " +
                             std::to_string(omp_get_thread_limit()) + " threads (check OMP_THREAD_LIMIT)");
  const PoolResult result = run_pool(cfg.pool);
  const MachineInfo machine = collect_machine_info();
  const std::string json = render_pool_json(cfg.pool, result, machine);
  const std::string csv_rows = render_pool_csv_rows(cfg.pool, result, machine);
  switch (cfg.format) {
    case cli::Format::text: std::cout << render_pool_text(cfg.pool, result, cfg.verbose); break;
    case cli::Format::json: std::cout << json; break;
    case cli::Format::csv: std::cout << pool_csv_header() << csv_rows; break;
  }
  std::cout.flush();
  append_record(record, cfg.format, json, pool_csv_header(), csv_rows);
  if (trace.is_open()) trace << render_pool_trace_csv(result);
  if (!result.conserved()) {
    std::fprintf(stderr, "uts: pool: items were lost or duplicated (initial + added - removed != remaining)\n");
    return kExitMismatch;
  }
  return kExitOk;
}

int run_main(int argc, char** argv) {
  const distrib::Launch launch = distrib::detect_launch();
  Voice voice{launch.rank == 0, launch.under_mpi};
  cli::RunConfig cfg;
  try {
    cfg = cli::parse_command_line(argc, argv, omp_get_max_threads());
  } catch (const cli::UsageError& e) {
    return voice.usage_error(e.what());
  }
  if (!voice.speaks && (cfg.show_help || cfg.show_version || cfg.show_presets)) return kExitOk;
  if (launch.ranks > 1) {
    if (!UTS_HAVE_MPI)
      return voice.usage_error("started as " + std::to_string(launch.ranks) +
                               " MPI ranks, but this uts was built without MPI (rebuild with meson -Dmpi=enabled)");
    if (cfg.workload == cli::Workload::pool)
      return voice.usage_error("--workload pool runs in one process, not as " + std::to_string(launch.ranks) +
                               " MPI ranks");
    if (cfg.engine.sequential)
      return voice.usage_error("--sequential runs in one process, not as " + std::to_string(launch.ranks) +
                               " MPI ranks");
  }
  if (cfg.show_help) {
    std::cout << cfg.help_text;
    return kExitOk;
  }
  if (cfg.show_version) {
    std::printf("uts %s, built %s MPI\n", collect_machine_info().uts_version.c_str(), UTS_HAVE_MPI ? "with" : "without");
    return kExitOk;
  }
  if (cfg.show_presets) {
    print_presets();
    return kExitOk;
  }

  // Open the record file before the run so a bad path costs nothing.
  std::ofstream record;
  if (!cfg.output_file.empty() && voice.speaks) {
    record.open(cfg.output_file, std::ios::app);
    if (!record) return voice.usage_error("--output: cannot open '" + cfg.output_file + "' for appending");
  }

  if (cfg.workload == cli::Workload::pool) return run_pool_workload(cfg, record, voice);

  interrupt::install();
  // Checked before the run: asking for SHA-NI on a CPU without it is bad input.
  const auto path = sha1::resolve(cfg.engine.sha1);
  if (!path) return voice.usage_error("--sha1 shani: this CPU has no SHA extensions (use auto or cryptopp)");
  cfg.engine.sha1 = *path;
  const Tree tree(cfg.tree, *path);
  const bool progress = cfg.progress == cli::Progress::on ||
                        (cfg.progress == cli::Progress::automatic && isatty(fileno(stderr)));
#if UTS_HAVE_MPI
  if (launch.under_mpi) return run_as_rank(cfg, tree, progress, record, argc, argv, voice);
#endif
  RunResult result;
  try {
    ProgressBoard board(cfg.engine.sequential ? 1 : cfg.engine.threads);
    std::unique_ptr<ProgressReporter> reporter;
    if (progress) reporter = std::make_unique<ProgressReporter>(board);
    result = run(tree, cfg.engine, cfg.stop, board);
  } catch (const std::exception& e) {  // e.g. OMP_THREAD_LIMIT below --threads
    return voice.usage_error(e.what());
  }
  return report_run(cfg, result, record);
}

}  // namespace

}  // namespace uts::app

int main(int argc, char** argv) { return uts::app::run_main(argc, argv); }
