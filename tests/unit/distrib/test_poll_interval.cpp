// distrib/poll_interval.hpp: the busy rank's polling interval, alone (the
// agent's use of it, what keeps it short, is in test_agent.cpp).
#include <doctest/doctest.h>

#include "distrib/poll_interval.hpp"

using uts::distrib::PollInterval;

TEST_CASE("PollInterval: doubles while no one asks, up to the longest; back to the shortest when asked") {
  PollInterval p(256, 8192);
  CHECK(p.now() == 256);
  CHECK(p.next(false) == 512);
  CHECK(p.next(false) == 1024);
  CHECK(p.next(false) == 2048);
  CHECK(p.next(false) == 4096);
  CHECK(p.next(false) == 8192);
  CHECK(p.next(false) == 8192);  // capped
  CHECK(p.next(true) == 256);    // asked: at once back to the shortest
  CHECK(p.next(false) == 512);
}

TEST_CASE("PollInterval: equal bounds (or a longest below the shortest) poll at a fixed interval") {
  PollInterval fixed(256, 256);
  for (int i = 0; i < 5; ++i) CHECK(fixed.next(i % 2 == 0) == 256);
  PollInterval unset(300, 0);  // settings not resolved by the command line: fixed
  CHECK(unset.next(false) == 300);
  CHECK(unset.next(true) == 300);
}

TEST_CASE("PollInterval: a longest that is not the shortest times a power of two is reached, not passed") {
  PollInterval p(3, 20);
  CHECK(p.next(false) == 6);
  CHECK(p.next(false) == 12);
  CHECK(p.next(false) == 20);
  CHECK(p.next(false) == 20);
  PollInterval big(1u << 23, 16777216);
  CHECK(big.next(false) == 16777216);
  CHECK(big.next(false) == 16777216);  // no overflow
}
