// --bind plans on machines one does not own (hwloc synthetic topologies),
// and what the record says about a placement (oversubscribed, PUs used).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "run/placement.hpp"
#include "topology/placement.hpp"

namespace uts {

namespace {

// Thread i's PU for plans that put each thread on one PU.
std::vector<int> single_pus(const std::vector<std::vector<int>>& plan) {
  std::vector<int> out;
  for (const auto& pus : plan) {
    REQUIRE(pus.size() == 1);
    out.push_back(pus.front());
  }
  return out;
}

// 2 packages, each one NUMA node of 4 cores with 2 PUs: core k holds PUs
// 2k and 2k+1; NUMA node 0 is PUs 0-7, node 1 PUs 8-15.
const char* kTwoSockets = "pack:2 numa:1 core:4 pu:2";

}  // namespace

TEST_CASE("synthetic 2-package, 2-NUMA, 8-core, SMT-2 machine: the topology as hwloc reads it") {
  const Topology t(kTwoSockets);
  REQUIRE(t.loaded());
  const TopologySummary s = summarize_topology(t);
  CHECK(s.packages == 2);
  CHECK(s.numa_nodes == 2);
  CHECK(s.cores == 8);
  CHECK(s.pus == 16);
  CHECK(s.text() == "2 packages, 2 NUMA nodes, 8 cores, 16 PUs");
}

TEST_CASE("--bind compact: package 0's cores first, one PU per core; --smt fills each core") {
  const Topology t(kTwoSockets);
  REQUIRE(t.loaded());
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 1)) == std::vector<int>{0});
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 2)) == std::vector<int>{0, 2});
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 4)) == std::vector<int>{0, 2, 4, 6});
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 8)) ==
        std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14});
  // More threads than cores without --smt: around again (oversubscribed).
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 10)) ==
        std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14, 0, 2});
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, true, 4)) == std::vector<int>{0, 1, 2, 3});
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, true, 10)) ==
        std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("--bind scatter: the packages (and their NUMA nodes) in turn") {
  const Topology t(kTwoSockets);
  REQUIRE(t.loaded());
  CHECK(single_pus(plan_placement(t, BindPolicy::scatter, false, 1)) == std::vector<int>{0});
  CHECK(single_pus(plan_placement(t, BindPolicy::scatter, false, 2)) == std::vector<int>{0, 8});
  CHECK(single_pus(plan_placement(t, BindPolicy::scatter, false, 4)) == std::vector<int>{0, 8, 2, 10});
  CHECK(single_pus(plan_placement(t, BindPolicy::scatter, false, 8)) ==
        std::vector<int>{0, 8, 2, 10, 4, 12, 6, 14});
  // --smt: every core's first PU before any sibling.
  const std::vector<int> smt = single_pus(plan_placement(t, BindPolicy::scatter, true, 16));
  CHECK(std::vector<int>(smt.begin(), smt.begin() + 8) == std::vector<int>{0, 8, 2, 10, 4, 12, 6, 14});
  CHECK(std::vector<int>(smt.begin() + 8, smt.end()) == std::vector<int>{1, 9, 3, 11, 5, 13, 7, 15});
}

TEST_CASE("--bind scatter with two NUMA nodes per package alternates packages first") {
  const Topology t("pack:2 numa:2 core:2 pu:2");  // NUMA 0: 0-3, 1: 4-7 (package 0); 2: 8-11, 3: 12-15
  REQUIRE(t.loaded());
  CHECK(summarize_topology(t).numa_nodes == 4);
  CHECK(single_pus(plan_placement(t, BindPolicy::scatter, false, 8)) ==
        std::vector<int>{0, 8, 4, 12, 2, 10, 6, 14});
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 3)) == std::vector<int>{0, 2, 4});
}

TEST_CASE("--bind numa: whole NUMA nodes, in blocks of consecutive threads") {
  const Topology t(kTwoSockets);
  REQUIRE(t.loaded());
  const auto plan = plan_placement(t, BindPolicy::numa, false, 4);
  REQUIRE(plan.size() == 4);
  const std::vector<int> node0{0, 1, 2, 3, 4, 5, 6, 7}, node1{8, 9, 10, 11, 12, 13, 14, 15};
  CHECK(plan[0] == node0);
  CHECK(plan[1] == node0);
  CHECK(plan[2] == node1);
  CHECK(plan[3] == node1);
  CHECK(plan_placement(t, BindPolicy::numa, false, 1).front() == node0);
}

TEST_CASE("plans use only the PUs the process may use, and ranks of a host take consecutive slots") {
  const Topology t(kTwoSockets);
  REQUIRE(t.loaded());
  const std::vector<int> package1{8, 9, 10, 11, 12, 13, 14, 15};
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 2, package1)) == std::vector<int>{8, 10});
  CHECK(single_pus(plan_placement(t, BindPolicy::scatter, false, 3, package1)) == std::vector<int>{8, 10, 12});
  CHECK(plan_placement(t, BindPolicy::numa, false, 2, package1).front() == package1);
  // Local rank 1 of 2-thread ranks starts at slot 2.
  CHECK(single_pus(plan_placement(t, BindPolicy::compact, false, 2, {}, 2)) == std::vector<int>{4, 6});
}

TEST_CASE("none and omp bind nothing; a synthetic topology binds no real thread") {
  const Topology t(kTwoSockets);
  REQUIRE(t.loaded());
  CHECK(plan_placement(t, BindPolicy::none, false, 4).empty());
  CHECK(plan_placement(t, BindPolicy::omp, false, 4).empty());
  CHECK_FALSE(bind_calling_thread(t, {0}));
  CHECK(place_of_calling_thread(t, {}).pu == -1);
  CHECK_FALSE(Topology("pack:0 nonsense").loaded());
}

TEST_CASE("on this machine: compact with 2 threads plans two different PUs when it has two") {
  const Topology t;
  REQUIRE(t.loaded());
  const std::vector<int> usable = usable_pus(t);
  REQUIRE_FALSE(usable.empty());
  const auto plan = single_pus(plan_placement(t, BindPolicy::compact, false, 2, usable));
  if (summarize_topology(t).cores >= 2 && usable.size() >= 2) CHECK(plan[0] != plan[1]);
  // Binding the calling thread to the first usable PU is read back.
  std::thread([&] {
    REQUIRE(bind_calling_thread(t, {usable.front()}));
    const ThreadPlace p = place_of_calling_thread(t, usable);
    CHECK(p.pu == usable.front());
    if (usable.size() > 1) {
      CHECK(p.bound_pus == 1);
      CHECK(std::strcmp(p.bound_to, std::to_string(usable.front()).c_str()) == 0);
    }
  }).join();
}

namespace {
ThreadPlace on(int pu, int bound_pus) {
  ThreadPlace p;
  p.pu = pu;
  p.bound_pus = bound_pus;
  return p;
}
// A rank on host `name` that may use PUs first..first+pus-1.
RankPlace host(const char* name, int pus, int first = 0) {
  RankPlace r;
  std::strncpy(r.host, name, sizeof r.host - 1);
  r.usable_pus = pus;
  for (int pu = first; pu < first + pus; ++pu) r.usable_mask[pu / 64] |= std::uint64_t{1} << (pu % 64);
  return r;
}
}  // namespace

TEST_CASE("the record's placement summary: PUs used and oversubscription") {
  // Two threads bound to two PUs of a 2-PU host.
  PlacementSummary s = summarize_placement({on(0, 1), on(1, 1)}, {host("a", 2)}, 2);
  CHECK(s.pus_available == 2);
  CHECK(s.pus_used == 2);
  CHECK_FALSE(s.oversubscribed);
  // Two threads bound to the same PU: oversubscribed, one PU used.
  s = summarize_placement({on(0, 1), on(0, 1)}, {host("a", 4)}, 2);
  CHECK(s.pus_used == 1);
  CHECK(s.oversubscribed);
  // Unbound: min(threads, PUs); more threads than PUs is oversubscribed.
  s = summarize_placement({on(0, 0), on(1, 0), on(0, 0)}, {host("a", 2)}, 3);
  CHECK(s.pus_used == 2);
  CHECK(s.oversubscribed);
  s = summarize_placement({on(0, 0)}, {host("a", 8)}, 1);
  CHECK(s.pus_used == 1);
  CHECK_FALSE(s.oversubscribed);
  // Two ranks on one 2-PU host, 2 threads each, unbound: 4 threads on 2 PUs.
  s = summarize_placement({on(0, 0), on(1, 0), on(0, 0), on(1, 0)}, {host("a", 2), host("a", 2)}, 2);
  CHECK(s.pus_available == 2);
  CHECK(s.pus_used == 2);
  CHECK(s.oversubscribed);
  // Two ranks of one host bound by the launcher to PU 0 and PU 1: the sets
  // add up (2 PUs), not oversubscribed.
  s = summarize_placement({on(0, 1), on(1, 1)}, {host("a", 1, 0), host("a", 1, 1)}, 1);
  CHECK(s.pus_available == 2);
  CHECK(s.pus_used == 2);
  CHECK_FALSE(s.oversubscribed);
  // Two ranks bound to the same PU: 1 PU, oversubscribed.
  s = summarize_placement({on(3, 1), on(3, 1)}, {host("a", 1, 3), host("a", 1, 3)}, 1);
  CHECK(s.pus_available == 1);
  CHECK(s.oversubscribed);
  // The same on two hosts: 4 PUs, none oversubscribed.
  s = summarize_placement({on(0, 0), on(1, 0), on(0, 0), on(1, 0)}, {host("a", 2), host("b", 2)}, 2);
  CHECK(s.pus_available == 4);
  CHECK(s.pus_used == 4);
  CHECK_FALSE(s.oversubscribed);
}

}  // namespace uts
