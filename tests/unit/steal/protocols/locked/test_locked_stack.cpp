// The locked chunk stack (locked_stack.hpp) and its protocol.
#include <doctest/doctest.h>

#include <vector>

#include "steal/protocols/locked/locked_protocol.hpp"
#include "support/protocol_stress.hpp"

using namespace uts;
using namespace uts::test;

TEST_CASE("locked stack: chunks of K are released past 2K local nodes, stolen oldest first, reacquired when dry") {
  LockedStack owner(3), thief(3);
  for (std::uint32_t i = 0; i < 7; ++i) {
    owner.push(tree_node(i, 1000));
    owner.release_surplus();
  }
  // 7 > 2*3: the oldest 3 (serials 0..2) became one shared chunk.
  CHECK(owner.chunks_shared() == 1);
  CHECK(owner.local_size() == 4);
  CHECK(thief.chunks_shared() == 0);
  REQUIRE(owner.steal_into(thief) == 3);
  CHECK(owner.chunks_shared() == 0);
  Node n;
  std::vector<std::uint32_t> got;
  while (thief.pop(n)) got.push_back(n.id[0]);
  CHECK(got == std::vector<std::uint32_t>{2, 1, 0});
  CHECK(owner.steal_into(thief) == 0);  // nothing shared
  // Refill, release, then drain the local part: the owner reacquires its chunk.
  for (std::uint32_t i = 7; i < 10; ++i) {
    owner.push(tree_node(i, 1000));
    owner.release_surplus();
  }
  CHECK(owner.chunks_shared() == 1);  // serials 3..5
  got.clear();
  while (owner.pop(n)) got.push_back(n.id[0]);
  CHECK(got == std::vector<std::uint32_t>{9, 8, 7, 6, 5, 4, 3});
  CHECK(owner.releases() == 2);
  CHECK(owner.reacquires() == 1);
  CHECK(owner.nodes_reacquired() == 3);
}

TEST_CASE("locked stack: pop_local takes local nodes only, never reacquires a chunk") {
  LockedStack owner(3);
  for (std::uint32_t i = 0; i < 7; ++i) {
    owner.push(tree_node(i, 1000));
    owner.release_surplus();
  }
  REQUIRE(owner.chunks_shared() == 1);  // serials 0..2 shared, 3..6 local
  Node n;
  std::vector<std::uint32_t> got;
  while (owner.pop_local(n)) got.push_back(n.id[0]);
  CHECK(got == std::vector<std::uint32_t>{6, 5, 4, 3});
  CHECK(owner.chunks_shared() == 1);  // the chunk stays shared: still stealable
  CHECK(owner.reacquires() == 0);
  REQUIRE(owner.pop(n));  // pop reacquires it
  CHECK(n.id[0] == 2);
  CHECK(owner.reacquires() == 1);
  REQUIRE(owner.pop_local(n));
  CHECK(n.id[0] == 1);
  REQUIRE(owner.pop_local(n));
  CHECK(n.id[0] == 0);
  CHECK_FALSE(owner.pop_local(n));
  CHECK_FALSE(owner.pop(n));
}

TEST_CASE("locked stack: take_shallowest takes the oldest nodes and keeps the shared region whole chunks") {
  LockedStack s(3);
  for (std::uint32_t i = 0; i < 14; ++i) {
    s.push(tree_node(i, 1000));
    s.release_surplus();
  }
  // Released one chunk per push past 6 local: chunks 0..2, 3..5, 6..8 ... as pushes went.
  const std::uint64_t chunks = s.chunks_shared();
  REQUIRE(chunks >= 2);
  CHECK(s.size() == 14);
  Node out[16];
  REQUIRE(s.take_shallowest(4, out) == 4);  // a chunk and one node of the next
  for (std::uint32_t i = 0; i < 4; ++i) CHECK(out[i].id[0] == i);
  // The broken chunk's other two nodes went back to the local region.
  CHECK(s.chunks_shared() == chunks - 2);
  CHECK(s.nodes_reacquired() == 6);  // 4 given away, 2 taken back
  CHECK(s.size() == 10);
  // Everything else, shallowest first; then the stack is empty and reusable.
  REQUIRE(s.take_shallowest(100, out) == 10);
  for (std::uint32_t i = 0; i < 10; ++i) CHECK(out[i].id[0] == 4 + i);
  Node n;
  CHECK_FALSE(s.pop(n));
  CHECK(s.chunks_shared() == 0);
  s.push(tree_node(50, 1000));
  REQUIRE(s.pop(n));
  CHECK(n.id[0] == 50);
  CHECK(s.nodes_released() == s.nodes_reacquired());  // nothing stolen: every released node came back
}

TEST_CASE("locked: every node released was stolen or reacquired, whole chunks only") {
  for (int threads : {2, 4, 8, 16}) {
    for (std::uint32_t k : {1u, 4u, 20u}) {
      CAPTURE(threads);
      CAPTURE(k);
      const auto r = stress<LockedProtocol>(threads, 200000,
                                            settings_for(LockedProtocol::traits, {StealAmount::chunk, k}), 12,
                                            threads >= 4 ? 61 : 0);
      CHECK(r.exact());
      CHECK(r.steals > 0);
      CHECK(r.nodes_stolen == r.steals * k);  // whole chunks only
      CHECK(r.sum.nodes_shared == r.nodes_stolen + r.sum.nodes_reclaimed);
    }
  }
}
