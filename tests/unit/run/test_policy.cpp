// run/: the policy and locality vocabulary, parsed and printed.
#include <doctest/doctest.h>

#include "run/locality.hpp"
#include "run/policy.hpp"
#include "run/settings.hpp"

using namespace uts;

TEST_CASE("steal amounts: parse, print, claim sizes") {
  for (const char* text : {"half", "one", "chunk:1", "chunk:20", "chunk:999999999"}) {
    const auto p = parse_steal(text);
    REQUIRE(p);
    CHECK(to_string(*p) == text);
  }
  for (const char* bad : {"", "all", "chunk:", "chunk:0", "chunk:-1", "chunk:1000000000", "chunk:3x", "Half"})
    CHECK_FALSE(parse_steal(bad));
  const StealPolicy half{StealAmount::half, 0}, one{StealAmount::one, 0}, chunk{StealAmount::chunk, 4};
  CHECK(half.claim_size(0) == 0);
  CHECK(half.claim_size(1) == 1);
  CHECK(half.claim_size(7) == 4);  // ceil(n/2)
  CHECK(one.claim_size(0) == 0);
  CHECK(one.claim_size(9) == 1);
  CHECK(chunk.claim_size(3) == 0);  // exactly K or nothing
  CHECK(chunk.claim_size(9) == 4);
  CHECK(chunk == *parse_steal("chunk:4"));
  CHECK_FALSE(chunk == *parse_steal("chunk:5"));
  CHECK(half == StealPolicy{StealAmount::half, 7});  // K means nothing outside chunk:K
}

TEST_CASE("victim orders and init spreads: parse and print") {
  for (const char* v : {"random", "linear", "tree", "hier"}) CHECK(to_string(*parse_victim(v)) == std::string(v));
  CHECK_FALSE(parse_victim("manber"));
  CHECK(to_string(*parse_init("root")) == std::string("root"));
  CHECK(to_string(*parse_init("balanced")) == std::string("balanced"));
  CHECK_FALSE(parse_init("spread"));
}

TEST_CASE("domains: levels and virtual counts parse and print; members follow the map") {
  CHECK(parse_domains("numa")->level == DomainLevel::numa);
  CHECK(parse_domains("l3")->level == DomainLevel::l3);
  CHECK(parse_domains("package")->level == DomainLevel::package);
  const auto four = parse_domains("4");
  REQUIRE(four);
  CHECK(four->level == DomainLevel::virtual_count);
  CHECK(four->count == 4);
  CHECK(to_string(*four) == "4");
  for (const char* bad : {"", "0", "-1", "1234567", "socket", "2x"}) CHECK_FALSE(parse_domains(bad));
  DomainMap m;
  m.count = 3;
  m.of_thread = {2, 0, 2, 1};
  m.fill_members();
  CHECK(m.members == std::vector<std::vector<int>>{{1}, {3}, {0, 2}});
  CHECK(m.same(0, 2));
  CHECK_FALSE(m.same(0, 1));
}

TEST_CASE("engine settings: domains in use, processing elements") {
  EngineSettings e;
  CHECK_FALSE(e.uses_domains());
  e.victim = VictimOrder::hier;
  CHECK(e.uses_domains());
  e.victim = VictimOrder::random;
  e.locality.remote_delay_ns = 1;
  CHECK(e.uses_domains());
  e.threads = 3;
  e.ranks.count = 4;
  CHECK(e.pes() == 12);
  e.sequential = true;
  CHECK(e.pes() == 1);
}
