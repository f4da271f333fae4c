// The lifeline graph of X10's GLB (Saraswat et al., PPoPP 2011; Zhang et al.
// 2014): a cyclic hypercube over the ranks. With base l and z = ceil(log_l P)
// digits, lifeline j of rank h is h with its j-th base-l digit decremented
// (mod l); when that rank does not exist (>= P) the digit is decremented
// again, at most l - 1 times in all, and lifeline j is left out when none
// of those ranks exists. So every lifeline differs from h (no self-
// lifeline), a rank has at most z of them, and from any rank every digit can
// be walked to any value in at most l - 1 steps: the diameter is at most
// z(l - 1) (tests/unit/distrib/test_lifeline.cpp checks all four properties
// for P = 1..4096 and l in {2, 3, 4, 8}).
//
// A dry rank asks its lifelines for work ("lifeline requests"); a lifeline
// records the thief and pushes nodes to it when it has some. Work therefore
// flows against the edges: from rank 0 it reaches every rank, since every
// rank reaches 0 by walking its digits down.
#pragma once

#include <cstdint>
#include <vector>

namespace uts::distrib {

// z = ceil(log_l P): the number of base-l digits of the ranks 0..P-1 (0 for P = 1).
inline int lifeline_digits(int ranks, int base) {
  int z = 0;
  for (std::int64_t x = 1; x < ranks; x *= base) ++z;
  return z;
}

// Calls f(v) for each of rank h's lifelines v in a job of `ranks` ranks,
// base `base` (>= 2), in digit order.
template <class F>
void for_each_lifeline(int h, int ranks, int base, F&& f) {
  const int z = lifeline_digits(ranks, base);
  std::int64_t x = 1;  // base^j
  int rest = h;        // h's digits from the j-th on
  for (int j = 0; j < z; ++j, x *= base) {
    const int digit = rest % base;
    rest /= base;
    int d = digit;
    for (int k = 1; k < base; ++k) {
      d = d == 0 ? base - 1 : d - 1;  // the j-th digit decremented mod base, the others kept
      const std::int64_t v = h + (d - digit) * x;
      if (v < ranks) {
        f(static_cast<int>(v));
        break;
      }
    }
  }
}

inline std::vector<int> lifelines_of(int h, int ranks, int base) {
  std::vector<int> out;
  for_each_lifeline(h, ranks, base, [&](int v) { out.push_back(v); });
  return out;
}

// The ranks whose lifelines include `b` (b's possible lifeline thieves), in
// increasing order. O(P z): once per rank at start-up.
inline std::vector<int> lifeline_thieves_of(int b, int ranks, int base) {
  std::vector<int> out;
  for (int h = 0; h < ranks; ++h) {
    bool is_thief = false;
    for_each_lifeline(h, ranks, base, [&](int v) { is_thief = is_thief || v == b; });
    if (is_thief) out.push_back(h);
  }
  return out;
}

}  // namespace uts::distrib
