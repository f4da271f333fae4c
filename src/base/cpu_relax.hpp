// The pause hint for spin loops: lets the sibling hyperthread run and saves
// power while a thread waits for another one's store.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace uts {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace uts
