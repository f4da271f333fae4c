// The pair kernel alone, the out-of-line pair visit alone, and the two in
// turn (the visit of the previous call's ids, as the traversal does), in
// ns per pair of 16-lane batches. The kernel's inputs rotate over four
// pairs so that its 64-byte loads never read a store still in the store
// buffer (over one they wait for it to commit, which waits for every older
// instruction, the visit included). T1L's rule, children at height 5 (the
// search runs) or 13 (the depth: no children).
// Build (from the repository root, after ninja -C build-rel):
//   g++ -O2 -std=c++20 -Isrc -Ibuild-rel <this file> build-rel/src/libutscore.a -lcryptopp -lhwloc -o /tmp/kernel_visit
// Run: taskset -c 1 /tmp/kernel_visit [CALLS] [HEIGHT]
#include <cstdio>
#include <cstdlib>

#include "base/clock.hpp"
#include "sha1/batch.hpp"
#include "tree/tree.hpp"

using namespace uts;

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 2000000;
  const auto height = static_cast<std::uint32_t>(argc > 2 ? std::atoi(argv[2]) : 5);
  if (!sha1::cpu_has_avx512()) {
    std::fprintf(stderr, "kernel_visit: this CPU has no AVX-512\n");
    return 2;
  }
  TreeParams p;  // T1L
  p.type = TreeType::geometric;
  p.shape = GeoShape::fixed;
  p.b0 = 4;
  p.depth = 13;
  p.seed = 29;
  const Tree tree(p, sha1::Path::avx512);
  static sha1::SlotBatch pair[8];
  alignas(64) static std::uint32_t slot_heights[sha1::kMaxLanes];
  for (int q = 0; q < 8; ++q)
    for (int s = 0; s < 4; ++s) pair[q].put(s, sha1::Words{1, 2, 3, 4, static_cast<std::uint32_t>(4 * q + s)}, 4 * s, 0);
  for (auto& h : slot_heights) h = height;
  static sha1::Ids ids[2];
  sha1::child_ids_avx512(pair[0], pair[1], ids[0]);
  sha1::child_ids_avx512(pair[2], pair[3], ids[1]);
  alignas(64) std::uint32_t heights[2 * sha1::kMaxLanes], children[2 * sha1::kMaxLanes];
  std::uint64_t fold = 0;
  for (int rep = 0; rep < 2; ++rep) {
    for (int mode = 0; mode < 3; ++mode) {
      const bool kernel = mode != 1, visit = mode != 0;
      const auto start = Clock::now();
      for (long c = 0; c < calls; ++c) {
        if (kernel) {
          pair[2 * ((c + 2) & 3)].first[c & 3] = static_cast<std::uint32_t>(c);
          sha1::child_ids_avx512(pair[2 * (c & 3)], pair[2 * (c & 3) + 1], ids[c & 1]);
        }
        if (visit) {
          Tree::BatchVisit v;
          tree.visit_slot_pair_avx512(ids[(c & 1) ^ 1], pair[0], slot_heights, pair[1], slot_heights,
                                      sha1::kMaxLanes, heights, children, v);
          fold += v.checksum + v.kept;
        }
      }
      const char* name = mode == 0 ? "kernel" : mode == 1 ? "visit" : "kernel_then_visit";
      std::printf("%s_ns_per_pair %.2f\n", name, seconds_since(start) / static_cast<double>(calls) * 1e9);
    }
  }
  std::printf("fold %llu\n", static_cast<unsigned long long>(fold));
}
