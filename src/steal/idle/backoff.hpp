// Idle back-off: spin briefly (cheap when work reappears soon), then yield the
// core a few times (runs with more threads than cores), then sleep (a serial
// stretch of the tree must not pay for idle threads competing for a core).
#pragma once

#include <thread>

#include "base/cpu_relax.hpp"

namespace uts {

class Backoff {
 public:
  enum class Step { spun, yielded, sleep };

  void reset() { failures_ = 0; }

  // One failed search step: spin or yield here, or tell the caller to sleep.
  Step next() {
    const unsigned f = failures_++;
    if (f < kSpinRounds) {
      const unsigned spins = 1u << (f < 6 ? f : 6);
      for (unsigned i = 0; i < spins; ++i) cpu_relax();
      return Step::spun;
    }
    if (f < kSpinRounds + kYieldRounds) {
      std::this_thread::yield();
      return Step::yielded;
    }
    return Step::sleep;  // the caller sleeps, then reset()s: a woken thread probes eagerly
  }

 private:
  static constexpr unsigned kSpinRounds = 16;
  static constexpr unsigned kYieldRounds = 16;
  unsigned failures_ = 0;
};

}  // namespace uts
