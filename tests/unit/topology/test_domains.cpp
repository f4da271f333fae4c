// topology/domains.hpp: the thread -> domain maps (virtual, from hardware
// indices) and the machine's own topology as hwloc reads it.
#include <doctest/doctest.h>

#include <vector>

#include "topology/domains.hpp"

using namespace uts;

TEST_CASE("virtual domains: contiguous blocks whose sizes differ by at most one") {
  const DomainMap m = virtual_domains(7, 3);
  CHECK(m.count == 3);
  CHECK(m.of_thread == std::vector<int>{0, 0, 0, 1, 1, 2, 2});
  CHECK(m.members.size() == 3);
  CHECK(m.source == "3 virtual");
  for (int threads = 1; threads <= 20; ++threads)
    for (int n = 1; n <= threads; ++n) {
      const DomainMap v = virtual_domains(threads, n);
      std::size_t lo = v.members[0].size(), hi = lo;
      for (const auto& d : v.members) {
        lo = std::min(lo, d.size());
        hi = std::max(hi, d.size());
      }
      CHECK(hi - lo <= 1);
      CHECK(lo >= 1);
    }
}

TEST_CASE("hardware domains: bound threads keep theirs, unbound ones spread in order, empty domains dropped") {
  SUBCASE("all bound, domain 1 of 3 unused") {
    const DomainMap m = hardware_domains({0, 2, 2, 0}, 3, "numa");
    CHECK(m.count == 2);
    CHECK(m.of_thread == std::vector<int>{0, 1, 1, 0});  // renumbered 0, 2 -> 0, 1
    CHECK(m.source == "numa (threads bound)");
  }
  SUBCASE("all unbound: in order over the machine's domains") {
    const DomainMap m = hardware_domains({-1, -1, -1, -1}, 2, "package");
    CHECK(m.of_thread == std::vector<int>{0, 0, 1, 1});
    CHECK(m.source == "package (threads unbound: assigned in order)");
  }
  SUBCASE("some bound") {
    const DomainMap m = hardware_domains({1, -1, -1, 1}, 2, "l3");
    CHECK(m.count == 2);
    CHECK(m.of_thread == std::vector<int>{1, 0, 1, 1});
    CHECK(m.source == "l3 (unbound threads assigned in order)");
  }
  SUBCASE("no domain found at that level: one") {
    const DomainMap m = hardware_domains({-1, -1}, 0, "l3");
    CHECK(m.count == 1);
  }
}

TEST_CASE("this machine: the topology loads and maps every thread to a domain") {
  const Topology t;
  REQUIRE(t.loaded());
  CHECK(t.domains_at(DomainLevel::package) >= 1);
  CHECK(t.domain_of_calling_thread(DomainLevel::package) >= -1);
  for (const char* level : {"numa", "package", "2"}) {
    const DomainMap m = build_domain_map(*parse_domains(level), 2);
    CHECK(m.of_thread.size() == 2);
    CHECK(m.count >= 1);
    for (int d : m.of_thread) CHECK((d >= 0 && d < m.count));
  }
}
