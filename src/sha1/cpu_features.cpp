// Which SHA-1 kernels this CPU can run: cpuid (and xgetbv for the AVX-512
// register state), with an environment switch per kernel that makes the CPU
// look like one without it, so the fallbacks are testable on any machine.
#include "sha1/batch.hpp"

#include <cstdlib>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#define UTS_HAVE_CPUID 1
#include <cpuid.h>
#endif

namespace uts::sha1 {

#if defined(UTS_HAVE_CPUID)

namespace {

// An environment switch that makes this CPU look like one without a feature.
bool forced_off(const char* name) {
  const char* off = std::getenv(name);
  return off && *off && std::string(off) != "0";
}

}  // namespace

bool cpu_has_shani() {
  // UTS_SHA1_NO_SHANI=1 makes this CPU look like one without SHA extensions,
  // so the fallback and the refusal of --sha1 shani can be tested anywhere.
  if (forced_off("UTS_SHA1_NO_SHANI")) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool ssse3 = c & bit_SSSE3, sse41 = c & bit_SSE4_1;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool sha = b & (1u << 29);
  return ssse3 && sse41 && sha;
}

bool cpu_has_avx512() {
#if !defined(__x86_64__)
  return false;  // the kernel (avx512.cpp) is built for x86-64 only
#endif
  if (forced_off("UTS_SHA1_NO_AVX512")) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!(c & bit_OSXSAVE)) return false;  // xgetbv below needs it
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool f = b & (1u << 16), vl = b & (1u << 31);
  if (!f || !vl) return false;
  // The OS must save the registers: XCR0 bits 1-2 (SSE, AVX) and 5-7
  // (opmask, upper halves of zmm0-15, zmm16-31).
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0xE6u) == 0xE6u;
}

#else  // no x86: neither kernel exists in this build

bool cpu_has_shani() { return false; }
bool cpu_has_avx512() { return false; }

#endif

}  // namespace uts::sha1
