// The AVX-512 child-id kernel's rounds, for the translation units compiled
// for AVX-512 through target attributes (sha1/avx512.cpp, and the fused
// hash-and-visit in tree/visit_avx512.cpp). Include only where
// <immintrin.h> is available (x86-64), and call only where cpu_has_avx512().
//
// A child's message is 24 bytes: its parent's five state words, the index,
// then constants (the 0x80 terminator in word 6, zeros in words 7-14, the bit
// length 192 in word 15). The rounds below are written as plain vector
// arithmetic on those sixteen words, so the compiler folds every constant:
// rounds 6-15 add one precomputed constant (K + W[t]) instead of a message
// word, and the schedule's first rows lose the XORs with zero words
// (W[16] = rol1(W[2] ^ W[0]), W[17] = rol1(W[3] ^ W[1]), ...).
#pragma once

#include <immintrin.h>

#include <utility>

#include "sha1/batch.hpp"

#define UTS_AVX512_KERNEL __attribute__((target("avx512f,avx512vl")))

namespace uts::sha1::avx512_kernel {

typedef std::uint32_t V __attribute__((vector_size(64)));

UTS_AVX512_KERNEL inline V splat(std::uint32_t x) { return V{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}; }

template <int N>
UTS_AVX512_KERNEL inline V rol(V x) {
  return (x << N) | (x >> (32 - N));  // recognised as vprold
}

// vpternlogd's immediate is the truth table of f(a, b, c) indexed by a*4 + b*2 + c.
template <int Imm>
UTS_AVX512_KERNEL inline V ternary(V a, V b, V c) {
  return reinterpret_cast<V>(
      _mm512_ternarylogic_epi32(reinterpret_cast<__m512i>(a), reinterpret_cast<__m512i>(b),
                                reinterpret_cast<__m512i>(c), Imm));
}

// Round t of NB batches side by side. Called with a t the compiler knows
// (an unrolled loop's, or a constant), so every index and constant below
// is folded.
template <int NB>
[[gnu::always_inline]] UTS_AVX512_KERNEL inline void round(V (&w)[NB][16], V (&st)[NB][5], const int t) {
#pragma GCC unroll 2
  for (int q = 0; q < NB; ++q) {
    V& a = st[q][0];
    V& b = st[q][1];
    V& c = st[q][2];
    V& d = st[q][3];
    V& e = st[q][4];
    if (t >= 16) {
      const int i = t & 15;
      // W[t] = rol1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]), in a window of 16.
      w[q][i] = rol<1>(w[q][(t - 3) & 15] ^ w[q][(t - 8) & 15] ^ w[q][(t - 14) & 15] ^ w[q][i]);
    }
    // rol30(b) first: then b is dead after f, and vpternlogd (whose first
    // operand is also its destination) can overwrite it without a copy.
    const V b30 = rol<30>(b);
    V f;
    std::uint32_t k;
    if (t < 20) {
      f = ternary<0xCA>(b, c, d);  // Ch: b ? c : d
      k = 0x5A827999u;
    } else if (t < 40) {
      f = ternary<0x96>(b, c, d);  // Parity: b ^ c ^ d
      k = 0x6ED9EBA1u;
    } else if (t < 60) {
      f = ternary<0xE8>(b, c, d);  // Maj
      k = 0x8F1BBCDCu;
    } else {
      f = ternary<0x96>(b, c, d);
      k = 0xCA62C1D6u;
    }
    // (K + W[t]) first: a constant when W[t] is one.
    const V temp = rol<5>(a) + f + e + (splat(k) + w[q][t & 15]);
    e = d;
    d = c;
    c = b30;
    b = a;
    a = temp;
  }
}

// The 80 rounds, with step(k) after every Every-th (not after the last), k
// = 0, 1, ... the step's number: a constant once inlined (the unrolled
// loop's t is), so a step can branch on it at no cost.
// GCC unrolls the loop (the rounds written as the fold below ran slower
// under GCC); clang 14 kept it rolled once a step was in it, indexing the
// message window in memory, so clang gets the rounds as a fold over
// constants (both measured: results/benchmarks/2026-11-25-refill.md).
template <int t, int NB, int Every, class Step>
[[gnu::always_inline]] UTS_AVX512_KERNEL inline void round_then_step(V (&w)[NB][16], V (&st)[NB][5], Step& step) {
  round<NB>(w, st, t);
  if constexpr (Every != 0 && t % Every == Every - 1 && t != 79) step(t / Every);
}
template <int NB, int Every, class Step, int... T>
[[gnu::always_inline]] UTS_AVX512_KERNEL inline void rounds(V (&w)[NB][16], V (&st)[NB][5], Step& step,
                                                            std::integer_sequence<int, T...>) {
#if defined(__clang__)
  (round_then_step<T, NB, Every>(w, st, step), ...);
#else
#pragma GCC unroll 80
  for (int t = 0; t < 80; ++t) {
    round<NB>(w, st, t);
    if constexpr (Every != 0)
      if (t % Every == Every - 1 && t != 79) step(t / Every);
  }
#endif
}

// NB x 16 compressions, of the messages whose words 0-5 are w[q][0..5];
// batch q's digests go to columns 16q.. of `out`. With NB = 2 the rounds of
// the two batches alternate: each batch's rounds are one chain of dependent
// instructions, and a second chain beside it fills the vector pipes the
// first leaves idle (results/benchmarks/2026-11-24-kernel-ceiling.md).
//
// step(k) is called after every Every-th round (Every = 0: never), inlined
// between the rounds: scalar work placed there runs on the integer pipes
// beside the rounds instead of after them.
struct NoStep {
  void operator()(int) const {}
};
template <int NB, int Every = 0, class Step = NoStep>
[[gnu::always_inline]] UTS_AVX512_KERNEL inline void compress_n(V (&w)[NB][16], Ids& out, Step&& step = {}) {
  static_assert(NB >= 1 && 16 * NB <= 2 * kMaxLanes);
  const std::uint32_t iv[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  V st[NB][5];
  for (int q = 0; q < NB; ++q) {
    w[q][6] = splat(0x80000000u);
    for (int k = 7; k < 15; ++k) w[q][k] = splat(0);
    w[q][15] = splat(24 * 8);
    for (int k = 0; k < 5; ++k) st[q][k] = splat(iv[k]);
  }
  rounds<NB, Every>(w, st, step, std::make_integer_sequence<int, 80>{});
  for (int q = 0; q < NB; ++q)
    for (int k = 0; k < 5; ++k) *reinterpret_cast<V*>(out.word[k] + 16 * q) = st[q][k] + splat(iv[k]);
}

// Sixteen compressions of the messages whose words 0-5 are w[0..5].
[[gnu::always_inline]] UTS_AVX512_KERNEL inline void compress(V (&w)[16], Ids& out) {
  compress_n<1>(reinterpret_cast<V(&)[1][16]>(w), out);
}

// The lanes' words 0-5 from a SlotBatch: one vpermd per word.
[[gnu::always_inline]] UTS_AVX512_KERNEL inline void load_slots(const SlotBatch& in, V* w) {
  const __m512i slot = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(in.slot)));
  for (int k = 0; k < 5; ++k)
    w[k] = reinterpret_cast<V>(_mm512_permutexvar_epi32(slot, _mm512_load_si512(in.word[k])));
  const V lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  w[5] = lane + reinterpret_cast<V>(_mm512_permutexvar_epi32(slot, _mm512_load_si512(in.first)));
}

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which
// -Wuninitialized flags once they are inlined into a function instantiated
// elsewhere (GCC bug 105593); nothing here reads an undefined value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// Two slot batches hashed into columns 0-15 and 16-31 of `out`, step(k)
// between every Every rounds. Not inlined: the AVX-512 function its caller
// (compiled without AVX-512) calls; step(k) must be inlined into it
// (an out-of-line call would spill every live zmm register; a rare one,
// such as the visit's scalar settle, is moved to a cold clone by GCC).
template <int Every, class Step>
UTS_AVX512_KERNEL void hash_slot_pair(const SlotBatch& first, const SlotBatch& second, Ids& out, Step&& step) {
  V w[2][16];
  load_slots(first, w[0]);
  load_slots(second, w[1]);
  compress_n<2, Every>(w, out, step);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace uts::sha1::avx512_kernel
