// Every protocol in steal/registry.hpp, through the one stress loop
// (support/protocol_stress.hpp): every serial exactly once at every thread
// count and every steal amount the protocol honours, with and without an
// owner giving its shallowest nodes away; and traits that the command line
// and the report can rely on. A protocol added to the registry is tested
// here without a new line.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "steal/registry.hpp"
#include "support/protocol_stress.hpp"

using namespace uts;
using namespace uts::test;

namespace {

template <class... P>
void for_each_protocol(ProtocolList<P...>, auto&& f) {
  (f.template operator()<P>(), ...);
}

}  // namespace

TEST_CASE("every registered protocol: exact at 1 to 16 threads, each amount it honours, giving nodes away or not") {
  for_each_protocol(Protocols{}, []<class P>() {
    const ProtocolTraits& t = P::traits;
    for (StealPolicy amount : {StealPolicy{StealAmount::half, 0}, StealPolicy{StealAmount::one, 0},
                               StealPolicy{StealAmount::chunk, 3}}) {
      if (!t.accepts(amount.amount)) continue;
      for (int threads : {1, 2, 4, 16}) {
        for (int give_every : {0, 97}) {
          CAPTURE(std::string(t.name));
          CAPTURE(to_string(amount));
          CAPTURE(threads);
          CAPTURE(give_every);
          StressResult r = stress<P>(threads, 60000, settings_for(t, amount), 21, give_every);
          CHECK(r.exact());
          // On 2 loaded cores a thief may not be scheduled before the owner
          // has expanded everything (seen once in scripts/test): try other
          // seeds, each run exact too, until one has stolen; a steal path
          // that never succeeds still fails.
          for (unsigned seed = 22; threads > 1 && r.steals == 0 && seed < 30; ++seed) {
            r = stress<P>(threads, 60000, settings_for(t, amount), seed, give_every);
            CHECK(r.exact());
          }
          if (threads > 1) CHECK(r.steals > 0);
          if (give_every) CHECK(r.given > 0);
        }
      }
    }
  });
}

TEST_CASE("the registry: names unique and found, the default first, traits consistent") {
  std::set<std::string> names;
  for (const ProtocolTraits* t : all_protocols()) {
    CAPTURE(std::string(t->name));
    CHECK(names.insert(std::string(t->name)).second);
    CHECK(find_protocol(t->name) == t);
    CHECK(t->accepts(t->default_steal.amount));  // its own default is one it honours
    CHECK(!t->summary.empty());
    CHECK(!t->engine_line.empty());
    CHECK((t->fixed_amount() || t->amounts == kAnyAmount));  // one kind of amount, or any
    if (t->amounts != kAnyAmount) CHECK(!t->amount_rule.empty());     // a refusal says why
  }
  CHECK(find_protocol("") == &default_protocol());
  CHECK(default_protocol().name == "split");
  CHECK(find_protocol("nonesuch") == nullptr);
  CHECK(protocol_names() == "split, locked, request or chaselev");
  CHECK(with_protocol("request", []<class P>() { return std::string(P::traits.name); }) == "request");
  CHECK_THROWS_AS(with_protocol("nonesuch", []<class P>() { return 0; }), std::invalid_argument);
}
