#include "report/machine.hpp"

#include <cryptopp/config.h>
#include <cryptopp/cpu.h>
#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

#include "uts_build_config.hpp"

namespace uts {

namespace {
std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}
}  // namespace

MachineInfo collect_machine_info() {
  MachineInfo m;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  m.cpu_model = cpu_model();
  m.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
#if CRYPTOPP_SHANI_AVAILABLE
  m.sha_ni = CryptoPP::HasSHA();
#endif
  // LLVM's runtime exports the __kmpc_* entry points; libgomp does not.
  m.openmp_runtime = dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num") ? "libomp" : "libgomp";
  m.openmp_version = _OPENMP;
  m.omp_places = env_or_empty("OMP_PLACES");
  m.omp_proc_bind = env_or_empty("OMP_PROC_BIND");
  m.compiler = UTS_COMPILER;
  m.build_type = UTS_BUILDTYPE;
  m.cryptopp_version = std::to_string(CRYPTOPP_VERSION);
  m.uts_version = UTS_VERSION;
  char stamp[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  m.timestamp_utc = stamp;
  return m;
}

}  // namespace uts
