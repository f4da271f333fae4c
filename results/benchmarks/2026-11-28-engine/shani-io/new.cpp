#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "sha1/batch.hpp"
using namespace uts::sha1;
int main(int argc, char** argv) {
  const long calls = argc > 1 ? atol(argv[1]) : 2000000;
  Batch b;
  for (int l = 0; l < 6; ++l) b.set(l, {1, 2, 3, 4, (unsigned)l}, (unsigned)l);
  Ids ids;
  auto t0 = std::chrono::steady_clock::now();
  for (long c = 0; c < calls; ++c) { child_ids_shani(b, 6, ids); b.word[4][c % 6] = ids.word[4][0]; }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("new %.2f M blocks/s %08x\n", calls * 6 / s / 1e6, ids.word[0][5]);
}
