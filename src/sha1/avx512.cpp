// The AVX-512 child-id kernel: sixteen one-block SHA-1 compressions side by
// side, lane l of every zmm register holding message l. Rotations are
// `vprold`, the round functions one `vpternlogd` each (the rounds:
// sha1/avx512_kernel.hpp). This file and tree/visit_avx512.cpp are the only
// code compiled for AVX-512, through target attributes: the binary still
// starts on a CPU without it, and nothing calls in until cpuid and xgetbv
// said yes (cpu_has_avx512 in sha1/cpu_features.cpp, resolve() in
// sha1/dispatch.cpp).
#include "sha1/batch.hpp"

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which
// -Wuninitialized flags inside a target("avx512f") function (GCC bug 105593);
// nothing here reads an undefined value.
#include "sha1/avx512_kernel.hpp"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define UTS_AVX512 __attribute__((target("avx512f,avx512vl")))

namespace uts::sha1 {

using namespace avx512_kernel;

UTS_AVX512 void child_ids_avx512(const Batch& in, Ids& out) {
  V w[16];
  for (int k = 0; k < 6; ++k) w[k] = *reinterpret_cast<const V*>(in.word[k]);
  compress(w, out);
}

UTS_AVX512 void child_ids_avx512(const SlotBatch& in, Ids& out) {
  V w[16];
  load_slots(in, w);
  compress(w, out);
}

UTS_AVX512 void child_ids_avx512(const SlotBatch& first, const SlotBatch& second, Ids& out) {
  V w[2][16];
  load_slots(first, w[0]);
  load_slots(second, w[1]);
  compress_n<2>(w, out);
}

}  // namespace uts::sha1

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else  // not x86-64: no AVX-512 path (cpu_has_avx512() is false); never called

#include "sha1/sha1.hpp"

namespace uts::sha1 {
void child_ids_avx512(const Batch& in, Ids& out) { child_ids_cryptopp(in, kMaxLanes, out); }
void child_ids_avx512(const SlotBatch& in, Ids& out) {
  for (int l = 0; l < kMaxLanes; ++l) out.put(l, child_id(in.parent(l), in.index(l)));
}
void child_ids_avx512(const SlotBatch& first, const SlotBatch& second, Ids& out) {
  for (int l = 0; l < kMaxLanes; ++l) out.put(l, child_id(first.parent(l), first.index(l)));
  for (int l = 0; l < kMaxLanes; ++l) out.put(kMaxLanes + l, child_id(second.parent(l), second.index(l)));
}
}  // namespace uts::sha1

#endif
