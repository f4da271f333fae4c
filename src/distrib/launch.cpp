// Is this process a rank of an MPI job? Read from the launcher's
// environment (launch.hpp).
#include "distrib/launch.hpp"

#include <cstdlib>
#include <string>

#if UTS_SMPI
#include <simgrid/actor.h>
#endif

namespace uts::distrib {

namespace {
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  try {
    return std::stoi(v);
  } catch (...) {
    return fallback;
  }
}
bool has_env(const char* name) { return std::getenv(name) != nullptr; }
}  // namespace

Launch detect_launch() {
  Launch l;
#if UTS_SMPI
  // uts-smpi runs only under smpirun, which exports SMPI_GLOBAL_SIZE and
  // names each simulated rank's actor by its rank ("0", "1", ...).
  l.under_mpi = true;
  l.ranks = env_int("SMPI_GLOBAL_SIZE", 1);
  try {
    l.rank = std::stoi(sg_actor_self_get_name());
  } catch (...) {
    l.rank = 0;
  }
  if (l.ranks < 1) l.ranks = 1;
  return l;
#endif
  if (has_env("OMPI_COMM_WORLD_SIZE")) {
    l.under_mpi = true;
    l.ranks = env_int("OMPI_COMM_WORLD_SIZE", 1);
    l.rank = env_int("OMPI_COMM_WORLD_RANK", 0);
  } else if (has_env("PMI_SIZE") || has_env("PMIX_RANK")) {
    l.under_mpi = true;
    l.ranks = env_int("PMI_SIZE", 1);
    l.rank = env_int("PMI_RANK", env_int("PMIX_RANK", 0));
  }
  if (l.ranks < 1) l.ranks = 1;
  return l;
}

}  // namespace uts::distrib
