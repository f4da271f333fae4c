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
#include "tree/visit_lanes_avx512.hpp"
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

using namespace visit_lanes;

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
  // slower (results/benchmarks/2026-11-28-expander-figures.md).
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
