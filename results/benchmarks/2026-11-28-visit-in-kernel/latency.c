// Throughput (independent) and latency (chained) of the instructions the
// geometric row search is made of, in cycles at 4.19 GHz (see pipes.c).
// Build: gcc -O2 -mavx512f latency.c -o /tmp/latency; run: taskset -c 1 /tmp/latency
#include <stdio.h>
#include <time.h>
static double now(){struct timespec a; clock_gettime(CLOCK_MONOTONIC,&a); return a.tv_sec+a.tv_nsec*1e-9;}
#define N 200000000L
int main(){
  double t; 
#define BENCH(name, body) t=now(); for(long i=0;i<N;i++){ __asm__ volatile(body ::: "xmm0","xmm1","xmm2","xmm3","xmm4","xmm5","xmm6","xmm7","xmm8","k1","k2","k3","k4","rax"); } printf("%-28s %.2f cycles/iter\n", name, (now()-t)/N*4.19e9);
  __asm__ volatile("vpxord %%zmm0,%%zmm0,%%zmm0\n vpxord %%zmm1,%%zmm1,%%zmm1\n vpxord %%zmm8,%%zmm8,%%zmm8":::"xmm0","xmm1","xmm8");
  BENCH("8x vpermt2d indep", "vmovdqa64 %%zmm8,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vmovdqa64 %%zmm8,%%zmm3\n vpermt2d %%zmm1,%%zmm0,%%zmm3\n vmovdqa64 %%zmm8,%%zmm4\n vpermt2d %%zmm1,%%zmm0,%%zmm4\n vmovdqa64 %%zmm8,%%zmm5\n vpermt2d %%zmm1,%%zmm0,%%zmm5\n vmovdqa64 %%zmm8,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vmovdqa64 %%zmm8,%%zmm3\n vpermt2d %%zmm1,%%zmm0,%%zmm3\n vmovdqa64 %%zmm8,%%zmm4\n vpermt2d %%zmm1,%%zmm0,%%zmm4\n vmovdqa64 %%zmm8,%%zmm5\n vpermt2d %%zmm1,%%zmm0,%%zmm5\n")
  BENCH("8x vpermd indep", "vpermd %%zmm1,%%zmm0,%%zmm2\n vpermd %%zmm1,%%zmm0,%%zmm3\n vpermd %%zmm1,%%zmm0,%%zmm4\n vpermd %%zmm1,%%zmm0,%%zmm5\n vpermd %%zmm1,%%zmm0,%%zmm2\n vpermd %%zmm1,%%zmm0,%%zmm3\n vpermd %%zmm1,%%zmm0,%%zmm4\n vpermd %%zmm1,%%zmm0,%%zmm5\n")
  BENCH("8x vpcmpud->k indep", "vpcmpud $5,%%zmm1,%%zmm0,%%k1\n vpcmpud $5,%%zmm1,%%zmm0,%%k2\n vpcmpud $5,%%zmm1,%%zmm0,%%k3\n vpcmpud $5,%%zmm1,%%zmm0,%%k4\n vpcmpud $5,%%zmm1,%%zmm0,%%k1\n vpcmpud $5,%%zmm1,%%zmm0,%%k2\n vpcmpud $5,%%zmm1,%%zmm0,%%k3\n vpcmpud $5,%%zmm1,%%zmm0,%%k4\n")
  BENCH("8x vpaddd indep", "vpaddd %%zmm1,%%zmm0,%%zmm2\n vpaddd %%zmm1,%%zmm0,%%zmm3\n vpaddd %%zmm1,%%zmm0,%%zmm4\n vpaddd %%zmm1,%%zmm0,%%zmm5\n vpaddd %%zmm1,%%zmm0,%%zmm2\n vpaddd %%zmm1,%%zmm0,%%zmm3\n vpaddd %%zmm1,%%zmm0,%%zmm4\n vpaddd %%zmm1,%%zmm0,%%zmm5\n")
  BENCH("8x vprold indep", "vprold $5,%%zmm0,%%zmm2\n vprold $5,%%zmm0,%%zmm3\n vprold $5,%%zmm0,%%zmm4\n vprold $5,%%zmm0,%%zmm5\n vprold $5,%%zmm0,%%zmm2\n vprold $5,%%zmm0,%%zmm3\n vprold $5,%%zmm0,%%zmm4\n vprold $5,%%zmm0,%%zmm5\n")
  BENCH("8x vpternlogd indep", "vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm2\n vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm3\n vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm4\n vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm5\n vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm2\n vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm3\n vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm4\n vpternlogd $0x96,%%zmm1,%%zmm0,%%zmm5\n")
  BENCH("chain 8x vpermt2d", "vpermt2d %%zmm1,%%zmm0,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n vpermt2d %%zmm1,%%zmm0,%%zmm2\n")
  BENCH("chain 8x cmp+maskadd", "vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n vpcmpud $5,%%zmm1,%%zmm2,%%k1\n vpaddd %%zmm1,%%zmm2,%%zmm2%{%%k1%}\n")
  BENCH("chain 8x kmovw k->r->k", "kmovw %%k1,%%eax\n kmovw %%eax,%%k1\n kmovw %%k1,%%eax\n kmovw %%eax,%%k1\n kmovw %%k1,%%eax\n kmovw %%eax,%%k1\n kmovw %%k1,%%eax\n kmovw %%eax,%%k1\n")
  return 0; }
