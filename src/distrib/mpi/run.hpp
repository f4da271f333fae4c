// Running the engine as one rank of an MPI job (a build with -Dmpi): the
// session, the rank's agent over MPI, and the reduction of every rank's
// result into rank 0's.
#pragma once

#include "run/progress.hpp"
#include "run/result.hpp"
#include "run/settings.hpp"
#include "run/status.hpp"
#include "tree/tree.hpp"

namespace uts::distrib {

// MPI_Init_thread (FUNNELED) on construction, MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  bool ok() const { return ok_; }
  // Every rank passes its own verdict; true when any rank's is true.
  bool any(bool mine) const;
  // Every rank waits here (e.g. until rank 0 has printed: mpirun ends the
  // job as soon as one rank exits non-zero).
  void barrier() const;
  // Exit without MPI_Finalize (see run_as_rank).
  void skip_finalize() { skip_finalize_ = true; }

 private:
  int rank_ = 0, ranks_ = 1;
  bool ok_ = false;
  bool skip_finalize_ = false;
};

// This rank's share of the traversal, then the whole job's result reduced
// exactly (64-bit sums) into rank 0's return value. Other ranks get their own
// partial result back (they print nothing). `progress` has one slot per
// thread of this rank. Throws std::runtime_error as run_parallel does.
RunResult run_ranks(const Tree& tree, const EngineSettings& engine, const StopRule& stop, ProgressBoard& progress);

}  // namespace uts::distrib
