// The process's resident memory as the kernel counts it, for the records'
// memory fields (docs/output.md, section 4d): the peak (high-water mark) and
// the current size, read before the run and at its end.
//
// The peak comes from /proc/self/status's VmHWM, not getrusage's ru_maxrss:
// Linux folds the address space a process replaces at exec into ru_maxrss,
// so a uts started by a large parent (Python's subprocess, which vforks,
// or any fork and exec) reported that parent's peak (measured: 414 MiB for a
// 1 MiB program started from a Python holding 400 MiB, VmHWM 1.1 MiB).
// ru_maxrss (KiB on Linux) is the fallback where /proc cannot be read, and
// the record says which one it holds.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace uts {

struct ProcessMemory {
  std::uint64_t peak_rss_bytes = 0;        // at the end of the run; 0: not read
  std::uint64_t start_peak_rss_bytes = 0;  // the peak before the run started
  std::uint64_t start_rss_bytes = 0;       // resident before the run started (0: unknown, ru_maxrss only)
  bool from_proc = false;                  // peaks from VmHWM (else ru_maxrss)
};

struct ResidentNow {
  std::uint64_t peak_bytes = 0, current_bytes = 0;
  bool from_proc = false;
};

// One reading: VmHWM and VmRSS (their "kB" are KiB), else ru_maxrss alone.
inline ResidentNow read_resident() {
  ResidentNow r;
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kib = 0;
      if (std::strncmp(line, "VmHWM:", 6) == 0 && std::sscanf(line + 6, "%llu", &kib) == 1) r.peak_bytes = kib * 1024;
      if (std::strncmp(line, "VmRSS:", 6) == 0 && std::sscanf(line + 6, "%llu", &kib) == 1) r.current_bytes = kib * 1024;
    }
    std::fclose(f);
    r.from_proc = r.peak_bytes > 0;
  }
  if (!r.from_proc) {
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) == 0 && u.ru_maxrss > 0) r.peak_bytes = static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
    r.current_bytes = 0;
  }
  return r;
}

// Just before the run's clock starts (threads created, tree set up).
inline ProcessMemory memory_at_start() {
  const ResidentNow now = read_resident();
  ProcessMemory m;
  m.start_peak_rss_bytes = now.peak_bytes;
  m.start_rss_bytes = now.current_bytes;
  m.from_proc = now.from_proc;
  return m;
}

// At the run's end, before the records are built (their strings are not the
// run's memory).
inline void memory_at_end(ProcessMemory& m) {
  const ResidentNow now = read_resident();
  m.peak_rss_bytes = now.peak_bytes;
  m.from_proc = m.from_proc && now.from_proc;
}

}  // namespace uts
