#include "sha1/batch.hpp"

#include "sha1/sha1.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#define UTS_HAVE_SHANI_KERNEL 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace uts::sha1 {

namespace {

// An environment switch that makes this CPU look like one without a feature.
bool forced_off(const char* name) {
  const char* off = std::getenv(name);
  return off && *off && std::string(off) != "0";
}

}  // namespace

void child_ids_cryptopp(const Batch& in, int count, Ids& out) {
  for (int l = 0; l < count; ++l) out.put(l, child_id(in.parent(l), in.index(l)));
}
void child_ids_cryptopp(const RowBatch& in, int count, RowIds& out) {
  for (int l = 0; l < count; ++l) out.put(l, child_id(in.parent(l), in.index(l)));
}

#if defined(UTS_HAVE_SHANI_KERNEL)

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

namespace {

#define UTS_SHANI __attribute__((target("sha,sse4.1,ssse3")))

// The first two message groups of lanes base .. base+L-1, word 0 in the
// top element: each lane's row, its two groups reversed (and the lane added
// to the index word).
template <int L>
UTS_SHANI inline void load_groups(const RowBatch& in, int base, __m128i* m0, __m128i* m1) {
#pragma GCC unroll 8
  for (int l = 0; l < L; ++l) {
    const std::uint32_t* r = in.row[in.slot[base + l]];
    const __m128i lane = _mm_set_epi32(0, 0, base + l, 0);
    m0[l] = _mm_shuffle_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(r)), 0x1B);
    m1[l] = _mm_shuffle_epi32(_mm_add_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(r + 4)), lane), 0x1B);
  }
}

// Lanes base .. base+L-1's states out (st: a b c d with a on top; ef: e on
// top), a row each: the state reversed, and e.
template <int L>
UTS_SHANI inline void store_ids(const __m128i* st, const __m128i* ef, int base, RowIds& out) {
#pragma GCC unroll 8
  for (int l = 0; l < L; ++l) {
    std::uint32_t* r = out.row[base + l];
    _mm_store_si128(reinterpret_cast<__m128i*>(r), _mm_shuffle_epi32(st[l], 0x1B));
    r[4] = static_cast<std::uint32_t>(_mm_extract_epi32(ef[l], 3));
  }
}

// L children hashed side by side: lanes base .. base+L-1 of a row batch. The
// message of a child is its parent's five state words, the index, the 0x80
// terminator, zeros and the bit length 192, as four 4-word groups with word 0
// in the top lane (the order SHA-NI consumes), built in registers. Every
// step below is written once and applied to all lanes, so the compiler
// schedules independent lanes side by side.
template <int L>
UTS_SHANI inline void hash_core(const RowBatch& in, int base, RowIds& out) {
  const __m128i iv_abcd = _mm_set_epi32(0x67452301, static_cast<int>(0xEFCDAB89u), static_cast<int>(0x98BADCFEu),
                                        0x10325476);
  const __m128i iv_e = _mm_set_epi32(static_cast<int>(0xC3D2E1F0u), 0, 0, 0);
  const __m128i w3 = _mm_set_epi32(0, 0, 0, 192);
  __m128i m0[L], m1[L], m2[L], m3[L], abcd[L], prev[L], e[L];
  load_groups<L>(in, base, m0, m1);
#pragma GCC unroll 8
  for (int l = 0; l < L; ++l) {
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
  __m128i st[L], ef[L];
#pragma GCC unroll 8
  for (int l = 0; l < L; ++l) {
    ef[l] = _mm_sha1nexte_epu32(prev[l], iv_e);
    st[l] = _mm_add_epi32(abcd[l], iv_abcd);
  }
  store_ids<L>(st, ef, base, out);
}

}  // namespace

// Up to six lanes in one interleaved call; more in calls of four, the last
// call taking the 3 to 6 that remain (a lone lane is latency-bound).
void child_ids_shani(const RowBatch& in, int count, RowIds& out) {
  int base = 0;
  while (count > 0) {
    const int n = count > kShaniLanes ? 4 : count;
    switch (n) {
      case 6: hash_core<6>(in, base, out); break;
      case 5: hash_core<5>(in, base, out); break;
      case 4: hash_core<4>(in, base, out); break;
      case 3: hash_core<3>(in, base, out); break;
      case 2: hash_core<2>(in, base, out); break;
      default: hash_core<1>(in, base, out); break;
    }
    base += n;
    count -= n;
  }
}

#else  // no x86: the SHA-NI path does not exist in this build

void child_ids_shani(const RowBatch& in, int count, RowIds& out) { child_ids_cryptopp(in, count, out); }
bool cpu_has_shani() { return false; }
bool cpu_has_avx512() { return false; }

#endif

void child_ids(Path path, const Words& parent, std::uint32_t first, std::uint32_t count, Words* out) {
  if (path == Path::cryptopp) {
    for (std::uint32_t i = 0; i < count; ++i) out[i] = child_id(parent, first + i);
    return;
  }
  const std::uint32_t width = kMaxLanes;
  while (count > 0) {
    const std::uint32_t n = count < width ? count : width;
    if (path == Path::avx512) {
      Batch batch;
      Ids ids;
      for (std::uint32_t i = 0; i < n; ++i) batch.set(static_cast<int>(i), parent, first + i);
      child_ids_avx512(batch, ids);
      for (std::uint32_t i = 0; i < n; ++i) out[i] = ids.get(static_cast<int>(i));
    } else {
      RowBatch batch;  // two rows of RowBatch::kFill lanes cover the sixteen
      RowIds ids;
      static_assert(2 * RowBatch::kFill == kMaxLanes);
      batch.put(0, parent, first);
      batch.put(RowBatch::kFill, parent, first + RowBatch::kFill);
      child_ids_shani(batch, static_cast<int>(n), ids);
      for (std::uint32_t i = 0; i < n; ++i) out[i] = ids.get(static_cast<int>(i));
    }
    first += n;
    out += n;
    count -= n;
  }
}

void child_ids_shani_lanes(int lanes, const Words& parent, std::uint32_t first, Words* out) {
  // One batch per thread, not one per call: a fresh Batch is zeroed (768
  // bytes, a `rep stos` in GCC's code) on every call, which cost the
  // uts-sha1-rate probe that calls this in a loop several percent of its
  // SHA-NI rates. Only lanes 0 .. lanes-1 are read back.
  // The traversals' input and output (RowBatch, RowIds): one parent's row
  // covers RowBatch::kFill lanes.
  static_assert(kShaniLanes <= RowBatch::kFill);
  static thread_local RowBatch batch;
  RowIds ids;
  batch.put(0, parent, first);
  child_ids_shani(batch, lanes, ids);
  for (int l = 0; l < lanes; ++l) out[l] = ids.get(l);
}

namespace {

// Blocks per second of one kernel over `blocks` children, parents chained
// from batch to batch as in a traversal; SHA-NI's through the row batch the
// traversals give it.
double kernel_rate(Path path, int lanes, std::uint64_t blocks) {
  const std::uint64_t calls = blocks / static_cast<std::uint64_t>(lanes);
  std::chrono::steady_clock::time_point start;
  if (path == Path::shani) {
    RowBatch batch;
    RowIds ids;
    for (int l = 0; l < kMaxLanes; ++l) batch.put(l, {1, 2, 3, 4, static_cast<std::uint32_t>(l)}, static_cast<std::uint32_t>(l));
    start = std::chrono::steady_clock::now();
    for (std::uint64_t c = 0; c < calls; ++c) {
      child_ids_shani(batch, lanes, ids);
      batch.row[c % static_cast<std::uint64_t>(lanes)][4] = ids.row[0][4];
    }
  } else {
    Batch batch;
    Ids ids;
    for (int l = 0; l < kMaxLanes; ++l) batch.set(l, {1, 2, 3, 4, static_cast<std::uint32_t>(l)}, static_cast<std::uint32_t>(l));
    start = std::chrono::steady_clock::now();
    for (std::uint64_t c = 0; c < calls; ++c) {
      child_ids_avx512(batch, ids);
      batch.word[4][c % static_cast<std::uint64_t>(lanes)] = ids.word[4][0];
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s > 0 ? double(calls * static_cast<std::uint64_t>(lanes)) / s : 0;
}

Calibration measure() {
  Calibration c;
  const bool avx = cpu_has_avx512(), sha = cpu_has_shani();
  if (!avx || !sha) {
    c.chosen = avx ? Path::avx512 : sha ? Path::shani : Path::cryptopp;
    return c;
  }
  // A short first round (16 000 blocks each: about 0.1 ms of AVX-512 and
  // 0.3 ms of SHA-NI on the development machine) settles the clear case,
  // AVX-512 at least 1.5x SHA-NI (measured: 2x on Zen 5, 5x on an Emerald
  // Rapids Xeon). A cold start can only make AVX-512 look slower (its upper
  // lanes power up on first use), so this shortcut never picks it wrongly.
  // Anything closer gets three interleaved rounds of 48 000 blocks (about
  // 0.5 ms per kernel per round), the best of each, so a moment's noise
  // cannot decide. Each start of uts pays this; the short round made a
  // small run about 3 ms shorter here.
  constexpr std::uint64_t kShort = 16'000, kBlocks = 48'000;
  c.avx512_rate = kernel_rate(Path::avx512, kMaxLanes, kShort);
  c.shani_rate = kernel_rate(Path::shani, kShaniLanes, kShort);
  if (c.avx512_rate >= 1.5 * c.shani_rate) {
    c.chosen = Path::avx512;
    return c;
  }
  for (int round = 0; round < 3; ++round) {
    c.avx512_rate = std::max(c.avx512_rate, kernel_rate(Path::avx512, kMaxLanes, kBlocks));
    c.shani_rate = std::max(c.shani_rate, kernel_rate(Path::shani, kShaniLanes, kBlocks));
  }
  c.chosen = c.shani_rate > 1.1 * c.avx512_rate ? Path::shani : Path::avx512;
  return c;
}

}  // namespace

const Calibration& calibrate() {
  static const Calibration c = measure();
  return c;
}

std::optional<Path> resolve(Path requested) {
  switch (requested) {
    case Path::automatic: return calibrate().chosen;
    case Path::avx512: return cpu_has_avx512() ? std::optional<Path>(Path::avx512) : std::nullopt;
    case Path::shani: return cpu_has_shani() ? std::optional<Path>(Path::shani) : std::nullopt;
    case Path::cryptopp: return Path::cryptopp;
  }
  return std::nullopt;
}

std::optional<Path> parse_path(const std::string& text) {
  if (text == "auto") return Path::automatic;
  if (text == "avx512") return Path::avx512;
  if (text == "shani") return Path::shani;
  if (text == "cryptopp") return Path::cryptopp;
  return std::nullopt;
}

const char* to_string(Path p) {
  switch (p) {
    case Path::automatic: return "auto";
    case Path::avx512: return "avx512";
    case Path::shani: return "shani";
    case Path::cryptopp: return "cryptopp";
  }
  return "?";
}

}  // namespace uts::sha1
