// The fixed-shape geometric rule's vector search (tree.hpp, shared_row_):
// sixteen numerators' counts of thresholds in one row held in registers,
// and which lanes the scalar rule must settle. Its own header so the unit
// tests can check the flags directly (tests/unit/tree/test_visit_avx512.cpp):
// the end-to-end tests cannot, because a lane the flags miss is counted
// right unless log() rounds across a threshold there.
#pragma once

#include <algorithm>
#include <cstdint>

namespace uts::row_search {

// The per-level tables: probe[k][i] = row[i + offset_k] (clamped to 0..31)
// for offsets 7, 3, 1, 0 and -1. Level k of the search reads table k at the
// count so far; the last two give the thresholds on both sides of the count.
inline void build_probes(const std::uint32_t (&row)[32], std::uint32_t (&probe)[5][32]) {
  constexpr int kOffset[5] = {7, 3, 1, 0, -1};
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < 32; ++i) probe[k][i] = row[std::clamp(i + kOffset[k], 0, 31)];
}

}  // namespace uts::row_search

#if defined(__x86_64__)
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which
// -Wuninitialized flags inside a target("avx512f") function (GCC bug
// 105593); nothing here reads an undefined value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace uts::row_search {

#define UTS_ROW_AVX512 __attribute__((target("avx512f,avx512vl")))

UTS_ROW_AVX512 inline __m512i splat(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
// probe[k] at each lane's count n
UTS_ROW_AVX512 inline __m512i probe_at(const std::uint32_t (*probe)[32], int k, __m512i n) {
  return _mm512_permutex2var_epi32(_mm512_load_si512(probe[k]), n, _mm512_load_si512(probe[k] + 16));
}

// n = #{j : v >= row[j]} over the row's 31 thresholds (ascending; ~0 past
// the row's count, and at j = 31), by a binary search whose probes are
// vpermt2d lookups: level k reads probe[k] (build_probes) at the count so
// far, so no index arithmetic sits on the search's chain. Settled where it
// matches the scalar rule (tree.hpp, geometric_children): n within the cap
// (else the count may go on past the row, or v is ~0 and matched the
// padding) and v more than `margin` from the thresholds on both sides. At
// n = 0 the threshold "below" is row[0] itself, which v is below: near only
// if row[0] - v wraps past 2^32 - margin (row[0] within the margin of 2^32,
// the 32-bit convention with a tiny b0), a needless but harmless flag.
// Heights at or past no_children_from have none; heights between the two
// bounds are unsettled.
UTS_ROW_AVX512 inline __m512i shared_row_lanes(__m512i v, __m512i h, const std::uint32_t* row,
                                               const std::uint32_t (*probe)[32], std::uint32_t below,
                                               std::uint32_t cap, std::uint32_t no_children_from,
                                               std::uint32_t margin, __mmask16& unsettled) {
  __m512i n = _mm512_maskz_mov_epi32(_mm512_cmpge_epu32_mask(v, splat(row[15])), splat(16));
  n = _mm512_mask_add_epi32(n, _mm512_cmpge_epu32_mask(v, probe_at(probe, 0, n)), n, splat(8));
  n = _mm512_mask_add_epi32(n, _mm512_cmpge_epu32_mask(v, probe_at(probe, 1, n)), n, splat(4));
  n = _mm512_mask_add_epi32(n, _mm512_cmpge_epu32_mask(v, probe_at(probe, 2, n)), n, splat(2));
  n = _mm512_mask_add_epi32(n, _mm512_cmpge_epu32_mask(v, probe_at(probe, 3, n)), n, splat(1));
  // row[n - 1] <= v < row[n]
  const __m512i below_t = probe_at(probe, 4, n), above_t = probe_at(probe, 3, n);
  const __mmask16 near = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(v, below_t), splat(margin)) |
                         _mm512_cmple_epu32_mask(_mm512_sub_epi32(above_t, v), splat(margin)) |
                         _mm512_cmpgt_epu32_mask(n, splat(cap));
  const __mmask16 in_row = _mm512_cmplt_epu32_mask(h, splat(below));
  const __mmask16 none = _mm512_cmpge_epu32_mask(h, splat(no_children_from));
  unsettled = static_cast<__mmask16>((in_row & near) | ~(in_row | none));
  return _mm512_maskz_mov_epi32(in_row, n);
}

#undef UTS_ROW_AVX512

}  // namespace uts::row_search

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // __x86_64__
