// How this process was started: alone, or as one rank of an MPI job. Read
// from the launcher's environment before MPI is initialised, so that bad
// input can be reported once (by rank 0) without starting MPI, and so that a
// binary started without mpirun never touches MPI.
#pragma once

namespace uts::distrib {

struct Launch {
  bool under_mpi = false;  // started by mpirun/mpiexec/srun (even with one rank)
  int rank = 0;
  int ranks = 1;
};

// Open MPI (OMPI_COMM_WORLD_*), PMIx (PMIX_RANK) and PMI (PMI_RANK/PMI_SIZE,
// MPICH and Slurm) variables; in uts-smpi, smpirun's SMPI_GLOBAL_SIZE and
// the simulated rank's actor name.
Launch detect_launch();

}  // namespace uts::distrib
