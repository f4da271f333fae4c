// The SHA-NI child-id kernel: one-block SHA-1 compressions with the x86 SHA
// extensions, the block built in registers from a RowBatch row, up to
// kShaniLanes children interleaved so their dependency chains overlap. Its
// helpers are compiled for SHA-NI through target attributes; callers reach
// it only where cpu_has_shani() (sha1/cpu_features.cpp) said yes.
#include "sha1/batch.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define UTS_HAVE_SHANI_KERNEL 1
#include <immintrin.h>
#endif

namespace uts::sha1 {

#if defined(UTS_HAVE_SHANI_KERNEL)

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

#endif

void child_ids_shani_lanes(int lanes, const Words& parent, std::uint32_t first, Words* out) {
  // One batch per thread, not one per call: a fresh batch is zeroed on
  // every call, a cost the uts-sha1-rate probe (calling this in a loop)
  // once charged to the kernel's rates (results/benchmarks/2026-11-27-zen5.md).
  // Only lanes 0 .. lanes-1 are read back.
  // The traversals' input and output (RowBatch, RowIds): one parent's row
  // covers RowBatch::kFill lanes.
  static_assert(kShaniLanes <= RowBatch::kFill);
  static thread_local RowBatch batch;
  RowIds ids;
  batch.put(0, parent, first);
  child_ids_shani(batch, lanes, ids);
  for (int l = 0; l < lanes; ++l) out[l] = ids.get(l);
}

}  // namespace uts::sha1
