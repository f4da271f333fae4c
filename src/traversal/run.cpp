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

  RunResult r = engine.sequential ? run_sequential(tree, stop, &board) : run_parallel(tree, engine, stop, board);
  reporter.reset();
  r.truncations = tree.truncations();
  return r;
}

}  // namespace uts
