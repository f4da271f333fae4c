#include "sha1/batch.hpp"

#include "sha1/sha1.hpp"

#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#define UTS_HAVE_SHANI_KERNEL 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace uts::sha1 {

void child_ids_cryptopp(const Words& parent, std::uint32_t first, std::uint32_t count, Words* out) {
  for (std::uint32_t i = 0; i < count; ++i) out[i] = child_id(parent, first + i);
}

void child_ids_cryptopp(const ChildJob* jobs, int count, Words* out) {
  for (int i = 0; i < count; ++i) out[i] = child_id(jobs[i].parent, jobs[i].index);
}

#if defined(UTS_HAVE_SHANI_KERNEL)

bool cpu_has_shani() {
  // UTS_SHA1_NO_SHANI=1 makes this CPU look like one without SHA extensions,
  // so the fallback and the refusal of --sha1 shani can be tested anywhere.
  if (const char* off = std::getenv("UTS_SHA1_NO_SHANI"); off && *off && std::string(off) != "0") return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool ssse3 = c & bit_SSSE3, sse41 = c & bit_SSE4_1;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool sha = b & (1u << 29);
  return ssse3 && sse41 && sha;
}

namespace {

#define UTS_SHANI __attribute__((target("sha,sse4.1,ssse3")))

// L children hashed side by side; lane l is child idx[l] of *parents[l]. The
// message of a child is its parent's five state words, the index, the 0x80
// terminator, zeros and the bit length 192, as four 4-word groups with word 0
// in the top lane (the order SHA-NI consumes), built in registers. Every
// step below is written once and applied to all lanes, so the compiler
// schedules independent lanes side by side.
template <int L>
UTS_SHANI inline void hash_core(const Words* const* parents, const std::uint32_t* idx, Words* out) {
  const __m128i iv_abcd = _mm_set_epi32(0x67452301, static_cast<int>(0xEFCDAB89u), static_cast<int>(0x98BADCFEu),
                                        0x10325476);
  const __m128i iv_e = _mm_set_epi32(static_cast<int>(0xC3D2E1F0u), 0, 0, 0);
  const __m128i w3 = _mm_set_epi32(0, 0, 0, 192);
  __m128i m0[L], m1[L], m2[L], m3[L], abcd[L], prev[L], e[L];
#pragma GCC unroll 8
  for (int l = 0; l < L; ++l) {
    const Words& parent = *parents[l];
    m0[l] = _mm_set_epi32(static_cast<int>(parent[0]), static_cast<int>(parent[1]), static_cast<int>(parent[2]),
                          static_cast<int>(parent[3]));
    m1[l] = _mm_set_epi32(static_cast<int>(parent[4]), static_cast<int>(idx[l]), static_cast<int>(0x80000000u), 0);
    m2[l] = _mm_setzero_si128();
    m3[l] = w3;
    abcd[l] = iv_abcd;
  }
  // Rounds 0-3.
#pragma GCC unroll 8
  for (int l = 0; l < L; ++l) {
    e[l] = _mm_add_epi32(iv_e, m0[l]);
    prev[l] = abcd[l];
    abcd[l] = _mm_sha1rnds4_epu32(abcd[l], e[l], 0);
  }
  // Rounds 4-79, four at a time. Group g uses message group W[g]; groups
  // 0-3 are the block itself, later ones W[g] = msg2(msg1(W[g-4], W[g-3]) ^
  // W[g-2], W[g-1]) computed in a rolling window of four registers.
#define UTS_GROUP(MG, FUNC)                                      \
  _Pragma("GCC unroll 8") for (int l = 0; l < L; ++l) {          \
    e[l] = _mm_sha1nexte_epu32(prev[l], MG[l]);                  \
    prev[l] = abcd[l];                                           \
    abcd[l] = _mm_sha1rnds4_epu32(abcd[l], e[l], FUNC);          \
  }
#define UTS_SCHEDULE(A, B, C, D) /* A := next group from A(g-4), B(g-3), C(g-2), D(g-1) */ \
  _Pragma("GCC unroll 8") for (int l = 0; l < L; ++l) {                                    \
    A[l] = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(A[l], B[l]), C[l]), D[l]);  \
  }
  UTS_GROUP(m1, 0)  // 4-7
  UTS_GROUP(m2, 0)  // 8-11
  UTS_GROUP(m3, 0)  // 12-15
  UTS_SCHEDULE(m0, m1, m2, m3) UTS_GROUP(m0, 0)  // 16-19
  UTS_SCHEDULE(m1, m2, m3, m0) UTS_GROUP(m1, 1)  // 20-23
  UTS_SCHEDULE(m2, m3, m0, m1) UTS_GROUP(m2, 1)
  UTS_SCHEDULE(m3, m0, m1, m2) UTS_GROUP(m3, 1)
  UTS_SCHEDULE(m0, m1, m2, m3) UTS_GROUP(m0, 1)
  UTS_SCHEDULE(m1, m2, m3, m0) UTS_GROUP(m1, 1)  // 36-39
  UTS_SCHEDULE(m2, m3, m0, m1) UTS_GROUP(m2, 2)  // 40-43
  UTS_SCHEDULE(m3, m0, m1, m2) UTS_GROUP(m3, 2)
  UTS_SCHEDULE(m0, m1, m2, m3) UTS_GROUP(m0, 2)
  UTS_SCHEDULE(m1, m2, m3, m0) UTS_GROUP(m1, 2)
  UTS_SCHEDULE(m2, m3, m0, m1) UTS_GROUP(m2, 2)  // 56-59
  UTS_SCHEDULE(m3, m0, m1, m2) UTS_GROUP(m3, 3)  // 60-63
  UTS_SCHEDULE(m0, m1, m2, m3) UTS_GROUP(m0, 3)
  UTS_SCHEDULE(m1, m2, m3, m0) UTS_GROUP(m1, 3)
  UTS_SCHEDULE(m2, m3, m0, m1) UTS_GROUP(m2, 3)
  UTS_SCHEDULE(m3, m0, m1, m2) UTS_GROUP(m3, 3)  // 76-79
#undef UTS_GROUP
#undef UTS_SCHEDULE
  // Add the initial state: E from the last group's input state, ABCD directly.
#pragma GCC unroll 8
  for (int l = 0; l < L; ++l) {
    const __m128i ef = _mm_sha1nexte_epu32(prev[l], iv_e);
    const __m128i s = _mm_add_epi32(abcd[l], iv_abcd);
    out[l] = {static_cast<std::uint32_t>(_mm_extract_epi32(s, 3)), static_cast<std::uint32_t>(_mm_extract_epi32(s, 2)),
              static_cast<std::uint32_t>(_mm_extract_epi32(s, 1)), static_cast<std::uint32_t>(_mm_extract_epi32(s, 0)),
              static_cast<std::uint32_t>(_mm_extract_epi32(ef, 3))};
  }
}

template <int L>
UTS_SHANI inline void hash_jobs(const ChildJob* jobs, Words* out) {
  const Words* parents[L];
  std::uint32_t idx[L];
  for (int l = 0; l < L; ++l) {
    parents[l] = &jobs[l].parent;
    idx[l] = jobs[l].index;
  }
  hash_core<L>(parents, idx, out);
}

}  // namespace

void child_ids_shani(const ChildJob* jobs, int count, Words* out) {
  switch (count) {
    case 6: hash_jobs<6>(jobs, out); break;
    case 5: hash_jobs<5>(jobs, out); break;
    case 4: hash_jobs<4>(jobs, out); break;
    case 3: hash_jobs<3>(jobs, out); break;
    case 2: hash_jobs<2>(jobs, out); break;
    case 1: hash_jobs<1>(jobs, out); break;
    default: break;
  }
}

#else  // no x86: the SHA-NI path does not exist in this build

void child_ids_shani(const ChildJob* jobs, int count, Words* out) { child_ids_cryptopp(jobs, count, out); }

bool cpu_has_shani() { return false; }

#endif

// Consecutive children of one parent as jobs: up to six per interleaved
// call; more in calls of four, the last call taking the 3 to 6 that remain
// (a lone lane is latency-bound).
void child_ids_shani(const Words& parent, std::uint32_t first, std::uint32_t count, Words* out) {
  ChildJob jobs[kMaxLanes];
  while (count > 0) {
    const std::uint32_t n = count > 6 ? 4 : count;
    for (std::uint32_t i = 0; i < n; ++i) jobs[i] = {parent, first + i};
    child_ids_shani(jobs, static_cast<int>(n), out);
    first += n;
    out += n;
    count -= n;
  }
}

void child_ids_shani_lanes(int lanes, const Words& parent, std::uint32_t first, Words* out) {
  child_ids_shani(parent, first, static_cast<std::uint32_t>(lanes), out);
}

std::optional<Path> resolve(Path requested) {
  switch (requested) {
    case Path::automatic: return cpu_has_shani() ? Path::shani : Path::cryptopp;
    case Path::shani: return cpu_has_shani() ? std::optional<Path>(Path::shani) : std::nullopt;
    case Path::cryptopp: return Path::cryptopp;
  }
  return std::nullopt;
}

std::optional<Path> parse_path(const std::string& text) {
  if (text == "auto") return Path::automatic;
  if (text == "shani") return Path::shani;
  if (text == "cryptopp") return Path::cryptopp;
  return std::nullopt;
}

const char* to_string(Path p) {
  switch (p) {
    case Path::automatic: return "auto";
    case Path::shani: return "shani";
    case Path::cryptopp: return "cryptopp";
  }
  return "?";
}

}  // namespace uts::sha1
