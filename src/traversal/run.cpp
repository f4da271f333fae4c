#include "traversal/run.hpp"

#include "engine/engine.hpp"
#include "traversal/sequential.hpp"

namespace uts {

RunResult run(const Tree& tree, const EngineSettings& engine, const StopRule& stop, ProgressBoard& progress) {
  RunResult r = engine.sequential ? run_sequential(tree, stop, &progress) : run_parallel(tree, engine, stop, progress);
  r.truncations = tree.truncations();
  return r;
}

}  // namespace uts
