#include "traversal/run.hpp"

#include "traversal/sequential.hpp"

namespace uts {

RunResult run(const Tree& tree, const EngineSettings& engine, const StopRule& stop, bool progress) {
  (void)progress;
  RunResult r;
  (void)engine;
  const SequentialOutcome s = run_sequential(tree, stop);
  r.counts = s.counts;
  r.status = s.status;
  r.seconds = s.seconds;
  r.truncations = tree.truncations();
  return r;
}

}  // namespace uts
