// What thread 0 gives another rank (an answer to a request, or a push down a
// lifeline), as a pure function of the nodes it holds: the policy
// --rank-split names, tested alone (tests/unit/engine/test_rank_give.cpp);
// the worker (worker.hpp, give()) takes the nodes out of its deque and puts
// back what it keeps.
//
// Why every other node: thread 0's deque holds its open levels, shallowest
// at the steal end, and in a geometric tree (T1, T1L, T1XXL) a node's work
// shrinks about b-fold a level deeper. The shallowest half by count
// therefore hands the thief nearly all of the victim's work and leaves it
// the deep crumbs, so the victim soon asks in turn: work migrates instead of
// splitting, and at hundreds of ranks dry ranks spend their time asking.
// Every other node from the shallow end gives half of every level that
// holds several nodes, the odd node of each level going to the thief and
// the victim in turn (X10 GLB's UTS steals half of every range on its
// stack, Tardieu et al., PPoPP 2014), so both sides keep about half of the
// work. A level of one node cannot be halved: with one node a level the
// thief gets the first, third, ... (GLB would give nothing). In a binomial
// tree (T3, T3L) every node holds the same expected work and either split
// gives about half of it. Measured on the scale model:
// src/distrib/README.md, "What a steal carries".
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "tree/node.hpp"

namespace uts {

// --rank-split levels. `held`: the nodes thread 0 holds beside the one it
// always keeps, in deque order from the shallow end. Positions 0, 2, 4, ...
// go to `give` (at most `most` of them; the shallower of each pair goes, so
// a lone shallow node goes too), the rest to `keep`, each in `held`'s
// order. Returns how many were given. (--rank-split shallowest needs no
// copy: the deque gives its first ceil(n/2) itself, take_shallowest.)
inline std::size_t split_levels(std::span<const Node> held, std::size_t most, std::vector<Node>& give,
                                std::vector<Node>& keep) {
  std::size_t given = 0;
  for (std::size_t i = 0; i < held.size(); ++i) {
    if (i % 2 == 0 && given < most) {
      give.push_back(held[i]);
      ++given;
    } else {
      keep.push_back(held[i]);
    }
  }
  return given;
}

}  // namespace uts
