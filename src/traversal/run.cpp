#include "traversal/run.hpp"

#include <memory>

#include "parallel/engine.hpp"
#include "traversal/progress.hpp"
#include "traversal/sequential.hpp"

namespace uts {

RunResult run(const Tree& tree, const EngineSettings& engine, const StopRule& stop, bool progress) {
  ProgressBoard board(engine.sequential ? 1 : engine.threads);
  std::unique_ptr<ProgressReporter> reporter;
  if (progress) reporter = std::make_unique<ProgressReporter>(board);

  RunResult r;
  if (engine.sequential) {
    const SequentialOutcome s = run_sequential(tree, stop, &board);
    r.counts = s.counts;
    r.status = s.status;
    r.seconds = s.seconds;
  } else {
    ParallelOutcome p = run_parallel(tree, engine, stop, board);
    r.counts = p.counts;
    r.status = p.status;
    r.seconds = p.seconds;
    r.threads = std::move(p.threads);
  }
  reporter.reset();
  r.truncations = tree.truncations();
  return r;
}

}  // namespace uts
