// The batched child-id paths against Crypto++, the oracle.
#include <doctest/doctest.h>

#include <random>
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

}  // namespace

TEST_CASE("SHA-NI kernel equals Crypto++ for every lane count on 1.2 million random parents and indices") {
  if (!sha1::cpu_has_shani()) {
    MESSAGE("this CPU has no SHA extensions: checking that shani is refused and auto falls back");
    CHECK_FALSE(sha1::resolve(sha1::Path::shani).has_value());
    CHECK(sha1::resolve(sha1::Path::automatic) == sha1::Path::cryptopp);
    return;
  }
  CHECK(sha1::resolve(sha1::Path::automatic) == sha1::Path::shani);
  std::mt19937 rng(2026);
  std::size_t mismatches = 0, checked = 0;
  for (int lanes = 1; lanes <= sha1::kMaxLanes; ++lanes) {
    for (int i = 0; i < 200000; ++i) {
      const sha1::Words parent = random_words(rng);
      // Indices across the whole 32-bit range, not only small ones.
      const std::uint32_t first = (i & 1) ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() % 2000);
      sha1::Words got[sha1::kMaxLanes];
      sha1::child_ids_shani_lanes(lanes, parent, first, got);
      for (int l = 0; l < lanes; ++l) {
        mismatches += got[l] != sha1::child_id(parent, first + static_cast<std::uint32_t>(l));
        ++checked;
      }
    }
  }
  CHECK(checked >= 1000000);
  CHECK(mismatches == 0);
}

TEST_CASE("batched child ids: every count from 1 to the 100-child cap, and the binomial root's 2000") {
  std::mt19937 rng(7);
  std::vector<std::uint32_t> counts;
  for (std::uint32_t n = 1; n <= 100; ++n) counts.push_back(n);
  counts.push_back(2000);
  for (sha1::Path path : {sha1::Path::shani, sha1::Path::cryptopp}) {
    if (!sha1::resolve(path)) continue;  // no SHA-NI here: covered by the case above
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
    const Tree fast(p, sha1::Path::automatic);
    CHECK(portable.sha1_path() == sha1::Path::cryptopp);
    CHECK(fast.sha1_path() == *sha1::resolve(sha1::Path::automatic));
    const Node root = portable.root();
    sha1::Words a[37], b[37];
    portable.child_ids(root.id, 5, 37, a);
    fast.child_ids(root.id, 5, 37, b);
    for (int i = 0; i < 37; ++i) CHECK(a[i] == b[i]);
    CHECK(a[0] == sha1::child_id(root.id, 5));
  }
}

TEST_CASE("jobs from different parents hashed in one call equal Crypto++, every lane count") {
  std::mt19937 rng(11);
  for (sha1::Path path : {sha1::Path::shani, sha1::Path::cryptopp}) {
    if (!sha1::resolve(path)) continue;
    CAPTURE(sha1::to_string(path));
    std::size_t bad = 0, checked = 0;
    for (int count = 1; count <= sha1::kMaxLanes; ++count) {
      for (int rep = 0; rep < 50000; ++rep) {
        sha1::ChildJob jobs[sha1::kMaxLanes];
        for (int l = 0; l < count; ++l) {
          // Sometimes two lanes share a parent, as siblings do.
          jobs[l] = {l > 0 && rng() % 3 == 0 ? jobs[l - 1].parent : random_words(rng),
                     static_cast<std::uint32_t>(rng() % 200)};
        }
        sha1::Words got[sha1::kMaxLanes];
        sha1::child_ids(path, jobs, count, got);
        for (int l = 0; l < count; ++l) {
          bad += got[l] != sha1::child_id(jobs[l].parent, jobs[l].index);
          ++checked;
        }
      }
    }
    CHECK(checked == 50000 * 21);
    CHECK(bad == 0);
  }
}
