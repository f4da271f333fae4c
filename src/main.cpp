// uts: Unbalanced Tree Search. Parses the command line, runs one traversal,
// reports it. Exit status: 0 success, 1 --verify mismatch, 2 bad usage or
// input, 130 interrupted.
#include <omp.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "cli/usage_error.hpp"
#include "report/format.hpp"
#include "report/machine.hpp"
#include "report/pool_format.hpp"
#include "traversal/run.hpp"
#include "util/interrupt.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "uts: %s\n", message.c_str());
  return kExitUsage;
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
  uts::cli::RunConfig cfg;
  try {
    cfg = uts::cli::parse_command_line(argc, argv, omp_get_max_threads());
  } catch (const uts::cli::UsageError& e) {
    return usage_error(e.what());
  }
  if (cfg.show_help) {
    std::cout << cfg.help_text;
    return kExitOk;
  }
  if (cfg.show_version) {
    std::printf("uts %s\n", uts::collect_machine_info().uts_version.c_str());
    return kExitOk;
  }
  if (cfg.show_presets) {
    print_presets();
    return kExitOk;
  }

  // Open the record file before the run so a bad path costs nothing.
  std::ofstream record;
  if (!cfg.output_file.empty()) {
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
  uts::RunResult result;
  try {
    result = uts::run(tree, cfg.engine, cfg.stop, progress);
  } catch (const std::exception& e) {  // e.g. OMP_THREAD_LIMIT below --threads
    return usage_error(e.what());
  }

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
