// The AVX-512 path's step after hashing: sixteen children's numbers of
// children, and what they add to the counts, in zmm registers instead of a
// scalar pass per child (the scalar pass was most of the traversal's time
// outside the kernel). Compiled for AVX-512 through target attributes, as
// sha1/avx512.cpp; called only on the avx512 path.
//
// The rules, vectorised where they are a compare or a table lookup:
//   binomial   (x & mask) < below ? m : 0, the root's count at height 0
//   geometric  fixed shape: a binary search of the one row of thresholds
//              every height below the depth shares (tree.hpp, shared_row_;
//              tree/row_search_avx512.hpp); else the per-height bucket table
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
#include "tree/row_search_avx512.hpp"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define UTS_AVX512 __attribute__((target("avx512f,avx512vl,popcnt")))
// A lambda does not take its enclosing function's target: this after its
// parameter list.
#define UTS_AVX512_LAMBDA __attribute__((target("avx512f,avx512vl,popcnt"), always_inline))

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

// The visit's pass over the lanes, sixteen at a time, for one rule:
// rule(v, h, unsettled) gives sixteen lanes' counts and the lanes it cannot
// settle. The sums and the highest height are kept in vectors and reduced
// once, after both halves of a pair. checksum_term(id) = (id[0] << 32) |
// id[1] is, as a 64-bit lane, word 1 interleaved with word 0 above it: the
// unpacks make eight such lanes each (in a shuffled lane order, which a sum
// does not see).
// settle(col, lanes): the scalar rule for the lanes the vector one left.
template <class Settle, class Rule>
UTS_AVX512 inline void visit_columns(const sha1::Ids& ids, const std::uint32_t* heights, int n,
                                     std::uint32_t variate_mask, std::uint32_t* children, Tree::BatchVisit& out,
                                     Settle settle, Rule rule) {
  const __m512i zero = _mm512_setzero_si512();
  std::uint32_t inner_all = 0;
  __m512i sum = zero, highest = zero;
  for (int col = 0; col < n; col += 16) {
    const int left = n - col;
    const bool full = left >= 16;
    const __mmask16 live = static_cast<__mmask16>(full ? 0xFFFFu : (1u << left) - 1u);
    const __m512i h = _mm512_loadu_si512(heights + col);
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

}  // namespace

UTS_AVX512 void Tree::visit_batch_avx512(const sha1::Ids& ids, const std::uint32_t* heights, int n,
                                         std::uint32_t* children, BatchVisit& out) const {
  visit_lanes_avx512(ids, heights, n, children, out);
}

void Tree::settle_lanes(const sha1::Ids& ids, const std::uint32_t* heights, int col, unsigned lanes,
                        std::uint32_t* children) const {
  for (unsigned u = lanes; u != 0; u &= u - 1) {
    const int j = col + __builtin_ctz(u);
    children[j] = static_cast<std::uint32_t>(num_children(ids.word[4][j], heights[j]));
  }
}

// One pass per rule, chosen once per call.
UTS_AVX512 void Tree::visit_lanes_avx512(const sha1::Ids& ids, const std::uint32_t* heights, int n,
                                         std::uint32_t* children, BatchVisit& out) const {
  const auto m = static_cast<std::uint32_t>(params_.m);
  const auto root_children = static_cast<std::uint32_t>(binomial_root_children_);
  const std::uint64_t below = binomial_below_;
  const std::uint32_t mask = variate_mask_;
  auto settle = [&](int col, unsigned lanes) { settle_lanes(ids, heights, col, lanes, children); };
  switch (params_.type) {
    case TreeType::binomial:
      return visit_columns(ids, heights, n, mask, children, out, settle,
                           [=](__m512i v, __m512i h, __mmask16&) UTS_AVX512_LAMBDA {
                             return binomial_lanes(v, h, below, m, root_children);
                           });
    case TreeType::geometric:
      if (shared_row_below_ != 0)
        return visit_columns(ids, heights, n, mask, children, out, settle,
                             [this](__m512i v, __m512i h, __mmask16& unsettled) UTS_AVX512_LAMBDA {
                               return row_search::shared_row_lanes(
                                   v, h, shared_row_, shared_probe_, shared_row_below_, shared_row_cap_,
                                   no_children_from_, static_cast<std::uint32_t>(kThresholdMargin), unsettled);
                             });
      return visit_columns(ids, heights, n, mask, children, out, settle,
                           [this](__m512i v, __m512i h, __mmask16& unsettled) UTS_AVX512_LAMBDA {
                             return geometric_lanes(v, h, bucket_heights_, kBucketBits, bucket_shift_,
                                                    buckets_.data(), kAmbiguous, unsettled);
                           });
    case TreeType::hybrid:
      return visit_columns(ids, heights, n, mask, children, out, settle,
                           [=, this](__m512i v, __m512i h, __mmask16& unsettled) UTS_AVX512_LAMBDA {
                             const __mmask16 geo = _mm512_cmplt_epu32_mask(h, splat(hybrid_geometric_below_));
                             const __m512i g = geometric_lanes(v, h, bucket_heights_, kBucketBits, bucket_shift_,
                                                               buckets_.data(), kAmbiguous, unsettled);
                             unsettled &= geo;
                             return _mm512_mask_mov_epi32(binomial_lanes(v, h, below, m, root_children), geo, g);
                           });
    case TreeType::balanced: {
      const auto depth = static_cast<std::uint32_t>(params_.depth);
      const auto b = static_cast<std::uint32_t>(balanced_children_);
      return visit_columns(ids, heights, n, mask, children, out, settle,
                           [=](__m512i, __m512i h, __mmask16&) UTS_AVX512_LAMBDA {
                             return _mm512_maskz_mov_epi32(_mm512_cmplt_epu32_mask(h, splat(depth)), splat(b));
                           });
    }
  }
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
