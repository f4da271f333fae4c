// distrib/launch.hpp: whether this process is a rank, read from the
// launcher's environment (Open MPI, PMIx, PMI).
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "distrib/launch.hpp"

using uts::distrib::detect_launch;

namespace {

const char* const kVars[] = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"};

// Clears the launcher variables for one test and restores them after.
class CleanLaunchEnv {
 public:
  CleanLaunchEnv() {
    for (const char* v : kVars) {
      const char* old = std::getenv(v);
      saved_.emplace_back(v, old ? std::string(old) : std::string("\x01"));
      unsetenv(v);
    }
  }
  ~CleanLaunchEnv() {
    for (const auto& [name, value] : saved_) {
      if (value == "\x01") unsetenv(name.c_str());
      else setenv(name.c_str(), value.c_str(), 1);
    }
  }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
};

}  // namespace

TEST_CASE("launch: alone without a launcher's variables") {
  CleanLaunchEnv env;
  const auto l = detect_launch();
  CHECK_FALSE(l.under_mpi);
  CHECK(l.rank == 0);
  CHECK(l.ranks == 1);
}

TEST_CASE("launch: Open MPI, PMI and PMIx variables") {
  CleanLaunchEnv env;
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  auto l = detect_launch();
  CHECK(l.under_mpi);
  CHECK(l.rank == 3);
  CHECK(l.ranks == 4);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("OMPI_COMM_WORLD_RANK");
  setenv("PMI_SIZE", "8", 1);
  setenv("PMI_RANK", "5", 1);
  l = detect_launch();
  CHECK(l.under_mpi);
  CHECK(l.rank == 5);
  CHECK(l.ranks == 8);
  unsetenv("PMI_SIZE");
  unsetenv("PMI_RANK");
  setenv("PMIX_RANK", "2", 1);
  l = detect_launch();
  CHECK(l.under_mpi);
  CHECK(l.rank == 2);
  CHECK(l.ranks == 1);  // PMIx gives no size here: one rank as far as the variables tell
}

TEST_CASE("launch: a malformed or absurd size is one rank, never zero") {
  CleanLaunchEnv env;
  setenv("OMPI_COMM_WORLD_SIZE", "abc", 1);
  auto l = detect_launch();
  CHECK(l.under_mpi);
  CHECK(l.ranks == 1);
  setenv("OMPI_COMM_WORLD_SIZE", "0", 1);
  l = detect_launch();
  CHECK(l.ranks == 1);
}
