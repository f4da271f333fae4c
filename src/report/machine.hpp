// Facts about the machine and the build, recorded with every JSON result so a
// figure can be traced to the machine and the build that produced it.
#pragma once

#include <istream>
#include <string>

#include "report/batch.hpp"

namespace uts {

struct MachineInfo {
  std::string hostname;
  std::string cpu_model;
  // "VENDOR family F model M stepping S" from /proc/cpuinfo ("unknown"
  // where it is missing): a VM's model name ("AMD EPYC") may not tell one
  // CPU generation from the next, and those differ in speed.
  std::string cpu_signature;
  int logical_cpus = 0;
  bool sha_ni = false;
  std::string openmp_runtime;  // libgomp | libomp
  int openmp_version = 0;      // _OPENMP
  std::string omp_places, omp_proc_bind;
  std::string compiler, build_type, cryptopp_version, uts_version;
  std::string commit;          // 40 hex digits, or "unknown" (built outside git)
  bool commit_dirty = false;   // tracked files differed from the commit at build time
  std::string compiler_flags;  // what Meson's options put on the compile line
  std::string openmp_library;  // the runtime's shared object, resolved ("" if static or unknown)
  std::string mpi_library;     // MPI_Get_library_version's first line; "" in a build without MPI
  std::string tbb_version;     // the oneTBB library's own version (TBB_runtime_version); "" in a build without it
  std::string timestamp_utc;
  // The batch job and the OMP_*, GOMP_*, KMP_* variables, as the program
  // started (batch.hpp); under MPI, rank 0's, since rank 0 writes the record.
  RunEnvironment environment;
};

MachineInfo collect_machine_info();

// MachineInfo::cpu_signature from a /proc/cpuinfo text: the first
// processor's vendor_id, cpu family, model and stepping; "unknown" without
// a family and a model (most non-x86 kernels print neither).
std::string cpu_signature_of(std::istream& cpuinfo);

// "uts 1.0.0 (commit 0123...[-dirty], release, gcc 12.2.0, with MPI)": --version.
std::string version_line(const MachineInfo& m);

}  // namespace uts
