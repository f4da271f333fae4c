// The machine and build facts every record carries (machine.hpp): CPU,
// OpenMP and MPI libraries, compiler, commit, and the --version line.
#include "report/machine.hpp"

#include <cryptopp/config.h>
#include <cryptopp/cpu.h>
#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>

#include "uts_build_config.hpp"
#include "uts_commit.hpp"
#if UTS_HAVE_TBB
#include <oneapi/tbb/version.h>
#endif
#if UTS_HAVE_MPI
#include <mpi.h>
#endif

namespace uts {

namespace {
std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The first processor's block of a /proc/cpuinfo text: each field's name
// (without the tabs that pad it, "model\t\t: 2") and value.
std::map<std::string, std::string> first_block(std::istream& cpuinfo) {
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.empty()) break;  // the end of the first processor's block
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    const auto first = line.find_first_not_of(" \t", colon + 1);
    fields.emplace(std::move(name), first == std::string::npos ? std::string() : line.substr(first));
  }
  return fields;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  const auto fields = first_block(in);
  const auto it = fields.find("model name");
  return it == fields.end() || it->second.empty() ? "unknown" : it->second;
}

// The shared object that defines omp_get_num_threads, resolved to its file.
std::string openmp_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&omp_get_num_threads), &info) == 0 || !info.dli_fname) return "";
  char resolved[4096];
  if (realpath(info.dli_fname, resolved)) return resolved;
  return info.dli_fname;
}

std::string mpi_library() {
#if UTS_HAVE_MPI
  // Allowed before MPI_Init (MPI 3.0, section 8.1.1).
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return "unknown";
  std::string s(text, static_cast<std::size_t>(len > 0 ? len : 0));
  const auto end = s.find_first_of("\n\r");
  s = s.substr(0, end);
  while (!s.empty() && (s.back() == ' ' || s.back() == ',' || s.back() == '\0')) s.pop_back();
  return s;
#else
  return "";
#endif
}
}  // namespace

std::string cpu_signature_of(std::istream& cpuinfo) {
  auto fields = first_block(cpuinfo);
  const std::string &vendor = fields["vendor_id"], &family = fields["cpu family"], &model = fields["model"],
                    &stepping = fields["stepping"];
  if (family.empty() || model.empty()) return "unknown";
  return (vendor.empty() ? std::string() : vendor + " ") + "family " + family + " model " + model +
         (stepping.empty() ? std::string() : " stepping " + stepping);
}

MachineInfo collect_machine_info() {
  MachineInfo m;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  m.cpu_model = cpu_model();
  {
    std::ifstream cpuinfo("/proc/cpuinfo");
    m.cpu_signature = cpu_signature_of(cpuinfo);
  }
  m.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
#if CRYPTOPP_SHANI_AVAILABLE
  m.sha_ni = CryptoPP::HasSHA();
#endif
  // LLVM's runtime exports the __kmpc_* entry points; libgomp does not.
#if UTS_SMPI
  m.openmp_runtime = "none (SMPI: one thread per simulated rank)";
#else
  m.openmp_runtime = dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num") ? "libomp" : "libgomp";
#endif
#ifdef _OPENMP
  m.openmp_version = _OPENMP;
#endif
  m.omp_places = env_or_empty("OMP_PLACES");
  m.omp_proc_bind = env_or_empty("OMP_PROC_BIND");
  m.compiler = UTS_COMPILER;
  m.build_type = UTS_BUILDTYPE;
  m.cryptopp_version = std::to_string(CRYPTOPP_VERSION);
  m.uts_version = UTS_VERSION;
  std::string commit = UTS_COMMIT;
  const std::string dirty = "-dirty";
  if (commit.size() > dirty.size() && commit.compare(commit.size() - dirty.size(), dirty.size(), dirty) == 0) {
    m.commit_dirty = true;
    commit.resize(commit.size() - dirty.size());
  }
  m.commit = commit.empty() ? "unknown" : commit;
  m.compiler_flags = UTS_COMPILER_FLAGS;
  m.openmp_library = openmp_library();
  m.mpi_library = mpi_library();
#if UTS_HAVE_TBB
  // The library loaded, not the header built against: a record names the
  // runtime that ran.
  m.tbb_version = TBB_runtime_version();
#endif
  char stamp[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  m.timestamp_utc = stamp;
  m.environment = start_environment();
  return m;
}

std::string version_line(const MachineInfo& m) {
  return "uts " + m.uts_version + " (commit " + m.commit + (m.commit_dirty ? "-dirty" : "") + ", " + m.build_type +
         ", " + m.compiler + ", " + m.openmp_runtime + ", " + (UTS_HAVE_MPI ? "with MPI" : "without MPI") + ")";
}

}  // namespace uts
