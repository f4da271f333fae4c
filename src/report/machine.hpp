// Facts about the machine and the build, recorded with every JSON result so a
// figure can be traced to where and how it was measured.
#pragma once

#include <string>

namespace uts {

struct MachineInfo {
  std::string hostname;
  std::string cpu_model;
  int logical_cpus = 0;
  bool sha_ni = false;
  std::string openmp_runtime;  // libgomp | libomp
  int openmp_version = 0;      // _OPENMP
  std::string omp_places, omp_proc_bind;
  std::string compiler, build_type, cryptopp_version, uts_version;
  std::string timestamp_utc;
};

MachineInfo collect_machine_info();

}  // namespace uts
