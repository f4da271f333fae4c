// The split protocol (split_protocol.hpp) under the shared stress loop:
// its conservation law holds at every thread count and steal amount.
#include <doctest/doctest.h>

#include "steal/protocols/split/split_protocol.hpp"
#include "support/protocol_stress.hpp"

using namespace uts;
using namespace uts::test;

TEST_CASE("split: every node shared was stolen or reclaimed, oversubscribed") {
  for (int threads : {2, 4, 8, 16}) {
    for (StealPolicy p : {StealPolicy{StealAmount::half, 0}, StealPolicy{StealAmount::one, 0},
                          StealPolicy{StealAmount::chunk, 3}}) {
      CAPTURE(threads);
      CAPTURE(to_string(p));
      const auto r = stress<SplitProtocol>(threads, 200000, settings_for(SplitProtocol::traits, p), 11, threads >= 4 ? 61 : 0);
      CHECK(r.exact());
      CHECK(r.steals > 0);
      CHECK(r.sum.shares > 0);
      CHECK(r.sum.nodes_shared == r.nodes_stolen + r.sum.nodes_reclaimed);
    }
  }
}
