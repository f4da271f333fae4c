// The AVX-512 visit's pieces (tree/visit_avx512.cpp), in a header so that
// the pair kernel's traversal path (tree/slot_expander.hpp, run_pair)
// can run a visit inside the kernel, between its rounds, inlined
// (PairVisitInKernel below). Include only on x86-64; call only where
// sha1::cpu_has_avx512().
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "sha1/batch.hpp"
#include "tree/row_search_avx512.hpp"
#include "tree/tree.hpp"

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which
// -Wuninitialized flags inside a target("avx512f") function (GCC bug
// 105593); nothing here reads an undefined value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define UTS_VISIT_AVX512 __attribute__((target("avx512f,avx512vl,popcnt"), always_inline))

namespace uts::visit_lanes {

UTS_VISIT_AVX512 inline __m512i splat(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }

// binomial: (numerator < below) ? m : 0; the root (height 0) has its own count.
UTS_VISIT_AVX512 inline __m512i binomial_lanes(__m512i v, __m512i h, std::uint64_t below, std::uint32_t m,
                                               std::uint32_t root_children) {
  const __mmask16 some = below > 0xFFFFFFFFu ? static_cast<__mmask16>(0xFFFF)
                                             : _mm512_cmplt_epu32_mask(v, splat(static_cast<std::uint32_t>(below)));
  const __m512i k = _mm512_maskz_mov_epi32(some, splat(m));
  return _mm512_mask_mov_epi32(k, _mm512_cmpeq_epi32_mask(h, _mm512_setzero_si512()), splat(root_children));
}

// geometric: the bucket's count; lanes without a table or with an ambiguous
// bucket are set in `unsettled`.
UTS_VISIT_AVX512 inline __m512i geometric_lanes(__m512i v, __m512i h, std::uint32_t tabled_heights, int bits,
                                                int shift, const std::uint8_t* table, std::uint8_t ambiguous,
                                                __mmask16& unsettled) {
  const __mmask16 tabled = _mm512_cmplt_epu32_mask(h, splat(tabled_heights));
  const __m512i index = _mm512_add_epi32(_mm512_sll_epi32(h, _mm_cvtsi32_si128(bits)),
                                         _mm512_srl_epi32(v, _mm_cvtsi32_si128(shift)));
  const __m512i bytes = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), tabled, index, table, 1);
  const __m512i k = _mm512_and_si512(bytes, splat(0xFF));
  unsettled = static_cast<__mmask16>(~tabled | _mm512_cmpeq_epi32_mask(k, splat(ambiguous)));
  return k;
}

// The visit's pass over the lanes, sixteen at a time, for one rule:
// rule(v, h, unsettled) gives sixteen lanes' counts and the lanes it cannot
// settle. The sums and the highest height are kept in vectors and reduced
// once, after both halves of a pair. checksum_term(id) = (id[0] << 32) |
// id[1] is, as a 64-bit lane, word 1 interleaved with word 0 above it: the
// unpacks make eight such lanes each (in a shuffled lane order, which a sum
// does not see).
// settle(col, lanes): the scalar rule for the lanes the vector one left.
// heights_of(col): the column's heights (by default read from `heights`).
struct LoadHeights {
  const std::uint32_t* heights;
  UTS_VISIT_AVX512 __m512i operator()(int col) const { return _mm512_loadu_si512(heights + col); }
};
template <class Settle, class Rule, class HeightsOf = LoadHeights>
UTS_VISIT_AVX512 inline void visit_columns(const sha1::Ids& ids, const std::uint32_t* heights, int n,
                                           std::uint32_t variate_mask, std::uint32_t* children,
                                           Tree::BatchVisit& out, Settle settle, Rule rule,
                                           HeightsOf heights_of = LoadHeights{nullptr}) {
  if constexpr (std::is_same_v<HeightsOf, LoadHeights>) heights_of.heights = heights;
  const __m512i zero = _mm512_setzero_si512();
  std::uint32_t inner_all = 0;
  __m512i sum = zero, highest = zero;
  for (int col = 0; col < n; col += 16) {
    const int left = n - col;
    const bool full = left >= 16;
    const __mmask16 live = static_cast<__mmask16>(full ? 0xFFFFu : (1u << left) - 1u);
    const __m512i h = heights_of(col);
    const __m512i v = _mm512_and_si512(_mm512_load_si512(ids.word[4] + col), splat(variate_mask));
    __mmask16 unsettled = 0;
    __m512i kids = rule(v, h, unsettled);
    _mm512_storeu_si512(children + col, kids);
    unsettled &= live;
    if (unsettled != 0) [[unlikely]] {
      settle(col, unsettled);
      kids = _mm512_loadu_si512(children + col);
    }
    inner_all |= static_cast<std::uint32_t>(_mm512_mask_cmpneq_epi32_mask(live, kids, zero)) << col;
    __m512i w0 = _mm512_load_si512(ids.word[0] + col), w1 = _mm512_load_si512(ids.word[1] + col);
    if (!full) {
      w0 = _mm512_maskz_mov_epi32(live, w0);
      w1 = _mm512_maskz_mov_epi32(live, w1);
    }
    sum = _mm512_add_epi64(sum, _mm512_add_epi64(_mm512_unpacklo_epi32(w1, w0), _mm512_unpackhi_epi32(w1, w0)));
    highest = _mm512_mask_max_epu32(highest, live, highest, h);
  }
  out.inner = inner_all;
  out.kept = static_cast<std::uint32_t>(__builtin_popcount(inner_all));
  out.checksum = static_cast<std::uint64_t>(_mm512_reduce_add_epi64(sum));
  out.max_height = static_cast<std::uint32_t>(_mm512_reduce_max_epu32(highest));
}


// Lane l's height is its slot's: heights[l] = slot_heights[in.slot[l]].
UTS_VISIT_AVX512 inline void slot_heights_to_lanes(const sha1::SlotBatch& in, const std::uint32_t* slot_heights,
                                                   std::uint32_t* heights) {
  const __m512i slot = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(in.slot)));
  _mm512_storeu_si512(heights, _mm512_permutexvar_epi32(slot, _mm512_loadu_si512(slot_heights)));
}

}  // namespace uts::visit_lanes

namespace uts {

// The pair visit (Tree::visit_slot_pair_avx512) inlined, for the
// fixed-shape geometric row (its count a search in registers); a friend of
// Tree for the row. The binomial rule's visit is a compare and stays out
// of line: inlined too, T3L ran slower
// (results/benchmarks/2026-11-28-visit-in-kernel.md).
struct PairVisitInKernel {
  // Whether run() does this tree's rule (else: the out-of-line visit).
  static bool available(const Tree& t) {
    return t.params_.type == TreeType::geometric && t.shared_row_below_ != 0;
  }
  // As Tree::visit_slot_pair_avx512; only where available(t).
  UTS_VISIT_AVX512 static void run(const Tree& t, const sha1::Ids& ids, const sha1::SlotBatch& first,
                                   const std::uint32_t* first_heights, const sha1::SlotBatch& second,
                                   const std::uint32_t* second_heights, int n, std::uint32_t* heights,
                                   std::uint32_t* children, Tree::BatchVisit& out) {
    // Each column's heights from its batch's slots, kept in a register for
    // the visit (stored for the refills and pushes): read back from memory
    // they lengthened the visit's chain
    // (results/benchmarks/2026-11-28-expander-figures.md).
    auto heights_of = [&](int col) UTS_VISIT_AVX512 {
      const sha1::SlotBatch& b = col == 0 ? first : second;
      const __m512i slot = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(b.slot)));
      const __m512i h = _mm512_permutexvar_epi32(slot, _mm512_loadu_si512(col == 0 ? first_heights : second_heights));
      _mm512_storeu_si512(heights + col, h);
      return h;
    };
    auto settle = [&](int col, unsigned lanes) { t.settle_lanes(ids, heights, col, lanes, children); };
    const int lanes = sha1::kMaxLanes + n;
    visit_lanes::visit_columns(ids, heights, lanes, t.variate_mask_, children, out, settle,
                               [&t](__m512i v, __m512i h, __mmask16& unsettled) UTS_VISIT_AVX512 {
                                 return row_search::shared_row_lanes(
                                     v, h, t.shared_row_, t.shared_probe_, t.shared_row_below_, t.shared_row_cap_,
                                     t.no_children_from_, static_cast<std::uint32_t>(Tree::kThresholdMargin),
                                     unsettled);
                               },
                               heights_of);
  }
};

}  // namespace uts

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
