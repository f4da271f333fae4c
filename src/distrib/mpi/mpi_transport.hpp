// The agent's Transport over MPI: MPI_Issend for every message (synchronous
// mode; uts-smpi: MPI_Isend), MPI_Iprobe + MPI_Recv to receive, on a
// duplicate of MPI_COMM_WORLD so our tags never meet anyone else's messages.
#pragma once

#include <memory>

#include "distrib/transport.hpp"

namespace uts::distrib {

// Requires MPI initialised with at least MPI_THREAD_FUNNELED; every call
// comes from the thread that initialised it.
std::unique_ptr<Transport> make_mpi_transport();

}  // namespace uts::distrib
