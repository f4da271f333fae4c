#include <chrono>
#include <cstdio>
// The kernel rounds of sha1/avx512_kernel.hpp, run on NB batches of 16 lanes
// interleaved round by round (NB = 1: the shipped kernel), each call
// depending on the previous one through its input. Measures whether a
// second independent chain of rounds lets the core get nearer its limit.
// Build: g++ -O3 -std=c++20 -I src two_batches.cpp (from the repository root).
#include "sha1/avx512_kernel.hpp"
// GCC bug 105593, as in src/sha1/avx512.cpp: nothing reads an undefined value.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
using namespace uts::sha1;
using namespace uts::sha1::avx512_kernel;

template <int T0, int T1, int NB>
[[gnu::always_inline]] UTS_AVX512_KERNEL inline void roundsN(V (&w)[NB][16], V (&st)[NB][5]) {
#pragma GCC unroll 80
  for (int t = T0; t < T1; ++t) {
#pragma GCC unroll 4
    for (int q = 0; q < NB; ++q) {
      V& a = st[q][0]; V& b = st[q][1]; V& c = st[q][2]; V& d = st[q][3]; V& e = st[q][4];
      if (t >= 16) { const int i = t & 15; w[q][i] = rol<1>(w[q][(t - 3) & 15] ^ w[q][(t - 8) & 15] ^ w[q][(t - 14) & 15] ^ w[q][i]); }
      const V b30 = rol<30>(b);
      V f; std::uint32_t k;
      if (t < 20) { f = ternary<0xCA>(b, c, d); k = 0x5A827999u; }
      else if (t < 40) { f = ternary<0x96>(b, c, d); k = 0x6ED9EBA1u; }
      else if (t < 60) { f = ternary<0xE8>(b, c, d); k = 0x8F1BBCDCu; }
      else { f = ternary<0x96>(b, c, d); k = 0xCA62C1D6u; }
      const V temp = rol<5>(a) + f + e + (splat(k) + w[q][t & 15]);
      e = d; d = c; c = b30; b = a; a = temp;
    }
  }
}

template <int NB>
UTS_AVX512_KERNEL __attribute__((noinline)) void multi(const SlotBatch* in, Ids* out) {
  V w[NB][16]; V st[NB][5];
  const std::uint32_t iv[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  for (int q = 0; q < NB; ++q) {
    load_slots(in[q], w[q]);
    w[q][6] = splat(0x80000000u);
    for (int k = 7; k < 15; ++k) w[q][k] = splat(0);
    w[q][15] = splat(24 * 8);
    for (int k = 0; k < 5; ++k) st[q][k] = splat(iv[k]);
  }
  roundsN<0, 80, NB>(w, st);
  for (int q = 0; q < NB; ++q)
    for (int k = 0; k < 5; ++k) *reinterpret_cast<V*>(out[q].word[k]) = st[q][k] + splat(iv[k]);
}

template <int NB>
void bench() {
  static SlotBatch in[NB]; static Ids out[NB];
  for (int q = 0; q < NB; ++q) for (int l = 0; l < 16; ++l) { in[q].slot[l] = l % 4; in[q].word[0][l] = l * 7 + q; }
  const long iters = 4000000 / NB;
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < iters; ++i) { multi<NB>(in, out); in[0].first[0] += out[0].word[0][0] & 1; }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("NB=%d  %.1f M blocks/s\n", NB, iters * NB * 16 / s / 1e6);
}
int main() { for (int r = 0; r < 2; ++r) { bench<1>(); bench<2>(); bench<3>(); } }
