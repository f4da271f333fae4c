// tree/expand.hpp: expansion one node at a time and across nodes (the
// Expander) visit exactly the same tree.
#include <doctest/doctest.h>

#include <vector>

#include "tree/counts.hpp"
#include "tree/expand.hpp"
#include "tree/tree.hpp"

using namespace uts;

namespace {
// A stack sink for expand() and Expander.
struct VectorSink {
  std::vector<Node> nodes;
  void reserve(std::uint32_t) {}
  void push_if(const Node& n, bool keep) {
    if (keep) nodes.push_back(n);
  }
};

// Depth-first traversal one node at a time, without the Expander: the oracle.
Counts traverse_plain(const Tree& tree) {
  Counts c;
  VectorSink s;
  const Node root = tree.root();
  s.push_if(root, visit(root, c));
  while (!s.nodes.empty()) {
    const Node n = s.nodes.back();
    s.nodes.pop_back();
    expand(tree, n, c, s);
  }
  return c;
}
}  // namespace

TEST_CASE("Expander: children of several nodes hashed together visit exactly the same tree") {
  TreeParams geo;  // geometric, few children per node: batches mix parents
  geo.type = TreeType::geometric;
  geo.shape = GeoShape::fixed;
  geo.b0 = 2;
  geo.depth = 9;
  geo.seed = 19;
  TreeParams bin;  // binomial with 2000 root children: batches split a node
  bin.type = TreeType::binomial;
  bin.b0 = 2000;
  bin.q = 0.12;
  bin.m = 7;
  bin.seed = 5;
  for (const TreeParams& p : {geo, bin}) {
    for (sha1::Path path : {sha1::Path::avx512, sha1::Path::shani, sha1::Path::cryptopp}) {
      if (!sha1::resolve(path)) continue;  // not on this CPU (test_batch.cpp says so)
      CAPTURE(sha1::to_string(path));
      const Tree tree(p, path);
      CHECK(tree.sha1_path() == path);
      const Counts want = traverse_plain(tree);
      Counts got;
      VectorSink s;
      Expander e(tree.sha1_path());
      const Node root = tree.root();
      s.push_if(root, visit(root, got));
      for (;;) {
        if (s.nodes.empty()) {
          if (e.flush(tree, got, s)) continue;
          break;
        }
        const Node n = s.nodes.back();
        s.nodes.pop_back();
        e.add(tree, n, got, s);
      }
      CHECK(want.nodes > 1000);
      CHECK(got.nodes == want.nodes);
      CHECK(got.leaves == want.leaves);
      CHECK(got.max_depth == want.max_depth);
      CHECK(got.checksum == want.checksum);
    }
  }
}
