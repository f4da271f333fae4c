// The MPI entry (a build with -Dmpi): this process is one rank of a job.
#include <memory>
#include <new>
#include <stdexcept>

#include "app/app.hpp"
#include "app/progress.hpp"
#include "base/out_of_memory.hpp"
#include "distrib/mpi/run.hpp"

namespace uts::app {

int run_as_rank(cli::RunConfig& cfg, const Tree& tree, bool progress, RecordFile& record, int& argc, char**& argv,
                Voice& voice) {
  distrib::MpiSession session(argc, argv);
  if (!session.ok()) return voice.usage_error("MPI could not start with MPI_THREAD_FUNNELED");
  cfg.engine.ranks.under_mpi = true;
  cfg.engine.ranks.rank = session.rank();
  cfg.engine.ranks.count = session.ranks();
  voice.speaks = session.rank() == 0;
  voice.silent_rank_waits = false;  // from here every rank returns and finalises
  int code = kExitOk;
  bool signalled = false;
  try {
    RunResult result;
    {
      ProgressBoard board(cfg.engine.threads);
      std::unique_ptr<ProgressReporter> reporter;
      if (progress && voice.speaks) reporter = std::make_unique<ProgressReporter>(board);
      result = distrib::run_ranks(tree, cfg.engine, cfg.stop, board);
    }
    signalled = result.stop_signal != 0;
    oom::set_context("the results no longer fit");
    if (voice.speaks) code = report_run(cfg, result, record);
    else code = status_exit(result.status, result.stop_signal);
  } catch (const OutputError& e) {
    code = voice.error(e.what(), kExitOutput);
  } catch (const std::bad_alloc&) {
    // At once, not through the barrier below: the other ranks may still be
    // in the run, waiting for this one, and would never reach it. mpirun
    // ends the job when this rank exits; the line is printed once.
    oom::fail("the nodes waiting to be expanded no longer fit");
  } catch (const std::exception& e) {  // the same on every rank (e.g. OMP_THREAD_LIMIT)
    code = voice.usage_error(e.what());
  }
  // mpirun ends the job when the first rank exits non-zero: nobody leaves
  // before rank 0 has printed.
  session.barrier();
  // A run a signal stopped leaves without MPI_Finalize. When mpirun itself
  // was signalled it is tearing the job down, and MPI_Finalize (PMIx_Finalize)
  // would wait for the SIGKILL it sends a second later, holding back the
  // output mpirun forwards; when only this job's ranks were, the first rank
  // to exit with 128 + N makes mpirun abort the rest the same way. Every rank
  // knows the signal (the STOP notice carries it) and has passed the barrier,
  // so nothing is in flight: all leave at once.
  if (signalled) session.skip_finalize();
  return code;
}

}  // namespace uts::app
