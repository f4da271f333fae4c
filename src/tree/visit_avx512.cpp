// The AVX-512 path's step after hashing: sixteen children's numbers of
// children, and what they add to the counts, in zmm registers instead of a
// scalar pass per child (the scalar pass was most of the traversal's time
// outside the kernel). Compiled for AVX-512 through target attributes, as
// sha1/avx512.cpp; called only on the avx512 path.
//
// The rules, vectorised where they are a compare or a table lookup:
//   binomial   (x & mask) < below ? m : 0, the root's count at height 0
//   geometric  fixed shape: a binary search of the one row of thresholds
//              every height below the depth shares, held in two registers
//              (tree.hpp, shared_row_); else the per-height bucket table
//              (tree.hpp), gathered. A lane the vector rule cannot settle
//              (an ambiguous bucket, a numerator near a threshold, a height
//              with no table) takes the scalar num_children() (thresholds,
//              or the exact formula)
//   hybrid     both, chosen per lane by height
//   balanced   height < depth ? b0 : 0
#include "tree/tree.hpp"

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which
// -Wuninitialized flags inside a target("avx512f") function (GCC bug 105593);
// nothing here reads an undefined value.
#include <immintrin.h>

#include "sha1/avx512_kernel.hpp"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define UTS_AVX512 __attribute__((target("avx512f,avx512vl,popcnt")))

namespace uts {

namespace {

UTS_AVX512 inline __m512i splat(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }

// binomial: (numerator < below) ? m : 0; the root (height 0) has its own count.
UTS_AVX512 inline __m512i binomial_lanes(__m512i v, __m512i h, std::uint64_t below, std::uint32_t m,
                                         std::uint32_t root_children) {
  const __mmask16 some = below > 0xFFFFFFFFu ? static_cast<__mmask16>(0xFFFF)
                                             : _mm512_cmplt_epu32_mask(v, splat(static_cast<std::uint32_t>(below)));
  const __m512i k = _mm512_maskz_mov_epi32(some, splat(m));
  return _mm512_mask_mov_epi32(k, _mm512_cmpeq_epi32_mask(h, _mm512_setzero_si512()), splat(root_children));
}

// geometric: the bucket's count; lanes without a table or with an ambiguous
// bucket are set in `unsettled`.
UTS_AVX512 inline __m512i geometric_lanes(__m512i v, __m512i h, std::uint32_t tabled_heights, int bits, int shift,
                                          const std::uint8_t* table, std::uint8_t ambiguous, __mmask16& unsettled) {
  const __mmask16 tabled = _mm512_cmplt_epu32_mask(h, splat(tabled_heights));
  const __m512i index = _mm512_add_epi32(_mm512_sll_epi32(h, _mm_cvtsi32_si128(bits)),
                                         _mm512_srl_epi32(v, _mm_cvtsi32_si128(shift)));
  const __m512i bytes = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), tabled, index, table, 1);
  const __m512i k = _mm512_and_si512(bytes, splat(0xFF));
  unsettled = static_cast<__mmask16>(~tabled | _mm512_cmpeq_epi32_mask(k, splat(ambiguous)));
  return k;
}

// geometric, fixed shape: n = #{j : v >= row[j]} over the row's 31
// thresholds (ascending; ~0 past the row's count), by a binary search whose
// probes are vpermi2d lookups in the two registers holding the row. Settled
// where it matches the scalar rule (tree.hpp, geometric_children): n within
// the cap (else the count may go on past the row, or v is ~0 and matched
// the padding) and v more than the margin from the thresholds on both
// sides. Heights at or past no_children_from have none; heights between
// the two bounds are unsettled.
UTS_AVX512 inline __m512i shared_row_lanes(__m512i v, __m512i h, const std::uint32_t* row, std::uint32_t below,
                                           std::uint32_t cap, std::uint32_t no_children_from, std::uint32_t margin,
                                           __mmask16& unsettled) {
  const __m512i lo = _mm512_load_si512(row), hi = _mm512_load_si512(row + 16);
  __m512i n;
  // Probes row[n + step - 1], at most row[30]. The first probe is row[15] for every lane.
  n = _mm512_maskz_mov_epi32(_mm512_cmpge_epu32_mask(v, splat(row[15])), splat(16));
#pragma GCC unroll 4
  for (std::uint32_t step = 8; step >= 1; step /= 2) {
    const __m512i probe = _mm512_permutex2var_epi32(lo, _mm512_add_epi32(n, splat(step - 1)), hi);
    n = _mm512_mask_add_epi32(n, _mm512_cmpge_epu32_mask(v, probe), n, splat(step));
  }
  // row[n - 1] <= v < row[n]; at n = 0 the index wraps to 31 (masked out).
  const __m512i below_t = _mm512_permutex2var_epi32(lo, _mm512_sub_epi32(n, splat(1)), hi);
  const __m512i above_t = _mm512_permutex2var_epi32(lo, n, hi);
  const __mmask16 some = _mm512_cmpneq_epi32_mask(n, _mm512_setzero_si512());
  const __mmask16 near = _mm512_mask_cmplt_epu32_mask(some, _mm512_sub_epi32(v, below_t), splat(margin)) |
                         _mm512_cmple_epu32_mask(_mm512_sub_epi32(above_t, v), splat(margin)) |
                         _mm512_cmpgt_epu32_mask(n, splat(cap));
  const __mmask16 in_row = _mm512_cmplt_epu32_mask(h, splat(below));
  const __mmask16 none = _mm512_cmpge_epu32_mask(h, splat(no_children_from));
  unsettled = static_cast<__mmask16>((in_row & near) | ~(in_row | none));
  return _mm512_maskz_mov_epi32(in_row, n);
}

// checksum_term(id) = (id[0] << 32) | id[1] for eight lanes, as 64-bit lanes.
UTS_AVX512 inline __m512i checksum_terms(__m256i w0, __m256i w1) {
  return _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(w0), 32), _mm512_cvtepu32_epi64(w1));
}

}  // namespace

UTS_AVX512 void Tree::visit_batch_avx512(const sha1::Ids& ids, const std::uint32_t* heights, int n,
                                         std::uint32_t* children, BatchVisit& out) const {
  visit_lanes_avx512(ids, heights, n, children, out);
}

// Sixteen lanes at a time; the sums and the highest height are kept in
// vectors and reduced once, after both halves of a pair.
UTS_AVX512 void Tree::visit_lanes_avx512(const sha1::Ids& ids, const std::uint32_t* heights, int n,
                                         std::uint32_t* children, BatchVisit& out) const {
  const __m512i zero = _mm512_setzero_si512();
  const auto m = static_cast<std::uint32_t>(params_.m);
  const auto root_children = static_cast<std::uint32_t>(binomial_root_children_);
  std::uint32_t inner_all = 0;
  __m512i sum = zero, highest = zero;
  for (int col = 0; col < n; col += 16) {
    const int left = n - col;
    const __mmask16 live = static_cast<__mmask16>(left >= 16 ? 0xFFFFu : (1u << left) - 1u);
    const __m512i h = _mm512_loadu_si512(heights + col);
    const __m512i x = _mm512_load_si512(ids.word[4] + col);
    const __m512i v = _mm512_and_si512(x, splat(variate_mask_));
    __m512i kids = zero;
    __mmask16 unsettled = 0;
    switch (params_.type) {
      case TreeType::binomial:
        kids = binomial_lanes(v, h, binomial_below_, m, root_children);
        break;
      case TreeType::geometric:
        if (shared_row_below_ != 0)
          kids = shared_row_lanes(v, h, shared_row_, shared_row_below_, shared_row_cap_, no_children_from_,
                                  static_cast<std::uint32_t>(kThresholdMargin), unsettled);
        else
          kids = geometric_lanes(v, h, bucket_heights_, kBucketBits, bucket_shift_, buckets_.data(), kAmbiguous,
                                 unsettled);
        break;
      case TreeType::hybrid: {
        const __mmask16 geo = _mm512_cmplt_epu32_mask(h, splat(hybrid_geometric_below_));
        const __m512i g = geometric_lanes(v, h, bucket_heights_, kBucketBits, bucket_shift_, buckets_.data(),
                                          kAmbiguous, unsettled);
        kids = _mm512_mask_mov_epi32(binomial_lanes(v, h, binomial_below_, m, root_children), geo, g);
        unsettled &= geo;
        break;
      }
      case TreeType::balanced: {
        const __mmask16 above = _mm512_cmplt_epu32_mask(h, splat(static_cast<std::uint32_t>(params_.depth)));
        kids = _mm512_maskz_mov_epi32(above, splat(static_cast<std::uint32_t>(balanced_children_)));
        break;
      }
    }
    _mm512_storeu_si512(children + col, kids);
    unsettled &= live;
    if (unsettled != 0) {
      for (unsigned u = unsettled; u != 0; u &= u - 1) {
        const int j = col + __builtin_ctz(u);
        children[j] = static_cast<std::uint32_t>(num_children(ids.word[4][j], heights[j]));
      }
      kids = _mm512_loadu_si512(children + col);
    }
    const __mmask16 inner = _mm512_mask_cmpneq_epi32_mask(live, kids, zero);
    inner_all |= static_cast<std::uint32_t>(inner) << col;
    // checksum_term(id) = (id[0] << 32) | id[1], summed mod 2^64 over live lanes.
    const __m512i w0 = _mm512_load_si512(ids.word[0] + col), w1 = _mm512_load_si512(ids.word[1] + col);
    const __m512i low = checksum_terms(_mm512_castsi512_si256(w0), _mm512_castsi512_si256(w1));
    const __m512i high = checksum_terms(_mm512_maskz_extracti64x4_epi64(0xFF, w0, 1),
                                        _mm512_maskz_extracti64x4_epi64(0xFF, w1, 1));
    sum = _mm512_add_epi64(sum, _mm512_maskz_mov_epi64(static_cast<__mmask8>(live & 0xFF), low));
    sum = _mm512_add_epi64(sum, _mm512_maskz_mov_epi64(static_cast<__mmask8>(live >> 8), high));
    highest = _mm512_max_epu32(highest, _mm512_maskz_mov_epi32(live, h));
  }
  out.inner = inner_all;
  out.kept = static_cast<std::uint32_t>(__builtin_popcount(inner_all));
  out.checksum = static_cast<std::uint64_t>(_mm512_reduce_add_epi64(sum));
  out.max_height = static_cast<std::uint32_t>(_mm512_reduce_max_epu32(highest));
}

namespace {
// Lane l's height is its slot's: heights[l] = slot_heights[in.slot[l]].
UTS_AVX512 inline void slot_heights_to_lanes(const sha1::SlotBatch& in, const std::uint32_t* slot_heights,
                                             std::uint32_t* heights) {
  const __m512i slot = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(in.slot)));
  _mm512_storeu_si512(heights, _mm512_permutexvar_epi32(slot, _mm512_loadu_si512(slot_heights)));
}
}  // namespace

// The lanes' heights written to heights[], then as above (the loads of
// heights there are forwarded from these stores).
// hash_visit_slots_avx512 (below) is the same after hashing, in one call.
UTS_AVX512 void Tree::visit_slots_avx512(const sha1::Ids& ids, const sha1::SlotBatch& in,
                                         const std::uint32_t* slot_heights, int n, std::uint32_t* heights,
                                         std::uint32_t* children, BatchVisit& out) const {
  slot_heights_to_lanes(in, slot_heights, heights);
  visit_lanes_avx512(ids, heights, n, children, out);
}

// One call per batch on the traversal's path: the kernel's rounds inlined,
// then the visit.
UTS_AVX512 void Tree::hash_visit_slots_avx512(const sha1::SlotBatch& in, const std::uint32_t* slot_heights, int n,
                                              sha1::Ids& ids, std::uint32_t* heights, std::uint32_t* children,
                                              BatchVisit& out) const {
  using namespace sha1::avx512_kernel;
  V w[16];
  load_slots(in, w);
  compress(w, ids);
  // The visit stays a call: inlined here (GCC does not inline one exported
  // function into another in this -fPIC library unless told), the whole was
  // 1.5% slower on T1L and T3L.
  visit_slots_avx512(ids, in, slot_heights, n, heights, children, out);
}

UTS_AVX512 void Tree::hash_visit_slot_pair_avx512(const sha1::SlotBatch& first, const std::uint32_t* first_heights,
                                                  const sha1::SlotBatch& second,
                                                  const std::uint32_t* second_heights, int n, sha1::Ids& ids,
                                                  std::uint32_t* heights, std::uint32_t* children,
                                                  BatchVisit& out) const {
  sha1::avx512_kernel::hash_slot_pair<0>(first, second, ids, sha1::avx512_kernel::NoStep{});
  visit_slot_pair_avx512(ids, first, first_heights, second, second_heights, n, heights, children, out);
}

UTS_AVX512 void Tree::visit_slot_pair_avx512(const sha1::Ids& ids, const sha1::SlotBatch& first,
                                             const std::uint32_t* first_heights, const sha1::SlotBatch& second,
                                             const std::uint32_t* second_heights, int n, std::uint32_t* heights,
                                             std::uint32_t* children, BatchVisit& out) const {
  slot_heights_to_lanes(first, first_heights, heights);
  slot_heights_to_lanes(second, second_heights, heights + sha1::kMaxLanes);
  visit_lanes_avx512(ids, heights, sha1::kMaxLanes + n, children, out);
}

}  // namespace uts

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else

namespace uts {

// No AVX-512 path in this build: never called (sha1::cpu_has_avx512() is false).
void Tree::visit_batch_avx512(const sha1::Ids&, const std::uint32_t*, int, std::uint32_t*, BatchVisit&) const {}
void Tree::visit_slots_avx512(const sha1::Ids&, const sha1::SlotBatch&, const std::uint32_t*, int, std::uint32_t*,
                              std::uint32_t*, BatchVisit&) const {}
void Tree::hash_visit_slots_avx512(const sha1::SlotBatch&, const std::uint32_t*, int, sha1::Ids&, std::uint32_t*,
                                   std::uint32_t*, BatchVisit&) const {}
void Tree::hash_visit_slot_pair_avx512(const sha1::SlotBatch&, const std::uint32_t*, const sha1::SlotBatch&,
                                       const std::uint32_t*, int, sha1::Ids&, std::uint32_t*, std::uint32_t*,
                                       BatchVisit&) const {}
void Tree::visit_slot_pair_avx512(const sha1::Ids&, const sha1::SlotBatch&, const std::uint32_t*,
                                  const sha1::SlotBatch&, const std::uint32_t*, int, std::uint32_t*, std::uint32_t*,
                                  BatchVisit&) const {}

}  // namespace uts

#endif
