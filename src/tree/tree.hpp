// The generation rules of a UTS tree (docs/tree-rules.md): root id, child
// ids, and the number of children of a node from its id and height.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/cache_line.hpp"
#include "base/interrupt.hpp"
#include "sha1/batch.hpp"
#include "tree/node.hpp"
#include "tree/params.hpp"

namespace uts {

inline constexpr int kMaxChildren = kMaxChildrenCap;

struct PairVisitInKernel;

class Tree {
  // The pair visit inlined into the kernel (tree/visit_lanes_avx512.hpp)
  // reads the rule's tables.
  friend struct PairVisitInKernel;

 public:
  // `path` picks how child ids are hashed (sha1/batch.hpp); it must already
  // be resolved for this CPU (automatic means: the best path this CPU has).
  explicit Tree(const TreeParams& params, sha1::Path path = sha1::Path::automatic);

  const TreeParams& params() const { return params_; }
  sha1::Path sha1_path() const { return path_; }

  Node root() const;

  // Number of children after the caps. `id_word4` is the id's last state word,
  // which is bytes 16..19 read big-endian: the `x` of the variate. Always
  // inlined (as the rule it calls): it runs once per node, and GCC otherwise
  // leaves it out of line in the engine's larger worker loop
  // (results/benchmarks/2026-11-28-expander-figures.md).
  [[gnu::always_inline]] int num_children(std::uint32_t id_word4, std::uint32_t height) const {
    switch (params_.type) {
      case TreeType::binomial:
        return height == 0 ? binomial_root_children_ : binomial_children(id_word4);
      case TreeType::geometric:
        return geometric_children(id_word4, height);
      case TreeType::hybrid:
        return height < hybrid_geometric_below_ ? geometric_children(id_word4, height)
                                                : binomial_children(id_word4);
      case TreeType::balanced:
        return static_cast<std::int64_t>(height) < params_.depth ? balanced_children_ : 0;
    }
    return 0;
  }

  sha1::Words child_id(const sha1::Words& parent, std::uint32_t index) const {
    sha1::Words id;
    child_ids(parent, index, 1, &id);
    return id;
  }

  // ids of children first .. first+count-1, hashed side by side where the
  // path allows. -g G computes each batch G times (same ids, G times the
  // cost); then a stop request (interrupt::stop_requested) is polled every
  // kGranularityPoll repetitions, and false means the batch was abandoned:
  // `out` holds no ids and the caller drops the batch.
  bool child_ids(const sha1::Words& parent, std::uint32_t first, std::uint32_t count, sha1::Words* out) const {
    if (params_.granularity == 1) {
      sha1::child_ids(path_, parent, first, count, out);
      return true;
    }
    return repeat([&] { sha1::child_ids(path_, parent, first, count, out); });
  }
  // The same for the lane path's row batch (shani, cryptopp), whose lanes
  // may come from different parents (count <= sha1::kMaxLanes).
  bool child_ids(const sha1::RowBatch& in, int count, sha1::RowIds& out) const {
    if (params_.granularity == 1) {
      sha1::child_ids(path_, in, count, out);
      return true;
    }
    return repeat([&] { sha1::child_ids(path_, in, count, out); });
  }

  // The same for the AVX-512 path's slot batch (all sixteen lanes).
  bool child_ids(const sha1::SlotBatch& in, sha1::Ids& out) const {
    if (params_.granularity == 1) {
      sha1::child_ids_avx512(in, out);
      return true;
    }
    return repeat([&] { sha1::child_ids_avx512(in, out); });
  }

  // The AVX-512 path's step after hashing (tree/visit_avx512.cpp): for lanes
  // 0 .. n-1 of `ids` (children at heights[0 .. n-1]), each child's number of
  // children into `children`, and what the batch adds to the counts. Equal to
  // num_children() lane by lane (lanes the vector rules cannot settle, such
  // as a geometric variate near a threshold, take num_children() itself).
  // Only where sha1::cpu_has_avx512().
  struct BatchVisit {
    std::uint32_t inner = 0;       // bit j: child j has children
    std::uint32_t kept = 0;        // bits set in `inner`
    std::uint64_t checksum = 0;    // sum of the children's checksum_term()
    std::uint32_t max_height = 0;  // the highest of heights[0 .. n-1]
  };
  void visit_batch_avx512(const sha1::Ids& ids, const std::uint32_t* heights, int n, std::uint32_t* children,
                          BatchVisit& out) const;
  // The lane path's visit (shani, cryptopp; any CPU): the same for lanes 0
  // .. n-1 of ids hashed from a RowBatch, scalar (tree/visit_rows.cpp).
  void visit_rows(const sha1::RowIds& ids, const std::uint32_t* heights, int n, std::uint32_t* children,
                  BatchVisit& out) const;
  // The same for ids hashed from a SlotBatch whose parents (slot s) are at
  // slot_heights[s] - 1: lane l's child is at slot_heights[in.slot[l]],
  // which is also written to heights[l].
  void visit_slots_avx512(const sha1::Ids& ids, const sha1::SlotBatch& in, const std::uint32_t* slot_heights, int n,
                          std::uint32_t* heights, std::uint32_t* children, BatchVisit& out) const;
  // child_ids(in, ids) then visit_slots_avx512(), in one call; -g 1 only
  // (a repeated hash goes through child_ids(), which polls for a stop).
  void hash_visit_slots_avx512(const sha1::SlotBatch& in, const std::uint32_t* slot_heights, int n, sha1::Ids& ids,
                               std::uint32_t* heights, std::uint32_t* children, BatchVisit& out) const;
  // The same for two slot batches, the first full (16 lanes) and the second
  // with n, their rounds interleaved in one kernel. Batch q's lanes are
  // columns 16q + l of ids, heights and children, and bit 16q + l of
  // out.inner.
  void hash_visit_slot_pair_avx512(const sha1::SlotBatch& first, const std::uint32_t* first_heights,
                                   const sha1::SlotBatch& second, const std::uint32_t* second_heights, int n,
                                   sha1::Ids& ids, std::uint32_t* heights, std::uint32_t* children,
                                   BatchVisit& out) const;
  // hash_visit_slot_pair_avx512's visit alone, for ids already hashed.
  void visit_slot_pair_avx512(const sha1::Ids& ids, const sha1::SlotBatch& first,
                              const std::uint32_t* first_heights, const sha1::SlotBatch& second,
                              const std::uint32_t* second_heights, int n, std::uint32_t* heights,
                              std::uint32_t* children, BatchVisit& out) const;
  int granularity() const { return params_.granularity; }
  // Whether the AVX-512 visit counts geometric children against one row of
  // thresholds held in registers (see shared_row_) instead of gathering
  // from the bucket tables. For tests.
  bool geometric_row_in_registers() const { return shared_row_below_ != 0; }

  // Exposed for tests: the log-per-node path the fast path must agree with.
  int num_children_exact(std::uint32_t id_word4, std::uint32_t height) const {
    if (params_.type == TreeType::geometric ||
        (params_.type == TreeType::hybrid && height < hybrid_geometric_below_))
      return geometric_children_exact(id_word4, height);
    return num_children(id_word4, height);
  }

  // The uniform variate u of a node in [0,1), per RNG convention.
  double variate(std::uint32_t x) const {
    return params_.rng == RngConvention::uts ? static_cast<double>(x & 0x7FFFFFFFu) / 2147483648.0
                                             : static_cast<double>(x) / 4294967296.0;
  }

  // The geometric rule's mean b_h at height h, as the reference computes it.
  double geometric_mean(std::uint32_t height) const;

  // How many nodes had their child count cut to a cap (spec: report once).
  // relaxed: a statistic, read after the threads have joined.
  std::uint64_t truncations() const { return truncations_.value.load(std::memory_order_relaxed); }

 private:
  // visit_batch_avx512 on n lanes, 1 to 32 (columns 0 .. n-1 of ids,
  // heights and children).
  void visit_lanes_avx512(const sha1::Ids& ids, const std::uint32_t* heights, int n, std::uint32_t* children,
                          BatchVisit& out) const;
  // The lanes (bits of `lanes`) of column group `col` the vector rules left
  // unsettled, by num_children(), into children[col + lane]. Out of line:
  // rare, and it calls log().
  [[gnu::cold, gnu::noinline]] void settle_lanes(const sha1::Ids& ids, const std::uint32_t* heights, int col,
                                                 unsigned lanes, std::uint32_t* children) const;

  // u < q with u = v / 2^s exactly (a power-of-two scale), so for an integer
  // v: u < q  <=>  v < ceil(q * 2^s), an integer compare (built in the constructor).
  int binomial_children(std::uint32_t x) const { return (x & variate_mask_) < binomial_below_ ? params_.m : 0; }

  // The reference's formula, evaluated as written.
  int geometric_children_exact(std::uint32_t x, std::uint32_t height) const {
    const double log_1mp =
        height < log_one_minus_p_.size() ? log_one_minus_p_[height] : log_one_minus_p(height);
    const double n = std::floor(std::log(1.0 - variate(x)) / log_1mp);
    if (!(n > 0.0)) return 0;  // also catches NaN from b_h < 0 or 0/0
    if (n > kMaxChildren) return note_truncation(kMaxChildren);
    return static_cast<int>(n);
  }

  // Same result without a log per node: the formula is increasing in the
  // variate's integer numerator v, so n = #{k : v >= first_v[k]}, where
  // first_v[k-1] is the smallest v the exact formula maps to >= k. Numerators
  // within kThresholdMargin of a threshold take the exact path, so rounding
  // in log cannot make the two disagree.
  [[gnu::always_inline]] int geometric_children(std::uint32_t x, std::uint32_t height) const {
    const std::uint64_t v = x & variate_mask_;
    // Most numerators fall in a bucket no threshold comes near: one load.
    if (height < bucket_heights_) {
      const std::uint8_t n = buckets_[(std::size_t{height} << kBucketBits) + (v >> bucket_shift_)];
      if (n != kAmbiguous) return n;
    }
    if (height >= threshold_heights_) return geometric_children_exact(x, height);
    const HeightThresholds& t = thresholds_[height];
    // Count thresholds <= v eight at a time without a branch per threshold
    // (the count is random, so a branch per step would mispredict once per
    // node); past `count` the table holds UINT64_MAX, which ends the scan.
    int n = 0;
    for (const std::uint64_t* f = t.first_v;; f += 8) {
      int c = 0;
      for (int k = 0; k < 8; ++k) c += v >= f[k] ? 1 : 0;
      n += c;
      if (c < 8) break;
    }
    if ((n > 0 && v - t.first_v[n - 1] < kThresholdMargin) || t.first_v[n] - v <= kThresholdMargin)
      return geometric_children_exact(x, height);
    if (n > kMaxChildren) return note_truncation(kMaxChildren);
    return n;
  }

  // -g G > 1: G hashes of the same batch, polling for a stop now and then.
  static constexpr int kGranularityPoll = 64;
  template <class Hash>
  bool repeat(Hash&& hash) const {
    for (int g = 0; g < params_.granularity; ++g) {
      hash();
      if (g % kGranularityPoll == kGranularityPoll - 1 && interrupt::stop_requested()) return false;
    }
    return true;
  }

  int note_truncation(int cap) const {
    // relaxed: a statistic read once after the threads have joined.
    truncations_.value.fetch_add(1, std::memory_order_relaxed);
    return cap;
  }

  double log_one_minus_p(std::uint32_t height) const;
  // The exact formula's uncapped count for variate numerator v at a height.
  double exact_count(std::uint64_t v, double log_1mp) const;
  void build_thresholds();
  void build_buckets();
  void build_shared_row();

  static constexpr std::uint64_t kThresholdMargin = 8;
  struct HeightThresholds {
    int count = 0;                                    // thresholds that exist (<= 101)
    // first_v[k-1]: first v with n >= k; UINT64_MAX from index `count` on
    // (a multiple of 8 entries, so the eight-wide scan never reads past it).
    static constexpr int kEntries = (kMaxChildren + 1 + 7) / 8 * 8;
    std::uint64_t first_v[kEntries];
    HeightThresholds() { std::fill(first_v, first_v + kEntries, ~std::uint64_t{0}); }
  };

  TreeParams params_;
  sha1::Path path_;
  int binomial_root_children_ = 0;
  int balanced_children_ = 0;
  std::uint32_t hybrid_geometric_below_ = 0;
  std::vector<double> log_one_minus_p_;  // per height, for the heights a tree can reach
  std::vector<HeightThresholds> thresholds_;  // per height, the low heights only
  std::uint32_t threshold_heights_ = 0;        // thresholds_.size()
  // Per height, the numerator range cut into 2^kBucketBits buckets: the count
  // every numerator of the bucket gets when no threshold lies within the
  // margin of it, else kAmbiguous (then the scan above decides). Built from
  // thresholds_, so it cannot disagree with it.
  static constexpr int kBucketBits = 9;
  static constexpr std::uint8_t kAmbiguous = 0xFF;
  static constexpr std::uint32_t kMaxBucketHeights = 512;
  std::vector<std::uint8_t> buckets_;
  std::uint32_t bucket_heights_ = 0;
  int bucket_shift_ = 0;
  // A fixed-shape geometric tree has one row of thresholds for every height
  // below its depth and no children at or past it. The AVX-512 visit then
  // counts a lane's thresholds by a binary search in two registers
  // (visit_avx512.cpp), with no gather and no ambiguous buckets:
  //   shared_row_[j]     first_v[j] of that row for j < 31 (past its count,
  //                      and at j = 31, ~0)
  //   shared_row_below_  heights below it use the row (0: not used)
  //   shared_row_cap_    min(count, 30): a search past it is unsettled
  //   no_children_from_  heights at or past it have no children
  // Lanes between shared_row_below_ and no_children_from_ (a depth past the
  // threshold tables), past the cap, or within the margin of a threshold
  // take num_children(). Built when at most 1/32 of the numerators lie past
  // the row's 31st threshold (b0 up to about 8), so few lanes do.
  // shared_probe_[k][i]: the row read at offset i of the search's level k
  // (tree/row_search_avx512.hpp): row[i + 7], row[i + 3], row[i + 1],
  // row[i] and row[i - 1] (row[0] at i = 0), clamped to row[31]. With them
  // a level's probe is one permute indexed by the count so far.
  alignas(64) std::uint32_t shared_row_[32] = {};
  alignas(64) std::uint32_t shared_probe_[5][32] = {};
  std::uint32_t shared_row_below_ = 0;
  std::uint32_t shared_row_cap_ = 0;
  std::uint32_t no_children_from_ = 0;
  std::uint32_t variate_mask_ = 0xFFFFFFFFu;   // the bits of x that make the variate's numerator
  std::uint64_t binomial_below_ = 0;           // numerators below it have m children
  // Own cache line: the rest of Tree is read-shared by all threads.
  mutable Padded<std::atomic<std::uint64_t>> truncations_;
};

}  // namespace uts
