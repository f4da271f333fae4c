// The batched child-id paths against Crypto++, the oracle.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "sha1/batch.hpp"
#include "sha1/sha1.hpp"
#include "tree/tree.hpp"

using namespace uts;

namespace {

sha1::Words random_words(std::mt19937& rng) {
  return {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng()),
          static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
}

// Indices across the whole 32-bit range, and small ones as trees have.
std::uint32_t random_index(std::mt19937& rng, int i) {
  return (i & 1) ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() % 2000);
}

const sha1::Path kAllPaths[] = {sha1::Path::avx512, sha1::Path::shani, sha1::Path::cryptopp};

// Sets an environment switch for the life of the object.
struct EnvSwitch {
  const char* name;
  explicit EnvSwitch(const char* n) : name(n) { setenv(name, "1", 1); }
  ~EnvSwitch() { unsetenv(name); }
};

}  // namespace

TEST_CASE("the AVX-512 kernel on a column batch equals Crypto++ at every batch fill, 1 to 16, on random parents and indices") {
  // SHA-NI takes a row batch (the row batch case below).
  for (sha1::Path path : {sha1::Path::avx512}) {
    CAPTURE(sha1::to_string(path));
    if (!sha1::resolve(path)) {
      MESSAGE("this CPU has no ", std::string(sha1::to_string(path)), ": its kernel is not tested here, and it is refused");
      continue;
    }
    // Every fill a batch can have, from mixed parents too.
    const int width = sha1::kMaxLanes;
    std::mt19937 rng(2026);
    std::size_t mismatches = 0, checked = 0;
    for (int fill = 1; fill <= width; ++fill) {
      for (int i = 0; i < 40000; ++i) {
        // Lanes from different parents, sometimes siblings sharing one;
        // lanes past the fill hold leftovers of earlier batches.
        static sha1::Batch batch;
        sha1::Ids got;
        for (int l = 0; l < fill; ++l)
          batch.set(l, l > 0 && rng() % 3 == 0 ? batch.parent(l - 1) : random_words(rng), random_index(rng, i + l));
        sha1::child_ids_avx512(batch, got);
        for (int l = 0; l < fill; ++l) {
          mismatches += got.get(l) != sha1::child_id(batch.parent(l), batch.index(l));
          ++checked;
        }
      }
    }
    CHECK(checked == 40000u * static_cast<std::size_t>(width * (width + 1) / 2));
    CAPTURE(width);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("the AVX-512 kernel on a slot batch, alone and in a pair, equals Crypto++ in every lane, at every split into parents") {
  if (!sha1::resolve(sha1::Path::avx512)) {
    MESSAGE("this CPU has no avx512: the slot batch kernel is not tested here");
    return;
  }
  std::mt19937 rng(2027);
  std::size_t mismatches = 0, checked = 0, slots_seen = 0;
  static sha1::SlotBatch batch;  // static: later batches keep the leftovers of earlier ones
  static sha1::SlotBatch previous;
  for (int i = 0; i < 60000; ++i) {
    // The sixteen lanes cut into runs (one parent each) of random lengths,
    // from one run of 16 to sixteen runs of 1, as a traversal fills them:
    // a run's first lane holds child `first`, the next first+1, ...; the
    // last run may be a parent's middle (first > 0), or an index near 2^32
    // (it wraps). Sometimes two slots hold the same parent.
    const int fill = 1 + i % sha1::kMaxLanes;
    int lane = 0, s = 0;
    sha1::Words parents[sha1::kMaxLanes];
    std::uint32_t firsts[sha1::kMaxLanes];
    int owner[sha1::kMaxLanes];
    while (lane < fill) {
      const int run = std::min(fill - lane, 1 + static_cast<int>(rng() % (rng() % 2 ? 16 : 3)));
      parents[s] = s > 0 && rng() % 5 == 0 ? parents[s - 1] : random_words(rng);
      firsts[s] = random_index(rng, i + s);
      batch.put(s, parents[s], lane, firsts[s]);
      for (int l = lane; l < lane + run; ++l) owner[l] = s;
      lane += run;
      ++s;
    }
    slots_seen += static_cast<std::size_t>(s);
    // What put() says each lane holds (the definition the kernel must meet).
    for (int l = 0; l < fill; ++l) {
      CHECK(batch.parent(l) == parents[owner[l]]);
      int start = l;
      while (start > 0 && owner[start - 1] == owner[l]) --start;
      CHECK(batch.index(l) == firsts[owner[l]] + static_cast<std::uint32_t>(l - start));
    }
    sha1::Ids got, pair;
    sha1::child_ids_avx512(batch, got);
    // The same batch second in a pair, after the one before it.
    sha1::child_ids_avx512(previous, batch, pair);
    // Every lane, the ones past the fill too: their slots are leftovers,
    // still below sixteen, and the kernel hashes them as the map says.
    for (int l = 0; l < sha1::kMaxLanes; ++l) {
      CHECK(batch.slot[l] < sha1::kMaxLanes);
      const sha1::Words want = sha1::child_id(batch.parent(l), batch.index(l));
      mismatches += got.get(l) != want;
      mismatches += pair.get(sha1::kMaxLanes + l) != want;
      mismatches += pair.get(l) != sha1::child_id(previous.parent(l), previous.index(l));
      ++checked;
    }
    previous = batch;
  }
  CHECK(checked == 60000u * sha1::kMaxLanes);
  CHECK(slots_seen > 2u * 60000u);  // several parents per batch on average, not one run each
  CHECK(mismatches == 0);
}

TEST_CASE("the lane path's row batch: SHA-NI and Crypto++ equal child_id in every lane, at every fill and split into parents") {
  std::mt19937 rng(2028);
  for (sha1::Path path : {sha1::Path::shani, sha1::Path::cryptopp}) {
    CAPTURE(sha1::to_string(path));
    if (!sha1::resolve(path)) {
      MESSAGE("this CPU has no ", std::string(sha1::to_string(path)), ": its row kernel is not tested here");
      continue;
    }
    std::size_t mismatches = 0, checked = 0, rows_seen = 0;
    static sha1::RowBatch batch;  // static: later batches keep the leftovers of earlier ones
    for (int i = 0; i < 40000; ++i) {
      // Lanes 0 .. fill-1 cut into runs, one parent each, as the Expander
      // queues them: put() at a run's first lane writes kFill lanes, the
      // next put() overwrites the ones past its own first lane. An index
      // may wrap past 2^32; sometimes two runs share a parent.
      const int fill = 1 + i % sha1::kMaxLanes;
      int lane = 0;
      sha1::Words parents[sha1::kMaxLanes];
      std::uint32_t index[sha1::kMaxLanes];
      sha1::Words parent{};
      while (lane < fill) {
        const int run = std::min({fill - lane, sha1::RowBatch::kFill, 1 + static_cast<int>(rng() % 8)});
        parent = lane > 0 && rng() % 5 == 0 ? parent : random_words(rng);
        const std::uint32_t first = rng() % 7 == 0 ? 0xFFFFFFFFu - static_cast<std::uint32_t>(rng() % 4)
                                                   : random_index(rng, i + lane);
        batch.put(lane, parent, first);
        for (int l = lane; l < lane + run; ++l) {
          parents[l] = parent;
          index[l] = first + static_cast<std::uint32_t>(l - lane);
        }
        lane += run;
        ++rows_seen;
      }
      // What put() says each lane holds (the definition the kernel must meet).
      for (int l = 0; l < fill; ++l) {
        CHECK(batch.parent(l) == parents[l]);
        CHECK(batch.index(l) == index[l]);
      }
      sha1::RowIds got;
      sha1::child_ids(path, batch, fill, got);
      for (int l = 0; l < fill; ++l) {
        mismatches += got.get(l) != sha1::child_id(parents[l], index[l]);
        ++checked;
      }
    }
    CHECK(checked == 40000u / sha1::kMaxLanes * static_cast<std::size_t>(sha1::kMaxLanes * (sha1::kMaxLanes + 1) / 2));
    CHECK(rows_seen > 2u * 40000u);  // several parents per batch on average
    CHECK(mismatches == 0);
  }
}

TEST_CASE("SHA-NI lane-count entry point (the benchmark's) equals Crypto++") {
  if (!sha1::cpu_has_shani()) return;
  std::mt19937 rng(5);
  std::size_t bad = 0;
  for (int lanes = 1; lanes <= sha1::kShaniLanes; ++lanes) {
    for (int i = 0; i < 20000; ++i) {
      const sha1::Words parent = random_words(rng);
      const std::uint32_t first = random_index(rng, i);
      sha1::Words got[sha1::kShaniLanes];
      sha1::child_ids_shani_lanes(lanes, parent, first, got);
      for (int l = 0; l < lanes; ++l) bad += got[l] != sha1::child_id(parent, first + static_cast<std::uint32_t>(l));
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("batched child ids: every count from 1 to the 100-child cap, and the binomial root's 2000") {
  std::mt19937 rng(7);
  std::vector<std::uint32_t> counts;
  for (std::uint32_t n = 1; n <= 100; ++n) counts.push_back(n);
  counts.push_back(2000);
  for (sha1::Path path : kAllPaths) {
    if (!sha1::resolve(path)) continue;  // not on this CPU: covered by the cases around
    CAPTURE(sha1::to_string(path));
    for (std::uint32_t n : counts) {
      for (int rep = 0; rep < 20; ++rep) {
        const sha1::Words parent = random_words(rng);
        const std::uint32_t first = rep == 0 ? 0 : static_cast<std::uint32_t>(rng() % 100);
        std::vector<sha1::Words> got(n);
        sha1::child_ids(path, parent, first, n, got.data());
        std::size_t bad = 0;
        for (std::uint32_t i = 0; i < n; ++i) bad += got[i] != sha1::child_id(parent, first + i);
        CHECK_MESSAGE(bad == 0, "count ", n);
      }
    }
  }
}

TEST_CASE("a tree hashes the same ids on every path and at every granularity") {
  TreeParams p;
  p.type = TreeType::geometric;
  p.b0 = 4;
  p.depth = 10;
  p.seed = 19;
  for (int g : {1, 3}) {
    p.granularity = g;
    const Tree portable(p, sha1::Path::cryptopp);
    CHECK(portable.sha1_path() == sha1::Path::cryptopp);
    const Node root = portable.root();
    sha1::Words want[37];
    portable.child_ids(root.id, 5, 37, want);
    CHECK(want[0] == sha1::child_id(root.id, 5));
    for (sha1::Path path : {sha1::Path::automatic, sha1::Path::avx512, sha1::Path::shani}) {
      if (!sha1::resolve(path)) continue;
      const Tree fast(p, path);
      CHECK(fast.sha1_path() == *sha1::resolve(path));
      sha1::Words got[37];
      fast.child_ids(root.id, 5, 37, got);
      for (int i = 0; i < 37; ++i) CHECK(got[i] == want[i]);
    }
  }
}

TEST_CASE("auto resolves to the calibrated choice, which this CPU can run") {
  const sha1::Calibration& c = sha1::calibrate();
  CHECK(sha1::resolve(sha1::Path::automatic) == c.chosen);
  CHECK(sha1::resolve(c.chosen).has_value());
  if (sha1::cpu_has_avx512() && sha1::cpu_has_shani()) {
    // Both measured, and the rule applied to what was measured.
    CHECK(c.avx512_rate > 0);
    CHECK(c.shani_rate > 0);
    CHECK(c.chosen == (c.shani_rate > 1.1 * c.avx512_rate ? sha1::Path::shani : sha1::Path::avx512));
  } else if (sha1::cpu_has_avx512() || sha1::cpu_has_shani()) {
    CHECK(c.chosen == (sha1::cpu_has_avx512() ? sha1::Path::avx512 : sha1::Path::shani));
  } else {
    CHECK(c.chosen == sha1::Path::cryptopp);
  }
}

TEST_CASE("forcing a CPU feature off refuses its path and falls back") {
  const bool avx = sha1::cpu_has_avx512(), sha = sha1::cpu_has_shani();
  {
    EnvSwitch off("UTS_SHA1_NO_AVX512");
    CHECK_FALSE(sha1::cpu_has_avx512());
    CHECK_FALSE(sha1::resolve(sha1::Path::avx512).has_value());
    CHECK(sha1::cpu_has_shani() == sha);
  }
  {
    EnvSwitch off("UTS_SHA1_NO_SHANI");
    CHECK_FALSE(sha1::cpu_has_shani());
    CHECK_FALSE(sha1::resolve(sha1::Path::shani).has_value());
    CHECK(sha1::cpu_has_avx512() == avx);
  }
  CHECK(sha1::cpu_has_avx512() == avx);
  CHECK(sha1::resolve(sha1::Path::cryptopp) == sha1::Path::cryptopp);
  // The process-wide automatic choice was made once (calibrate()); the
  // binary's fallback with features forced off is tested end to end in
  // tests/integration (UTS_SHA1_NO_AVX512 / UTS_SHA1_NO_SHANI).
}

TEST_CASE("batch width per path") {
  CHECK(sha1::batch_lanes(sha1::Path::avx512) == 16);
  CHECK(sha1::batch_lanes(sha1::Path::shani) == 6);
  CHECK(sha1::batch_lanes(sha1::Path::cryptopp) == 6);
}
