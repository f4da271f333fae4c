#include "traversal/run.hpp"

#include "engine/engine.hpp"
#include "topology/placement.hpp"
#include "traversal/sequential.hpp"

namespace uts {

RunResult run(const Tree& tree, const EngineSettings& engine, const StopRule& stop, ProgressBoard& progress) {
  if (!engine.sequential) {
    RunResult r = run_parallel(tree, engine, stop, progress);
    r.truncations = tree.truncations();
    return r;
  }
  // The sequential baseline runs on this thread: placed as thread 0 of 1.
  const Placement placement = place_team(engine.bind, 1);
  placement.bind_again(0);
  RunResult r = run_sequential(tree, stop, &progress);
  r.places = {placement.sample()};
  r.rank_places = {placement.rank_place()};
  r.topology = placement.summary();
  r.truncations = tree.truncations();
  return r;
}

}  // namespace uts
