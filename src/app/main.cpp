// uts: Unbalanced Tree Search. Parses the command line, runs one traversal
// (or the pool workload), reports it. Exit status (docs/output.md, section
// 6): 0 success, 1 --verify mismatch (or the pool lost an item), 2 bad usage
// or input, 3 out of memory, 4 the results could not be written, 128 + N
// stopped by signal N. Started by mpirun (a build with -Dmpi), every rank
// runs this; rank 0 alone prints, bad input included.
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>

#include "app/app.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/runtime_env.hpp"
#include "base/interrupt.hpp"
#include "base/printable.hpp"
#include "base/out_of_memory.hpp"
#include "base/process_memory.hpp"
#include "base/simulated.hpp"
#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "cli/usage_error.hpp"
#include "distrib/launch.hpp"
#include "report/format.hpp"
#include "report/batch.hpp"
#include "report/machine.hpp"
#include "report/pool_format.hpp"
#include "report/trace_json.hpp"
#include "report/trace_otf2.hpp"
#include "schedulers/registry.hpp"
#include "topology/counters.hpp"
#include "traversal/run.hpp"
#include "workload/pool.hpp"

namespace uts::app {

int Voice::error(const std::string& message, int status) const {
  // Every line through printable_line: a message may quote a user's value,
  // and one raw newline in it would forge a second "uts:" line.
  if (speaks) std::fprintf(stderr, "uts: %s\n", printable_line(message).c_str());
  // mpirun aborts the job when the first rank exits non-zero: the other
  // ranks give rank 0 time to print its line and be that first rank.
  else if (silent_rank_waits) std::this_thread::sleep_for(std::chrono::seconds(2));
  return status;
}

int status_exit(RunStatus status, int stop_signal) {
  if (status != RunStatus::interrupted) return kExitOk;
  return stop_signal > 0 ? 128 + stop_signal : kExitInterrupted;
}

int report_run(const cli::RunConfig& cfg, const RunResult& result, RecordFile& record) {
  if (result.truncations)
    std::fprintf(stderr, "*** Number of children truncated to the cap for %llu node(s)\n",
                 static_cast<unsigned long long>(result.truncations));

  const MachineInfo machine = collect_machine_info();
  RunReport report{cfg.tree, cfg.engine, cfg.preset, result, cfg.expected, std::nullopt, machine};
  report.preset_base = cfg.preset_base;
  report.work_baseline = cfg.work_baseline;
  report.counters_asked = !cfg.counters_wanted.empty();
  report.counters_unavailable = cfg.counters_unavailable;
  report.command_line = cfg.command_line;
  report.ignored = cfg.ignored;
  report.threads_from = cfg.threads_from;
  // A partial run cannot be verified: it says so and keeps its own status.
  if (cfg.verify && result.status == RunStatus::complete) report.verified = matches_expected(result, cfg.expected);
  if (cfg.verify && result.status != RunStatus::complete) report.verify_skipped = true;

  const std::string json = render_json(report), csv_row = render_csv_row(report);
  if (!record.to_stdout()) {
    switch (cfg.format) {
      case cli::Format::text: write_stdout(render_text(report, cfg.verbose)); break;
      case cli::Format::json: write_stdout(json); break;
      case cli::Format::csv: write_stdout(csv_header() + csv_row); break;
    }
  }
  record.append(json, csv_row);
  if (!cfg.trace_file.empty()) {
    if (is_otf2_path(cfg.trace_file)) {
      try {
        write_trace_otf2(report, cfg.trace_file);
      } catch (const Otf2Error& e) {
        throw OutputError(e.what());
      }
    } else {
      std::unique_ptr<WholeFile> trace;
      try {
        trace = std::make_unique<WholeFile>(cfg.trace_file);
      } catch (const cli::UsageError& e) {  // after the run: an output error, not bad usage
        throw OutputError(std::string("--trace: ") + e.what());
      }
      trace->write(render_trace_json(report));
    }
  }

  if (result.status == RunStatus::interrupted) return status_exit(result.status, result.stop_signal);
  if (report.verified && !*report.verified) {
    std::fprintf(stderr, "uts: --verify: result does not match the expected values\n");
    return kExitMismatch;
  }
  return kExitOk;
}

namespace {

// libgomp creates a team's threads at its first parallel region and, when
// it cannot (an address-space limit, too many threads for the memory their
// stacks take), prints its own message and exits 1 from inside the region.
// The team is created here first, before the run (whose clock starts after
// the threads exist anyway), with stderr captured; should libgomp exit, the
// atexit hook below turns its words into uts's one out-of-memory line and
// exit status 3. Later regions of the same size reuse these threads.
std::atomic<int> g_creating_threads{0};  // the team being created (0: none)
std::string g_threads_failed;             // libomp's case: the line, made before the region

// libomp reports a thread it cannot create ("OMP: Error #34: System unable
// to allocate necessary resources") and aborts: SIGABRT, while the team is
// being created, is the same out of memory.
extern "C" void aborted_while_creating_threads(int) {
  restore_stderr();
  oom::fail(g_threads_failed);
}

void said_while_creating_threads() {
  // relaxed: the same thread set it (libgomp exits from the region's master).
  const int threads = g_creating_threads.load(std::memory_order_relaxed);
  if (threads == 0) return;
  const std::string said = end_capture();
  std::string why = "the OpenMP runtime could not create them";
  const std::size_t at = said.find("libgomp: ");
  if (at != std::string::npos) why += " (" + said.substr(at + 9, said.find('\n', at) - at - 9) + ")";
  oom::fail("--threads " + std::to_string(threads) + ": " + why);
}

// Not inlined: clang fetches the OpenMP thread id (which starts libomp,
// and so its reading of OMP_*) at the entry of the function holding a
// region, and run_main's entry is before the environment's capture there.
[[gnu::noinline]] void create_threads(int threads) {
  if (threads <= 1 || threads > omp_get_thread_limit()) return;  // the run refuses too many itself
  std::atexit(said_while_creating_threads);
  g_threads_failed = "--threads " + std::to_string(threads) + ": the OpenMP runtime could not create them";
  struct sigaction on_abort {}, before {};
  on_abort.sa_handler = aborted_while_creating_threads;
  sigemptyset(&on_abort.sa_mask);
  sigaction(SIGABRT, &on_abort, &before);
  begin_capture();
  g_creating_threads.store(threads, std::memory_order_relaxed);  // relaxed: read by this thread only
  omp_set_dynamic(0);
  std::atomic<int> started{0};  // gives the region a body: GCC drops an empty one
#pragma omp parallel num_threads(threads)
  started.fetch_add(1, std::memory_order_relaxed);  // relaxed: a count nobody waits on
  g_creating_threads.store(0, std::memory_order_relaxed);  // relaxed: as above
  sigaction(SIGABRT, &before, nullptr);
  // Whatever else the runtime said goes to stderr as it was.
  const std::string said = end_capture();
  if (!said.empty()) ::write(STDERR_FILENO, said.data(), said.size());
}

void print_presets() {
  const auto presets = cli::list_presets();
  std::string out;
  if (presets.empty()) {
    out = "no presets found (searched:";
    for (const auto& d : cli::preset_dirs()) out += " " + d;
    out += ")\n";
  }
  // Name, expected size, depth and leaves (what --verify checks; "-" where
  // the preset has none), description. Names are case-insensitive.
  if (!presets.empty()) out += "name          expected size   depth        leaves  description\n";
  auto or_dash = [](const std::string& v) { return v.empty() ? std::string("-") : v; };
  for (const auto& p : presets) {
    char line[512];
    std::snprintf(line, sizeof line, "%-8s %18s %7s %13s  ", p.name.c_str(), or_dash(p.expect_size).c_str(),
                  or_dash(p.expect_depth).c_str(), or_dash(p.expect_leaves).c_str());
    out += line + p.description + "\n";
  }
  write_stdout(out);
}

// --workload pool: the concurrent-pools experiment. Exit 1 when an item was
// lost or duplicated (initial + added - removed != remaining).
int run_pool_workload(const cli::RunConfig& cfg, RecordFile& record, const Voice& voice) {
  std::unique_ptr<WholeFile> trace;
  try {
    if (!cfg.trace_file.empty()) trace = std::make_unique<WholeFile>(cfg.trace_file);
  } catch (const cli::UsageError& e) {
    return voice.usage_error(std::string("--trace: ") + e.what());
  }
  if (cfg.pool.threads > omp_get_thread_limit())
    return voice.usage_error("--threads " + std::to_string(cfg.pool.threads) + ": OpenMP allows only " +
                             std::to_string(omp_get_thread_limit()) + (omp_get_thread_limit() == 1 ? " thread" : " threads") +
                             " (check OMP_THREAD_LIMIT)");
  oom::set_context("the pool's items no longer fit (--fill, --ops)");
  const ProcessMemory memory_before = memory_at_start();
  PoolResult result = run_pool(cfg.pool);
  result.memory = memory_before;
  memory_at_end(result.memory);
  oom::set_context("the results no longer fit");
  const MachineInfo machine = collect_machine_info();
  const std::string json = render_pool_json(cfg.pool, result, machine, cfg.command_line);
  const std::string csv_rows = render_pool_csv_rows(cfg.pool, result, machine, cfg.command_line);
  if (!record.to_stdout()) {
    switch (cfg.format) {
      case cli::Format::text: write_stdout(render_pool_text(cfg.pool, result, cfg.verbose, machine, cfg.command_line)); break;
      case cli::Format::json: write_stdout(json); break;
      case cli::Format::csv: write_stdout(pool_csv_header() + csv_rows); break;
    }
  }
  record.append(json, csv_rows);
  if (trace) trace->write(render_pool_trace_csv(result));
  if (!result.conserved()) {
    std::fprintf(stderr, "uts: pool: items were lost or duplicated (initial + added - removed != remaining)\n");
    return kExitMismatch;
  }
  if (!result.complete()) return 128 + result.stop_signal;
  return kExitOk;
}

int run_main(int argc, char** argv, Voice& voice) {
  const distrib::Launch launch = distrib::detect_launch();
  // uts-smpi: every simulated rank returns on its own (no mpirun aborting the job).
  voice = Voice{launch.rank == 0, launch.under_mpi && !UTS_SMPI};
  oom::set_rank_voice(launch.rank == 0);
  cli::RunConfig cfg;
  // A malformed OMP_NUM_THREADS or OMP_THREAD_LIMIT is refused once the
  // command line is read (--help and --version still answer); so is any
  // OMP_* value the OpenMP runtime itself calls invalid, in one uts line
  // instead of the runtime's (runtime_env.hpp). libgomp read its
  // environment before main (the start-up capture); libomp reads it at the
  // first OpenMP call, which thread_default() makes: captured here.
  std::string environment_error;
  cli::ThreadDefault threads;
  begin_capture();
  try {
    threads = cli::thread_default();
    // libomp reads OMP_PLACES and the affinity variables at its "middle"
    // initialisation, which this call makes (thread_default() may not).
    (void)omp_get_num_procs();
  } catch (const cli::UsageError& e) {
    environment_error = e.what();
  }
  const std::string runtime_said = runtime_complaint(end_capture());
  if (environment_error.empty()) environment_error = startup_complaint();
  if (environment_error.empty()) environment_error = runtime_said;
  try {
    cfg = cli::parse_command_line(argc, argv, threads);
  } catch (const cli::UsageError& e) {
    return voice.usage_error(e.what());
  }
  if (!voice.speaks && (cfg.show_help || cfg.show_version || cfg.show_presets || cfg.show_schedulers)) return kExitOk;
  if (!environment_error.empty() && !cfg.show_help && !cfg.show_version && !cfg.show_presets &&
      !cfg.show_schedulers)
    return voice.usage_error(environment_error);
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
    if (cfg.engine.scheduler.foreign())
      return voice.usage_error("--scheduler " + cfg.engine.scheduler.name + " runs in one process, not as " +
                               std::to_string(launch.ranks) + " MPI ranks (only --scheduler uts spans ranks)");
  }
#if UTS_SMPI
  // SMPI simulates ranks, each on one core of its simulated host; the
  // threads inside one rank would share that core's simulated time.
  if (cfg.engine.threads > 1)
    return voice.usage_error("--threads " + std::to_string(cfg.engine.threads) +
                             ": uts-smpi runs one thread per simulated rank (give --threads 1, or use uts under mpirun)");
  if (cfg.workload == cli::Workload::pool)
    return voice.usage_error("--workload pool runs in one process: use uts, not uts-smpi");
  if (cfg.engine.sequential)
    return voice.usage_error("--sequential runs in one process: use uts --sequential for the baseline, not uts-smpi");
  if (cfg.progress == cli::Progress::on)
    return voice.usage_error("--progress: a simulated run has no real-time progress line (uts-smpi)");
  if (cfg.given.count("bind"))
    return voice.usage_error("--bind places real threads: a simulated rank has one core of its own simulated host (uts-smpi)");
  // Timed and modelled computation at once would count it twice; neither,
  // and every rank would compute in no time.
  if (cfg.engine.ranks.model_rate > 0 && simulated::computation_timed())
    return voice.usage_error("--model-rate: give smpirun --cfg=smpi/simulate-computation:no as well (SMPI would also time the computation)");
  if (cfg.engine.ranks.model_rate == 0 && !simulated::computation_timed())
    return voice.usage_error("smpi/simulate-computation:no without --model-rate: every rank would compute in no time");
#else
  if (cfg.given.count("model-rate"))
    return voice.usage_error("--model-rate models computation in simulated time: it applies only to uts-smpi");
#endif
  if (launch.under_mpi && cfg.work_baseline_sequential) {
    return voice.usage_error(
        "--work-baseline sequential runs in one process: under mpirun give the sequential time in seconds");
  }
  // Options of MPI ranks outside mpirun: refused on the command line,
  // recorded as ignored when a file set them.
  if (!launch.under_mpi)
    for (const char* key : {"rank-chunk", "rank-poll", "rank-poll-max", "rank-split", "rank-steal", "rank-w", "rank-l", "rank-termination"}) {
      if (cfg.given.count(key)) return voice.usage_error(std::string("--") + key + " applies only to a run under mpirun");
    }
  if (cfg.show_help) {
    write_stdout(cfg.help_text);
    return kExitOk;
  }
  if (cfg.show_version) {
    write_stdout(version_line(collect_machine_info()) + "\n");
    return kExitOk;
  }
  if (cfg.show_presets) {
    print_presets();
    return kExitOk;
  }
  if (cfg.show_schedulers) {  // one name a line: the tests iterate over it
    std::string out;
    for (const SchedulerEntry* e : schedulers()) out += std::string(e->name) + "\n";
    write_stdout(out);
    return kExitOk;
  }

  // Open and check the record file before the run, so a bad path or a file
  // of another format costs nothing.
  RecordFile record;
  if (!cfg.output_file.empty() && voice.speaks) {
    const bool csv = cfg.format == cli::Format::csv;
    const std::string header = cfg.workload == cli::Workload::pool ? pool_csv_header() : csv_header();
    try {
      record = RecordFile(cfg.output_file, csv ? RecordFile::Kind::csv : RecordFile::Kind::json_lines, header);
    } catch (const cli::UsageError& e) {
      return voice.usage_error(e.what());
    }
  }

  // An OTF2 archive's folder, checked before the run: absent or empty.
  if (voice.speaks && cfg.workload == cli::Workload::uts && is_otf2_path(cfg.trace_file)) {
    const std::string problem = otf2_target_problem(cfg.trace_file);
    if (!problem.empty()) return voice.usage_error("--trace " + cfg.trace_file + ": " + problem);
  }
  // A JSON trace (or the pool's CSV one): writable, checked before the run
  // (the temporary file is opened and removed again).
  if (voice.speaks && !cfg.trace_file.empty() && !is_otf2_path(cfg.trace_file)) {
    try {
      WholeFile probe(cfg.trace_file);
    } catch (const cli::UsageError& e) {
      return voice.usage_error(std::string("--trace: ") + e.what());
    }
  }

  if (cfg.workload == cli::Workload::pool) {
    create_threads(cfg.pool.threads);
    return run_pool_workload(cfg, record, voice);
  }
  if (!cfg.engine.sequential) create_threads(cfg.engine.threads);

  // Checked before the run: asking for SHA-NI on a CPU without it is bad input.
  const auto path = sha1::resolve(cfg.engine.sha1);
  if (!path)
    return voice.usage_error(cfg.engine.sha1 == sha1::Path::avx512
                                 ? "--sha1 avx512: this CPU has no AVX-512 (F and VL) (use auto, shani or cryptopp)"
                                 : "--sha1 shani: this CPU has no SHA extensions (use auto, avx512 or cryptopp)");
  if (cfg.engine.sha1 == sha1::Path::automatic) cfg.engine.sha1_calibration = sha1::calibrate();
  // --counters: those this machine allows; the others named in one line.
  if (!cfg.counters_wanted.empty()) {
    for (const CounterRequest& c : cfg.counters_wanted) cfg.engine.counters_asked.push_back(c.name);
    cfg.engine.counters = usable_counters(cfg.counters_wanted, cfg.counters_unavailable);
    if (!cfg.counters_unavailable.empty() && voice.speaks)
      std::fprintf(stderr, "uts: counters unavailable, running without them: %s\n",
                   printable_line(cfg.counters_unavailable).c_str());
  }
  cfg.engine.sha1 = *path;
  const Tree tree(cfg.tree, *path);
  const bool progress = cfg.progress == cli::Progress::on ||
                        (cfg.progress == cli::Progress::automatic && isatty(fileno(stderr)));
  oom::set_context("the nodes waiting to be expanded no longer fit");
#if UTS_HAVE_MPI
  if (launch.under_mpi) return run_as_rank(cfg, tree, progress, record, argc, argv, voice);
#endif
  RunResult result;
  // Before any traversal (the --work-baseline one included): what start-up
  // took, so the record tells the run's memory from the binary's.
  const ProcessMemory memory_before = memory_at_start();
  try {
    if (cfg.work_baseline_sequential) {
      // The baseline of work inflation: the sequential engine on the same
      // tree, first (docs/trace.md).
      EngineSettings seq = cfg.engine;
      seq.sequential = true;
      seq.trace_events = 0;
      seq.counters.clear();
      ProgressBoard seq_board(1);
      const RunResult base = run(tree, seq, cfg.stop, seq_board);
      if (base.status != RunStatus::complete) {
        // Only a signal stops it (--max-nodes is refused with it): no record
        // of a parallel run that did not happen.
        std::fprintf(stderr, "uts: stopped during the --work-baseline sequential run: no record written\n");
        return status_exit(base.status, base.stop_signal);
      }
      cfg.work_baseline = base.seconds;
    }
    ProgressBoard board(cfg.engine.sequential ? 1 : cfg.engine.threads);
    std::unique_ptr<ProgressReporter> reporter;
    if (progress) reporter = std::make_unique<ProgressReporter>(board);
    result = run(tree, cfg.engine, cfg.stop, board);
    result.memory = memory_before;
    memory_at_end(result.memory);
  } catch (const std::bad_alloc&) {
    return voice.error("out of memory: the nodes waiting to be expanded no longer fit", kExitOutOfMemory);
  } catch (const std::length_error& e) {
    return voice.error(std::string("out of memory: ") + e.what(), kExitOutOfMemory);
  } catch (const std::exception& e) {  // e.g. OMP_THREAD_LIMIT below --threads
    return voice.usage_error(e.what());
  }
  // The records and a --trace file are built whole in memory.
  oom::set_context(cfg.trace_file.empty() ? "the results no longer fit"
                                          : "the results and the trace no longer fit (give fewer --trace-events)");
  return report_run(cfg, result, record);
}

}  // namespace

}  // namespace uts::app

namespace {
// Signals are caught from before main on (the earliest constructor of this
// program): a signal in the first milliseconds stops the run with partial
// results instead of killing it silently.
struct CatchSignalsEarly {
  CatchSignalsEarly() {
    // The libraries' constructors have run: libgomp has read (and judged)
    // its environment into the capture begun before them.
    uts::app::end_startup_capture();
    uts::interrupt::install();
  }
};
[[maybe_unused]] const CatchSignalsEarly g_catch_signals_early __attribute__((init_priority(101)));

// hwloc loads every plugin it finds when the process's first topology is
// created. Debian's libhwloc-plugins brings GL, OpenCL, PCI and libxml2,
// which pull in X11, OpenCL and ICU: a large share of a small run's CPU
// time (results/benchmarks/2026-11-28-figures-from-comments.md). uts's
// topology keeps hwloc's default filter (no I/O objects) and never reads
// XML through libxml2, so none of them changes what it sees (the record's
// topology is the same either way). Left alone when the user chose plugins
// (HWLOC_PLUGINS_BLACKLIST or HWLOC_COMPONENTS set, even empty) and in an MPI
// rank, where Open MPI's hwloc in this process may want the PCI devices near
// it.
void skip_unused_hwloc_plugins() {
  if (std::getenv("HWLOC_PLUGINS_BLACKLIST") != nullptr || std::getenv("HWLOC_COMPONENTS") != nullptr) return;
  if (uts::distrib::detect_launch().under_mpi) return;
  setenv("HWLOC_PLUGINS_BLACKLIST",
         "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero", 0);
}
}  // namespace

int main(int argc, char** argv) {
  // Out of memory anywhere, in any thread, ends as one line and exit status
  // 3 (an uncaught std::bad_alloc would abort with libstdc++'s message).
  uts::oom::install_terminate_handler();
  // The batch job and OMP_* settings the records carry: read before uts
  // sets anything in its own environment (the hwloc variable below).
  (void)uts::start_environment();
  skip_unused_hwloc_plugins();  // before anything creates a topology
  // First: a signal from here on stops the run with partial results (caught
  // since the constructor above), and a closed stdout or a broken pipe is an
  // error, not a silent exit.
  uts::interrupt::install();
  uts::app::guard_standard_streams();
  uts::app::Voice voice;
  try {
    return uts::app::run_main(argc, argv, voice);
  } catch (const uts::app::OutputError& e) {
    return voice.error(e.what(), uts::app::kExitOutput);
  }
}
