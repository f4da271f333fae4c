// steal/idle/termination.hpp: the double scan, and the thief's side of its
// rule (BusyMark).
#include <doctest/doctest.h>

#include <csignal>
#include <vector>

#include "base/interrupt.hpp"
#include "steal/idle/termination.hpp"

using namespace uts;

TEST_CASE("termination: the double scan ends only when every thread is idle") {
  Termination t(3);
  std::vector<std::uint64_t> scan;
  CHECK_FALSE(t.detect(scan));  // all start busy
  t.idle(0);
  t.idle(1);
  CHECK_FALSE(t.detect(scan));
  t.busy(0);  // a thief about to claim
  t.idle(2);
  CHECK_FALSE(t.detect(scan));
  t.idle(0);
  CHECK_FALSE(t.done());
  CHECK(t.detect(scan));
  CHECK(t.done());
}

TEST_CASE("quiescent() says every thread is idle without ending the run; finish() ends it") {
  Termination t(2);
  std::vector<std::uint64_t> scan;
  BusyMark a(t, 0), b(t, 1);
  a.idle();
  CHECK_FALSE(t.quiescent(scan));
  b.idle();
  CHECK(t.quiescent(scan));
  CHECK_FALSE(t.done());  // a rank's quiescence is not the job's end
  b.busy();               // nodes from another rank
  CHECK_FALSE(t.quiescent(scan));
  b.idle();
  t.finish();
  CHECK(t.done());
  CHECK(t.detect(scan));  // once done, always done
}

// A signal before the end makes the run interrupted, one after it does not
// (the header's argument): signal_at_end() is the end's own reading.
TEST_CASE("termination: a signal before the end is kept by it, one after it is not") {
  interrupt::install();
  interrupt::reset_for_testing();
  std::vector<std::uint64_t> scan;
  {
    Termination t(1);
    t.idle(0);
    std::raise(SIGUSR1);  // handled on this thread before raise() returns
    CHECK(t.detect(scan));
    CHECK(t.signal_at_end() == SIGUSR1);
  }
  interrupt::reset_for_testing();
  {
    Termination t(1);
    t.idle(0);
    CHECK(t.detect(scan));
    std::raise(SIGUSR2);  // after the end
    CHECK(t.signal_at_end() == 0);
    CHECK(t.detect(scan));  // a later detector (done already) does not read it again
    CHECK(t.signal_at_end() == 0);
  }
  interrupt::reset_for_testing();
  {
    Termination t(1);  // across ranks: finish() is the end
    std::raise(SIGHUP);
    t.finish();
    CHECK(t.signal_at_end() == SIGHUP);
  }
  interrupt::reset_for_testing();
}
