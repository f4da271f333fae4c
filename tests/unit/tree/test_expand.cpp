// tree/expand.hpp and the ways behind it: expansion one node at a time
// (expand_node.hpp) and across nodes (LaneExpander, SlotPairExpander, through
// the Expander) visit exactly the same tree.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <string>
#include <vector>

#include "base/interrupt.hpp"
#include "tree/counts.hpp"
#include "tree/expand.hpp"
#include "tree/tree.hpp"

using namespace uts;

namespace {
// A stack sink for expand() and Expander.
struct VectorSink {
  std::vector<Node> nodes;
  struct Pusher {  // fails a push past the room pusher(n) reserved
    std::vector<Node>* nodes;
    std::uint32_t room;
    void push(const Node& n) {
      if (room == 0) FAIL_CHECK("a push past the room pusher() reserved");
      else --room;
      nodes->push_back(n);
    }
  };
  Pusher pusher(std::uint32_t n) { return {&nodes, n}; }
  void commit(const Pusher&) {}
};

// Depth-first traversal one node at a time, without the Expander: the oracle.
Counts traverse_plain(const Tree& tree) {
  Counts c;
  VectorSink s;
  const Node root = tree.root();
  if (visit(root, c)) s.nodes.push_back(root);
  while (!s.nodes.empty()) {
    const Node n = s.nodes.back();
    s.nodes.pop_back();
    expand(tree, n, c, s);
  }
  return c;
}

// Depth-first through an Expander whose refill() pops the same stack, as
// the traversals do. watch.popped(s) follows every pop (the loop's and
// refill's), watch.step(s) precedes each turn of the loop.
struct NoWatch {
  void popped(const VectorSink&) {}
  void step(const VectorSink&) {}
};
struct Refilled {
  Counts counts;
  std::uint64_t refilled = 0;  // parents taken while a pair was hashed (SlotPairExpander::refilled())
  std::uint64_t from_sink = 0;  // those refill() took from the sink (the rest: the deferred pair's children)
  bool pending = false;        // the Expander still held children at the end
  // The most nodes counted between two looks at the stop conditions (after
  // each add(), and between a huge node's pieces, where keep_going() is
  // asked): docs/output.md section 8 promises at most 1,039.
  std::uint64_t most_between_looks = 0;
};
template <class Watch = NoWatch>
Refilled traverse_refilled(const Tree& tree, Watch&& watch = NoWatch{}) {
  Refilled r;
  VectorSink s;
  auto pop = [&](Node& n) {
    n = s.nodes.back();
    s.nodes.pop_back();
    watch.popped(s);
  };
  auto refill = [&](Node& n) {
    if (s.nodes.empty()) return false;
    pop(n);
    ++r.from_sink;
    return true;
  };
  std::uint64_t looked = 0;  // the count at the last look
  auto look = [&] {
    r.most_between_looks = std::max(r.most_between_looks, r.counts.nodes - looked);
    looked = r.counts.nodes;
    return true;
  };
  Expander e(tree);
  if (visit(tree.root(), r.counts)) s.nodes.push_back(tree.root());
  looked = r.counts.nodes;
  for (;;) {
    watch.step(s);
    if (s.nodes.empty()) {
      if (!e.flush(tree, r.counts, s)) break;
      continue;
    }
    Node n;
    pop(n);
    e.add(tree, n, r.counts, s, look, refill);
    look();
  }
  r.pending = e.pending();
  r.refilled = e.refilled();
  return r;
}

// Binomial, 3 children with probability 0.3: whether a child has children
// depends on its id, so a child hashed in the wrong lane or column changes
// the counts.
TreeParams small_binomial() {
  TreeParams p;
  p.type = TreeType::binomial;
  p.b0 = 3;
  p.q = 0.3;
  p.m = 3;
  p.seed = 11;
  return p;
}

// A geometric tree of fixed shape: every height below the depth has mean
// b0 (the AVX-512 visit's register row when b0 is at most about 8).
TreeParams fixed_geometric(double b0, int depth, int seed) {
  TreeParams p;
  p.type = TreeType::geometric;
  p.shape = GeoShape::fixed;
  p.b0 = b0;
  p.depth = depth;
  p.seed = seed;
  return p;
}

// A binomial tree whose root has `children` children (past kHugeNode:
// expanded in pieces), each with 3 children with probability 0.1.
TreeParams huge_root(int children) {
  TreeParams p;
  p.type = TreeType::binomial;
  p.b0 = children;
  p.q = 0.1;
  p.m = 3;
  p.seed = 5;
  return p;
}
}  // namespace

TEST_CASE("Expander: children of several nodes hashed together visit exactly the same tree") {
  const TreeParams geo = fixed_geometric(2, 9, 19);  // few children per node: batches mix parents
  TreeParams bin;  // binomial with 2000 root children: batches split a node
  bin.type = TreeType::binomial;
  bin.b0 = 2000;
  bin.q = 0.12;
  bin.m = 7;
  bin.seed = 5;
  const TreeParams huge = huge_root(5000);
  TreeParams slow = geo;  // -g 2: the hash repeated (the slot path's two-call form)
  slow.granularity = 2;
  for (const TreeParams& p : {geo, bin, huge, slow}) {
    for (sha1::Path path : {sha1::Path::avx512, sha1::Path::shani, sha1::Path::cryptopp}) {
      if (!sha1::resolve(path)) continue;  // not on this CPU (test_batch.cpp says so)
      CAPTURE(sha1::to_string(path));
      const Tree tree(p, path);
      CHECK(tree.sha1_path() == path);
      const Counts want = traverse_plain(tree);
      Counts got;
      VectorSink s;
      Expander e(tree);
      const Node root = tree.root();
      if (visit(root, got)) s.nodes.push_back(root);
      for (;;) {
        if (s.nodes.empty()) {
          if (e.flush(tree, got, s)) continue;
          break;
        }
        const Node n = s.nodes.back();
        s.nodes.pop_back();
        e.add(tree, n, got, s);
      }
      CHECK_FALSE(e.pending());
      CHECK_FALSE(e.abandoned());
      CHECK(want.nodes > 1000);
      CHECK(got.nodes == want.nodes);
      CHECK(got.leaves == want.leaves);
      CHECK(got.max_depth == want.max_depth);
      CHECK(got.checksum == want.checksum);
    }
  }
}

TEST_CASE("Expander: parents popped while a pair is hashed (refill) visit exactly the same tree") {
  // The slot path pops more parents from the traversal while it hashes a
  // pair (SlotPairExpander::refill_one), the previous pair's inner children first
  // (staged, never pushed), then from the stack; a parent whose children
  // would complete the pair being filled is pushed back. A node pushed
  // twice is such a push-back. Each tree has parents taken by refill from
  // both; the first two, push-backs too (binomial with m = 20: a parent
  // does not fit once 12 lanes are taken; its children can span both
  // batches of a pair).
  const TreeParams geo = fixed_geometric(4, 8, 19);
  TreeParams wide;  // 20 children: a parent spans both batches of a pair
  wide.type = TreeType::binomial;
  wide.b0 = 300;
  wide.q = 0.049;
  wide.m = 20;
  wide.seed = 8;
  TreeParams bin;  // 2000 root children, 7 each below
  bin.type = TreeType::binomial;
  bin.b0 = 2000;
  bin.q = 0.12;
  bin.m = 7;
  bin.seed = 5;
  const TreeParams trees[] = {geo, wide, bin, huge_root(5000)};
  for (const TreeParams& p : trees) {
    const bool pushes_back = &p < trees + 2;
    for (sha1::Path path : {sha1::Path::avx512, sha1::Path::shani}) {
      if (!sha1::resolve(path)) continue;  // not on this CPU (test_batch.cpp says so)
      CAPTURE(sha1::to_string(path));
      const Tree tree(p, path);
      const Counts want = traverse_plain(tree);
      // Counts ids pushed twice: s.nodes[0, checked) were seen and are
      // unchanged since.
      struct PushedTwice {
        std::set<std::vector<std::uint32_t>> seen;
        std::size_t checked = 0;
        std::uint64_t count = 0;
        void popped(const VectorSink& s) { checked = std::min(checked, s.nodes.size()); }
        void step(const VectorSink& s) {
          for (; checked < s.nodes.size(); ++checked) {
            const Node& n = s.nodes[checked];
            if (!seen.insert(std::vector<std::uint32_t>(n.id.begin(), n.id.end())).second) ++count;
          }
        }
      } twice;
      const Refilled r = traverse_refilled(tree, twice);
      const Counts& got = r.counts;
      const std::uint64_t refilled = r.refilled, pushed_twice = twice.count;
      CHECK_FALSE(r.pending);
      CHECK(got.nodes == want.nodes);
      CHECK(got.leaves == want.leaves);
      CHECK(got.max_depth == want.max_depth);
      CHECK(got.checksum == want.checksum);
      CHECK(r.most_between_looks <= 1039);
      if (path == sha1::Path::avx512) {
        CHECK(refilled > want.nodes / 50);
        CHECK(r.from_sink > 0);
        CHECK(r.from_sink < refilled);  // the rest from the staged children
        if (pushes_back) CHECK(pushed_twice > 0);
      } else {
        CHECK(refilled == 0);  // the lane path hashes as it fills: no refill
      }
      MESSAGE(std::string(sha1::to_string(path)), ": ", want.nodes, " nodes, ", refilled, " taken by refill, ", pushed_twice,
              " pushed back");
    }
  }
}

TEST_CASE("Expander: refill with child counts around a batch's 16 lanes, and huge nodes through refill") {
  // Binomial trees whose inner nodes all have m children: m = 15, 16 and 17
  // fill a batch to one lane short, exactly, and one past (the spill into
  // the pair's second batch), 31 to 33 the same for a pair; m = 1500 sends
  // every inner node below the root through refill as a huge node (pushed
  // back: it cannot fit).
  if (!sha1::resolve(sha1::Path::avx512)) return;  // the lane path has no refill
  std::vector<TreeParams> trees;
  for (int m : {1, 2, 4, 8, 15, 16, 17, 24, 31, 32, 33, 1500}) {
    for (int seed : {2, 4}) {  // m = 1500: 4701 and 1701 nodes
      TreeParams p;
      p.type = TreeType::binomial;
      p.b0 = m == 1500 ? 200 : 300;
      p.q = m == 1500 ? 0.0006 : 0.9 / m;
      p.m = m;
      p.seed = seed;
      trees.push_back(p);
    }
  }
  for (const TreeParams& p : trees) {
    CAPTURE(p.m);
    CAPTURE(p.seed);
    const Tree tree(p, sha1::Path::avx512);
    const Counts want = traverse_plain(tree);
    const Refilled r = traverse_refilled(tree);
    CHECK_FALSE(r.pending);
    CHECK(r.counts.nodes == want.nodes);
    CHECK(r.counts.leaves == want.leaves);
    CHECK(r.counts.max_depth == want.max_depth);
    CHECK(r.counts.checksum == want.checksum);
    CHECK(r.refilled > 0);
    CHECK(r.most_between_looks <= 1039);
  }
}

TEST_CASE("Expander: a huge node asks to go on between pieces of 1,024 children, and stops when told") {
  const TreeParams p = huge_root(5000);
  for (sha1::Path path : {sha1::Path::avx512, sha1::Path::shani, sha1::Path::cryptopp}) {
    if (!sha1::resolve(path)) continue;
    CAPTURE(sha1::to_string(path));
    const Tree tree(p, path);
    for (int stop_at : {1, 3, 100}) {
      CAPTURE(stop_at);
      for (bool with_refill : {false, true}) {
      CAPTURE(with_refill);
      Counts got;
      VectorSink s;
      Expander e(tree);
      int asked = 0;
      auto keep_going = [&] { return ++asked < stop_at; };
      auto none = [](Node&) { return false; };
      // With a refill a hashed pair waits for the next pair's hashing to be
      // counted (SlotPairExpander::run_pair): one more pair is held, and
      // dropped at a stop.
      if (with_refill) e.add(tree, tree.root(), got, s, keep_going, none);
      else e.add(tree, tree.root(), got, s, keep_going);
      const unsigned held = with_refill && path == sha1::Path::avx512 ? 6 : 4;
      if (stop_at == 100) {  // never told to stop: asked before pieces 2..5
        CHECK(asked == 4);
        CHECK_FALSE(e.abandoned());
        CHECK(e.pending());  // the last children wait for a flush
        while (e.flush(tree, got, s)) {
        }
        // With a refill, the refills also took some of the root's inner
        // children (staged) as parents, and their children were counted.
        if (with_refill && path == sha1::Path::avx512) CHECK(got.nodes > 5000);
        else CHECK(got.nodes == 5000);
      } else {
        CHECK(asked == stop_at);
        CHECK(e.abandoned());
        CHECK_FALSE(e.pending());  // what was queued is dropped with the run
        const std::uint64_t counted = got.nodes;
        CHECK_FALSE(e.flush(tree, got, s));
        CHECK(got.nodes == counted);
        // Stopped after stop_at pieces of at most 1,024 children: nothing
        // past them was hashed, and at most four batches (the slot path's
        // two pairs; with a refill, six: the hashed pair too) less one
        // lane are left queued.
        CHECK(got.nodes <= 1024u * static_cast<unsigned>(stop_at));
        CHECK(got.nodes + held * sha1::kMaxLanes > 1024u * static_cast<unsigned>(stop_at));
      }
      }
    }
  }
}

TEST_CASE("Expander: a stop during a repeated hash (-g) ends a huge node at once, on every path") {
  // keep_going() is asked only between pieces of 1,024 children, and the
  // worker's asks the run only once enough nodes were counted; an abandoned
  // batch counts none, so the expansion itself must stop.
  TreeParams p = huge_root(200000);
  p.granularity = 100;
  std::atomic<int> stop{1};
  interrupt::watch(&stop);
  for (sha1::Path path : {sha1::Path::avx512, sha1::Path::shani, sha1::Path::cryptopp}) {
    if (!sha1::resolve(path)) continue;
    CAPTURE(sha1::to_string(path));
    const Tree tree(p, path);
    Counts got;
    VectorSink s;
    Expander e(tree);
    int asked = 0;
    e.add(tree, tree.root(), got, s, [&] {
      ++asked;
      return true;
    });
    CHECK(e.abandoned());
    CHECK(asked == 0);
    CHECK(got.nodes == 0);
  }
  interrupt::watch(nullptr);
}

TEST_CASE("Expander: children that exactly fill a batch are still held until flushed") {
  // On the AVX-512 path batches are hashed in pairs, and a full pair waits
  // for the next one: with nothing in the batch being filled, pending()
  // must still say so, or a thread holding it could be called empty
  // (worker.hpp, ended_empty). Every state a flush starts from: the first
  // batch of a pair full or part-filled, the second empty, part-filled or
  // full, with and without a pair waiting.
  const TreeParams p = small_binomial();
  for (sha1::Path path : {sha1::Path::avx512, sha1::Path::shani, sha1::Path::cryptopp}) {
    if (!sha1::resolve(path)) continue;
    CAPTURE(sha1::to_string(path));
    const Tree tree(p, path);
    const std::uint32_t lanes = static_cast<std::uint32_t>(sha1::batch_lanes(path));
    for (std::uint32_t batches : {1u, 2u, 3u, 4u, 5u, 6u}) {
      for (std::uint32_t extra : {0u, 5u}) {
        CAPTURE(batches);
        CAPTURE(extra);
        Node parent = tree.root();
        parent.children = lanes * batches + extra;
        Counts got;
        VectorSink s;
        Expander e(tree);
        e.add(tree, parent, got, s);
        // The lane path hashes a full batch at once. The slot path hashes a
        // pair once the next pair is full: of p full pairs, p - 1.
        const std::uint32_t pairs = batches / 2;
        const std::uint32_t hashed =
            path == sha1::Path::avx512 ? (pairs == 0 ? 0 : 2 * lanes * (pairs - 1)) : lanes * batches;
        CHECK(e.pending() == (path == sha1::Path::avx512 || extra != 0));
        CHECK(got.nodes == hashed);
        int flushes = 0;
        while (e.flush(tree, got, s)) ++flushes;
        CHECK_FALSE(e.pending());
        CHECK(got.nodes == lanes * batches + extra);
        // The same children as expanded one node at a time, each once.
        Counts want;
        VectorSink w;
        expand(tree, parent, want, w);
        CHECK(got.leaves == want.leaves);
        CHECK(got.checksum == want.checksum);
        CHECK(got.max_depth == want.max_depth);
        CHECK(s.nodes.size() == w.nodes.size());
        if (path == sha1::Path::avx512) CHECK(flushes == (pairs != 0) + static_cast<int>(batches % 2 != 0 || extra != 0));
      }
    }
  }
}

TEST_CASE("Expander: with a refill, a hashed pair is counted and pushed at the next pair's hashing or at flush") {
  // A traversal with a refill (SlotPairExpander::run_pair) visits each hashed pair
  // just before hashing the next one: of p full pairs, p - 1 are hashed
  // and p - 2 counted; the hashed one is held (pending()) until the next
  // pair's hashing or a flush, which counts and pushes it first.
  // The children are leaves (q = 0), so no staged child becomes a parent.
  if (!sha1::resolve(sha1::Path::avx512)) return;  // the lane path has no refill
  TreeParams leaves = small_binomial();
  leaves.q = 0;
  const Tree tree(leaves, sha1::Path::avx512);
  for (std::uint32_t batches : {2u, 4u, 5u, 6u, 9u}) {
    CAPTURE(batches);
    Node parent = tree.root();
    parent.children = 16 * batches;
    Counts got;
    VectorSink s;
    Expander e(tree);
    auto none = [](Node&) { return false; };
    e.add(tree, parent, got, s, AlwaysGoOn{}, none);
    const std::uint32_t pairs = batches / 2;
    CHECK(got.nodes == (pairs < 2 ? 0 : 32 * (pairs - 2)));
    CHECK(e.pending());
    int flushes = 0;
    while (e.flush(tree, got, s)) ++flushes;
    CHECK(flushes == (pairs >= 2) + 1 + static_cast<int>(batches % 2 != 0));
    CHECK_FALSE(e.pending());
    Counts want;
    VectorSink w;
    expand(tree, parent, want, w);
    CHECK(got.nodes == want.nodes);
    CHECK(got.leaves == want.leaves);
    CHECK(got.leaves == got.nodes);
    CHECK(got.checksum == want.checksum);
    CHECK(s.nodes.empty());
  }
}

TEST_CASE("Expander: the deferred pair's children keep the stack's order: refills take them from the top") {
  // A root with 96 children, every one with m children (q = 1) and never
  // popped (the refill has nothing else to give): while the second pair is
  // hashed, its refills take the first pair's inner children from the
  // last lane down, as pops of the stack would; what is left is pushed in
  // lane order, and a child taken but too big to fit (m = 30: the second
  // one) goes back on top. So after add() the sink holds the root's
  // children 0 .. k-1 in order.
  if (!sha1::resolve(sha1::Path::avx512)) return;  // the lane path has no refill
  for (int m : {2, 30}) {
    CAPTURE(m);
    TreeParams all = small_binomial();
    all.q = 1;
    all.m = m;
    const Tree tree(all, sha1::Path::avx512);
    Node parent = tree.root();
    parent.children = 96;
    Counts want;
    VectorSink w;
    expand(tree, parent, want, w);
    REQUIRE(w.nodes.size() == 96);  // every child has children
    Counts got;
    VectorSink s;
    Expander e(tree);
    auto none = [](Node&) { return false; };
    e.add(tree, parent, got, s, AlwaysGoOn{}, none);
    // m = 2: five refill steps take lanes 31..27; m = 30: lane 31 fits, lane
    // 30 does not and is pushed back over lanes 0..29.
    const std::size_t k = m == 2 ? 27 : 31;
    REQUIRE(s.nodes.size() == k);
    for (std::size_t i = 0; i < k; ++i) {
      CAPTURE(i);
      CHECK(s.nodes[i].id == w.nodes[i].id);
      CHECK(s.nodes[i].children == w.nodes[i].children);
    }
    CHECK(e.refilled() == (m == 2 ? 5u : 2u));
  }
}

namespace {
// A fixed-shape geometric tree's root given 96 children, added with a
// refill that gives nothing: the first pair (lanes 0-31) is visited in the
// second pair's kernel, whose refills take its inner children.
struct FirstPairAdd {
  VectorSink first_pair;  // the inner children among lanes 0-31, in lane order
  VectorSink sink;        // what add() left in the sink
  Counts got;
  std::uint64_t refilled = 0;
  explicit FirstPairAdd(int b0, int seed) {
    const Tree tree(fixed_geometric(b0, 20, seed), sha1::Path::avx512);
    Expander e(tree);
    REQUIRE(e.way() == ExpandWay::slots_visit_in_kernel);
    Node parent = tree.root();
    parent.children = 96;
    Counts want;
    expand_range(tree, parent, 0, 32, want, first_pair);
    auto none = [](Node&) { return false; };
    e.add(tree, parent, got, sink, AlwaysGoOn{}, none);
    refilled = e.refilled();
  }
  // The sink holds the first pair's inner children from the lowest lane
  // up (checks each); returns how many.
  std::size_t prefix_checked() const {
    REQUIRE(sink.nodes.size() <= first_pair.nodes.size());
    for (std::size_t i = 0; i < sink.nodes.size(); ++i) {
      CAPTURE(i);
      CHECK(sink.nodes[i].id == first_pair.nodes[i].id);
      CHECK(sink.nodes[i].children == first_pair.nodes[i].children);
    }
    return sink.nodes.size();
  }
};
}  // namespace

TEST_CASE("Expander: with the visit in the kernel, refills take the deferred pair's children from the top") {
  // The pair visit runs inside the next pair's kernel
  // (ExpandWay::slots_visit_in_kernel), its inner lanes are kept as a mask, and
  // the four steps after it take them from the highest lane. After add()
  // the sink holds the first pair's inner children from the lowest lane
  // up, the ones taken missing from the top: a prefix of them, in order.
  if (!sha1::resolve(sha1::Path::avx512)) return;  // the lane path has no refill
  const FirstPairAdd run(2, 3);  // b0 = 2: every taken child fits
  REQUIRE(run.first_pair.nodes.size() >= 8);
  // Four refill steps, every parent small enough to fit: four taken.
  CHECK(run.refilled == 4u);
  CHECK(run.prefix_checked() == run.first_pair.nodes.size() - 4);
  CHECK(run.got.nodes == 32u);  // the first pair, visited in the second's kernel
}

TEST_CASE("Expander: with the visit in the kernel, a refilled child that does not fit goes back on top") {
  // b0 = 8 (the register row is still built): the refills fill the pair
  // quickly, and a taken child whose children no longer fit is pushed back
  // over the lanes left, where it was. The sink then holds a prefix of the
  // first pair's inner children one longer than the lanes left. The first
  // seed where that happens is used.
  if (!sha1::resolve(sha1::Path::avx512)) return;
  bool seen_back = false;
  for (int seed = 1; seed < 200 && !seen_back; ++seed) {
    CAPTURE(seed);
    const FirstPairAdd run(8, seed);
    const std::size_t left = run.first_pair.nodes.size() - run.refilled;
    const std::size_t held = run.prefix_checked();
    if (held == left + 1) seen_back = true;
    else CHECK(held == left);
  }
  CHECK(seen_back);
}

TEST_CASE("Expander: the way is chosen by path and rule") {
  const TreeParams geo = fixed_geometric(4, 13, 29);
  TreeParams linear = geo;  // no register row: the bucket tables
  linear.shape = GeoShape::linear;
  const TreeParams bin = small_binomial();
  if (sha1::resolve(sha1::Path::avx512)) {
    const Tree t(geo, sha1::Path::avx512), l(linear, sha1::Path::avx512), b(bin, sha1::Path::avx512);
    CHECK(expand_way(t) == ExpandWay::slots_visit_in_kernel);
    CHECK(expand_way(l) == ExpandWay::slots);
    CHECK(expand_way(b) == ExpandWay::slots);
    CHECK(Expander(t).way() == ExpandWay::slots_visit_in_kernel);
    CHECK(Expander(l).way() == ExpandWay::slots);
    CHECK(Expander(b).way() == ExpandWay::slots);
  }
  for (sha1::Path path : {sha1::Path::shani, sha1::Path::cryptopp}) {
    if (!sha1::resolve(path)) continue;
    const Tree t(geo, path);
    CHECK(expand_way(t) == ExpandWay::lanes);
    CHECK(Expander(t).way() == ExpandWay::lanes);
  }
}

TEST_CASE("Expander: a batch abandoned during a repeated hash (-g) drops everything queued") {
  // The slot path holds up to two pairs: one waiting, one being filled. A
  // stop while the waiting pair is hashed (-g polls for it) abandons the
  // run: afterwards nothing may still look queued (pending() is what a
  // worker asks before it may be called empty) and a flush hashes nothing.
  TreeParams p = small_binomial();
  p.granularity = 100;  // polls for a stop after 64 repetitions
  for (sha1::Path path : {sha1::Path::avx512, sha1::Path::shani, sha1::Path::cryptopp}) {
    if (!sha1::resolve(path)) continue;
    CAPTURE(sha1::to_string(path));
    const Tree tree(p, path);
    const std::uint32_t lanes = static_cast<std::uint32_t>(sha1::batch_lanes(path));
    // Queued before the stop: on the slot path a full pair waiting, then a
    // full first batch and 5 lanes of the next pair (nothing hashed yet);
    // on the lane path 5 lanes.
    const std::uint32_t before = path == sha1::Path::avx512 ? 3 * lanes + 5 : 5;
    // The stop seen by the hash an add() starts (when it fills what is
    // queued), or by the one a flush() starts (the waiting pair, while the
    // next pair is part-filled).
    for (bool by_flush : {false, true}) {
      CAPTURE(by_flush);
      std::atomic<int> stop{0};
      interrupt::watch(&stop);
      Node parent = tree.root();
      parent.children = before;
      Counts got;
      VectorSink s;
      Expander e(tree);
      e.add(tree, parent, got, s);
      CHECK(got.nodes == 0);
      CHECK(e.pending());
      CHECK_FALSE(e.abandoned());
      stop.store(1);
      if (by_flush) {
        CHECK(e.flush(tree, got, s));
      } else {
        parent.children = 4 * lanes;
        e.add(tree, parent, got, s);
      }
      CHECK(e.abandoned());
      CHECK(got.nodes == 0);
      CHECK(s.nodes.empty());
      CHECK_FALSE(e.pending());
      CHECK_FALSE(e.flush(tree, got, s));
      CHECK(got.nodes == 0);
      interrupt::watch(nullptr);
    }
  }
}
