// Latency and throughput of the zmm instructions the AVX-512 SHA-1 kernel
// is made of, and of the kernel's own mix, in cycles. The clock is measured
// first with a chain of dependent 64-bit adds (one cycle each), so the
// figures do not depend on the VM's reported MHz.
// Build and run: gcc -O2 zmm_rates.c -o zmm_rates && ./zmm_rates
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define N 100000000UL
static double ghz;
#define CLOBBER "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11"
#define RUN(name, body, ops)                                                     \
  {                                                                              \
    double best = 1e9;                                                           \
    for (int r = 0; r < 3; ++r) {                                                \
      double t = now();                                                          \
      for (unsigned long i = 0; i < N; i++) __asm__ volatile(body ::: CLOBBER); \
      double s = now() - t;                                                      \
      if (s < best) best = s;                                                    \
    }                                                                            \
    printf("%-44s %.3f cycles per instruction\n", name, best * ghz * 1e9 / (N * (double)(ops))); \
  }

#define R4(x) x x x x
#define ADD_CHAIN "vpaddd %%zmm1,%%zmm0,%%zmm0\n\t"
#define ROL_CHAIN "vprold $5,%%zmm0,%%zmm0\n\t"
#define TERN_CHAIN "vpternlogd $0x96,%%zmm1,%%zmm2,%%zmm0\n\t"
// Ten independent instructions in the kernel's proportions per round:
// three rotates (rol5 a, rol30 b, rol1 in the schedule), four adds, three
// logic (the round function and the schedule's XORs).
#define MIX                                                                                      \
  "vprold $5,%%zmm0,%%zmm0\n\tvpaddd %%zmm11,%%zmm1,%%zmm1\n\tvpternlogd $0x96,%%zmm11,%%zmm10,%%zmm2\n\t" \
  "vpaddd %%zmm11,%%zmm3,%%zmm3\n\tvprold $5,%%zmm4,%%zmm4\n\tvpaddd %%zmm11,%%zmm5,%%zmm5\n\t"           \
  "vpxord %%zmm11,%%zmm6,%%zmm6\n\tvpaddd %%zmm11,%%zmm7,%%zmm7\n\tvprold $5,%%zmm8,%%zmm8\n\t"            \
  "vpternlogd $0x96,%%zmm11,%%zmm10,%%zmm9\n\t"
#define INDEP(op) op "%%zmm11,%%zmm0,%%zmm0\n\t" op "%%zmm11,%%zmm1,%%zmm1\n\t" op "%%zmm11,%%zmm2,%%zmm2\n\t" \
  op "%%zmm11,%%zmm3,%%zmm3\n\t" op "%%zmm11,%%zmm4,%%zmm4\n\t" op "%%zmm11,%%zmm5,%%zmm5\n\t"              \
  op "%%zmm11,%%zmm6,%%zmm6\n\t" op "%%zmm11,%%zmm7,%%zmm7\n\t"

int main(void) {
  // Clock: 4 dependent adds per iteration, one cycle each.
  unsigned long x = 1;
  double best = 1e9;
  for (int r = 0; r < 3; ++r) {
    double t = now();
    for (unsigned long i = 0; i < 4 * N; i++) __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0" : "+r"(x));
    double s = now() - t;
    if (s < best) best = s;
  }
  ghz = 16.0 * N / best / 1e9;
  printf("clock (dependent 64-bit adds)                %.3f GHz\n", ghz);
  RUN("vpaddd zmm, latency", R4(ADD_CHAIN), 4)
  RUN("vprold zmm, latency", R4(ROL_CHAIN), 4)
  RUN("vpternlogd zmm, latency", R4(TERN_CHAIN), 4)
  RUN("vpaddd zmm, 8 independent", INDEP("vpaddd "), 8)
  RUN("vpxord zmm, 8 independent", INDEP("vpxord "), 8)
  RUN("vprold zmm, 8 independent",
      "vprold $5,%%zmm0,%%zmm0\n\tvprold $5,%%zmm1,%%zmm1\n\tvprold $5,%%zmm2,%%zmm2\n\tvprold $5,%%zmm3,%%zmm3\n\t"
      "vprold $5,%%zmm4,%%zmm4\n\tvprold $5,%%zmm5,%%zmm5\n\tvprold $5,%%zmm6,%%zmm6\n\tvprold $5,%%zmm7,%%zmm7\n\t", 8)
  RUN("kernel mix (3 rotate, 4 add, 3 logic), independent", MIX MIX, 20)
  return 0;
}
