// steal/idle/termination.hpp: the double scan, and the thief's side of its
// rule (BusyMark).
#include <doctest/doctest.h>

#include <vector>

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
