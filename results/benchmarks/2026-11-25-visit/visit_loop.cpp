// The visit after a pair kernel alone (Tree::visit_batch_avx512 on 32
// lanes), in a loop over 8 prepared batches of random ids and heights 1-10:
// calls do not wait for each other, so this is the visit's cost per call
// at throughput. A benchmark, not a test (results/benchmarks/2026-11-25-visit.md).
// From the repository root, after `ninja -C build-rel`:
//   g++ -O2 -std=c++20 -Isrc -Ibuild-rel/src results/benchmarks/2026-11-25-visit/visit_loop.cpp \
//       build-rel/src/libutscore.a -lcryptopp -lhwloc -fopenmp -o /tmp/visit_loop && /tmp/visit_loop
#include <chrono>
#include <cstdio>
#include <random>
#include "tree/tree.hpp"
using namespace uts;
double bench(const TreeParams& p, int reps) {
  Tree tree(p, sha1::Path::avx512);
  static sha1::Ids ids[8];
  alignas(64) static std::uint32_t heights[8][32];
  std::mt19937 rng(1);
  for (int b = 0; b < 8; ++b)
    for (int l = 0; l < 32; ++l) {
      for (int k = 0; k < 5; ++k) ids[b].word[k][l] = rng();
      heights[b][l] = 1 + rng() % 10;
    }
  alignas(64) std::uint32_t children[32];
  Tree::BatchVisit v;
  std::uint64_t sum = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    tree.visit_batch_avx512(ids[r & 7], heights[r & 7], 32, children, v);
    sum += v.kept;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (sum == 1) std::puts("");
  return s / reps * 1e9;
}
int main() {
  TreeParams t1l;  // -t 1 -a 3 -d 13 -b 4 -r 29
  t1l.type = TreeType::geometric; t1l.shape = GeoShape::fixed; t1l.depth = 13; t1l.b0 = 4; t1l.seed = 29;
  TreeParams t3l;  // -t 0 -b 2000 -q 0.200014 -m 5 -r 7
  t3l.type = TreeType::binomial; t3l.b0 = 2000; t3l.q = 0.200014; t3l.m = 5; t3l.seed = 7;
  for (int i = 0; i < 3; ++i) std::printf("T1L %.1f ns  T3L %.1f ns per 32-lane visit\n", bench(t1l, 5000000), bench(t3l, 5000000));
}
