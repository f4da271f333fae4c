// Building a tree's rules (tree.hpp): the caps, the geometric rule's
// thresholds, buckets and register row, and the root.
#include "tree/tree.hpp"

#include "tree/row_search_avx512.hpp"

#include "sha1/sha1.hpp"

#include <algorithm>
#include <cmath>

namespace uts {

namespace {
constexpr std::size_t kMaxTableHeights = 1u << 20;
constexpr std::size_t kMaxThresholdHeights = 4096;
}

Tree::Tree(const TreeParams& params, sha1::Path path)
    : params_(params), path_(sha1::resolve(path).value_or(sha1::Path::cryptopp)) {
  const double b0 = params_.b0;
  // The binomial root takes floor(b0) children, capped at ceil(b0) (never binding).
  binomial_root_children_ = static_cast<int>(std::min(std::floor(b0), std::ceil(b0)));
  balanced_children_ = static_cast<int>(std::floor(b0));
  // Integer h satisfies h < s*D exactly when h < ceil(s*D).
  const double boundary = params_.shift * params_.depth;
  hybrid_geometric_below_ =
      boundary <= 0 ? 0u : static_cast<std::uint32_t>(std::min(std::ceil(boundary), 4.0e9));

  variate_mask_ = params_.rng == RngConvention::uts ? 0x7FFFFFFFu : 0xFFFFFFFFu;
  {
    const double scale = params_.rng == RngConvention::uts ? 2147483648.0 : 4294967296.0;
    const double limit = std::ceil(params_.q * scale);  // exact: q * 2^s only moves the exponent
    binomial_below_ = !(limit > 0) ? 0 : limit >= 8589934592.0 ? (std::uint64_t{1} << 33)
                                                                : static_cast<std::uint64_t>(limit);
  }
  if (params_.type == TreeType::geometric || params_.type == TreeType::hybrid) {
    // Heights past these bounds have b_h = 0 (fixed, linear, cyclic) and are
    // computed on demand; expdec tails off and is also computed on demand.
    std::size_t heights = static_cast<std::size_t>(params_.depth) * 5 + 2;
    heights = std::min(heights, kMaxTableHeights);
    log_one_minus_p_.resize(heights);
    for (std::size_t h = 0; h < heights; ++h)
      log_one_minus_p_[h] = log_one_minus_p(static_cast<std::uint32_t>(h));
    build_thresholds();
    threshold_heights_ = static_cast<std::uint32_t>(thresholds_.size());
    build_buckets();
    build_shared_row();
  }
}

double Tree::exact_count(std::uint64_t v, double log_1mp) const {
  const double scale = params_.rng == RngConvention::uts ? 2147483648.0 : 4294967296.0;
  return std::floor(std::log(1.0 - static_cast<double>(v) / scale) / log_1mp);
}

void Tree::build_thresholds() {
  const std::uint64_t range = params_.rng == RngConvention::uts ? (1ull << 31) : (1ull << 32);
  const std::size_t heights = std::min(log_one_minus_p_.size(), kMaxThresholdHeights);
  thresholds_.resize(heights);
  for (std::size_t h = 0; h < heights; ++h) {
    const double log_1mp = log_one_minus_p_[h];
    HeightThresholds& t = thresholds_[h];
    // b_h <= 0 or NaN: the formula never gives a positive count.
    if (!(log_1mp < 0.0) || std::isinf(log_1mp)) continue;
    auto reaches = [&](std::uint64_t v, int k) { return exact_count(v, log_1mp) >= k; };
    std::uint64_t previous = 0;
    for (int k = 1; k <= kMaxChildren + 1; ++k) {
      if (!reaches(range - 1, k)) break;  // no numerator reaches k children
      // Smallest v >= previous with count >= k, by bisection on the exact
      // formula (increasing in v); the hot path's margin absorbs any
      // last-bit wobble of log around the boundary.
      std::uint64_t lo = previous, hi = range - 1;
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (reaches(mid, k)) hi = mid;
        else lo = mid + 1;
      }
      t.first_v[k - 1] = lo;
      t.count = k;
      previous = lo;
    }
  }
}

void Tree::build_buckets() {
  const int range_bits = params_.rng == RngConvention::uts ? 31 : 32;
  bucket_shift_ = range_bits - kBucketBits;
  const std::uint64_t width = std::uint64_t{1} << bucket_shift_;
  const std::size_t per_height = std::size_t{1} << kBucketBits;
  bucket_heights_ = std::min<std::uint32_t>(threshold_heights_, kMaxBucketHeights);
  // Three bytes more than the table: the AVX-512 step gathers 4 bytes at a
  // bucket's index (visit_avx512.cpp) and keeps the low one.
  buckets_.assign(bucket_heights_ * per_height + 3, kAmbiguous);
  for (std::uint32_t h = 0; h < bucket_heights_; ++h) {
    const HeightThresholds& t = thresholds_[h];
    int n = 0;  // thresholds <= the bucket's first numerator
    for (std::size_t b = 0; b < per_height; ++b) {
      const std::uint64_t lo = b * width, hi = lo + width - 1;
      while (n < t.count && t.first_v[n] <= lo) ++n;
      // Clean: no threshold within the margin (plus one) of [lo, hi], so the
      // scan would give n for every numerator here without the exact path.
      const bool below_clear = n == 0 || t.first_v[n - 1] + kThresholdMargin + 1 < lo;
      const bool above_clear = n == t.count || t.first_v[n] > hi + kThresholdMargin + 1;
      if (below_clear && above_clear && n <= kMaxChildren)
        buckets_[(std::size_t{h} << kBucketBits) + b] = static_cast<std::uint8_t>(n);
    }
  }
}

void Tree::build_shared_row() {
  if (params_.type != TreeType::geometric || params_.shape != GeoShape::fixed || params_.depth < 1) return;
  if (threshold_heights_ == 0) return;
  const HeightThresholds& row = thresholds_[0];
  if (row.count == 0) return;
  const auto depth = static_cast<std::uint32_t>(params_.depth);
  const std::uint32_t below = std::min(depth, threshold_heights_);
  // Every height below the depth has the same b_h = b0, so the same row;
  // checked rather than assumed.
  for (std::uint32_t h = 1; h < below; ++h)
    if (!std::equal(row.first_v, row.first_v + HeightThresholds::kEntries, thresholds_[h].first_v)) return;
  const std::uint64_t range = params_.rng == RngConvention::uts ? (1ull << 31) : (1ull << 32);
  constexpr int kRow = 31;
  if (row.count >= kRow && (range - row.first_v[kRow - 1]) * 32 > range) return;  // too many lanes past the row
  for (int j = 0; j < 32; ++j)
    shared_row_[j] = j < std::min(row.count, kRow) ? static_cast<std::uint32_t>(row.first_v[j]) : 0xFFFFFFFFu;
  row_search::build_probes(shared_row_, shared_probe_);
  shared_row_cap_ = static_cast<std::uint32_t>(std::min(row.count, kRow - 1));
  no_children_from_ = depth;
  shared_row_below_ = below;
}

Node Tree::root() const {
  Node root{};
  if (params_.rng == RngConvention::paper2003) {
    root.id = *params_.root_id;
  } else {
    // SHA-1(16 zero bytes || be32(seed)), as the reference's rng_init.
    std::uint8_t message[20] = {};
    const auto seed = static_cast<std::uint32_t>(params_.seed);
    for (int j = 0; j < 4; ++j) message[16 + j] = static_cast<std::uint8_t>(seed >> (24 - 8 * j));
    root.id = sha1::digest(message, sizeof message);
  }
  root.height = 0;
  root.children = static_cast<std::uint32_t>(num_children(root.id[4], 0));
  return root;
}

double Tree::geometric_mean(std::uint32_t height) const { return uts::geometric_mean(params_, height); }

double Tree::log_one_minus_p(std::uint32_t height) const {
  const double p = 1.0 / (1.0 + geometric_mean(height));
  return std::log(1.0 - p);
}

}  // namespace uts
