#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "sha1/batch.hpp"
using namespace uts::sha1;
int main(int argc, char** argv) {
  const long calls = argc > 1 ? atol(argv[1]) : 2000000;
  ChildJob jobs[6];
  for (int l = 0; l < 6; ++l) jobs[l] = {{1, 2, 3, 4, (unsigned)l}, (unsigned)l};
  Words out[6];
  auto t0 = std::chrono::steady_clock::now();
  for (long c = 0; c < calls; ++c) { child_ids_shani(jobs, 6, out); jobs[c % 6].parent[4] = out[0][4]; }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("old %.2f M blocks/s %08x\n", calls * 6 / s / 1e6, out[5][0]);
}
