#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "sha1/batch.hpp"
namespace uts::sha1 { struct Job { std::uint32_t w[6]; }; extern const Job* g_jobs; }
using namespace uts::sha1;
int main(int argc, char** argv) {
  const long calls = argc > 1 ? atol(argv[1]) : 2000000;
  Batch b; Job jobs[6];
  for (int l = 0; l < 6; ++l) jobs[l] = {{1, 2, 3, 4, (unsigned)l, (unsigned)l}};
  g_jobs = jobs;
  Ids ids;
  auto t0 = std::chrono::steady_clock::now();
  for (long c = 0; c < calls; ++c) { child_ids_shani(b, 6, ids); jobs[c % 6].w[4] = ids.word[4][0]; }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("var %.2f M blocks/s %08x\n", calls * 6 / s / 1e6, ids.word[0][5]);
}
