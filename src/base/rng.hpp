// The project's one pseudo-random generator: xorshift64* (Vigna), seeded
// through splitmix64 so that nearby seeds (thread ids, rank numbers) give
// unrelated streams. Thread-private and cheap (three shifts and a multiply
// a number): good enough to spread victims and operations, not for
// statistics that need more.
#pragma once

#include <cstdint>

namespace uts {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(mix(seed)) {
    if (state_ == 0) state_ = 1;  // xorshift's one fixed point
  }

  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  // Uniform enough in [0, n) for n >= 1 (the modulo bias is below 2^-40 for
  // the counts used here: thread, rank and percentage ranges).
  std::uint64_t below(std::uint64_t n) { return next() % n; }

  // splitmix64's finaliser.
  static std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }

 private:
  std::uint64_t state_;
};

}  // namespace uts
