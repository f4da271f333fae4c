// Idle back-off: spin briefly (cheap when work reappears soon), then yield the
// core so that runs with more threads than cores still finish promptly.
#pragma once

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace uts {

class Backoff {
 public:
  void reset() { failures_ = 0; }

  void pause() {
    if (failures_ < kSpinRounds) {
      const unsigned spins = 1u << (failures_ < 6 ? failures_ : 6);
      for (unsigned i = 0; i < spins; ++i) cpu_relax();
      ++failures_;
    } else {
      std::this_thread::yield();
    }
  }

 private:
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
  static constexpr unsigned kSpinRounds = 16;
  unsigned failures_ = 0;
};

}  // namespace uts
