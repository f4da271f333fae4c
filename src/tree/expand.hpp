// Expanding nodes, the front door (docs/hashing.md): which way of queueing
// and hashing children a traversal uses, chosen once from the SHA-1 path and
// the tree rule, and an Expander that holds that way's state.
//   expand_node.hpp      one node by itself (expand, expand_range)
//   lane_expander.hpp    across nodes, rows of lanes (shani, cryptopp)
//   slot_expander.hpp    across nodes, pairs of slot batches (avx512), with
//                        the ring of pairs in slot_ring.hpp
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <variant>

#include "sha1/batch.hpp"
#include "tree/expand_node.hpp"
#include "tree/expansion.hpp"
#include "tree/lane_expander.hpp"
#include "tree/slot_expander.hpp"
#include "tree/tree.hpp"

namespace uts {

// How children are queued and hashed across nodes, one per traversal:
//   lanes                  shani, cryptopp (LaneExpander)
//   slots                  avx512, each pair visited before the next pair's
//                          kernel (SlotPairExpander<false>)
//   slots_visit_in_kernel  avx512, the visit inside that kernel, for the
//                          rules PairVisitInKernel has (SlotPairExpander<true>)
// Its value is the Expander's alternative index.
enum class ExpandWay { lanes, slots, slots_visit_in_kernel };

inline ExpandWay expand_way(const Tree& tree) {
  if (tree.sha1_path() != sha1::Path::avx512) return ExpandWay::lanes;
#if defined(__x86_64__)
  if (PairVisitInKernel::available(tree)) return ExpandWay::slots_visit_in_kernel;
#endif
  return ExpandWay::slots;
}

// The expander of the way expand_way(tree) chooses. A traversal loop is
// instantiated once per way and takes that way's expander with as<kWay>():
// no test of the way per node (results/benchmarks/2026-11-28-expander-figures.md).
// Every way has the same members: add(tree, parent, counts, sink,
// keep_going, refill), flush(tree, counts, sink), abandoned(), pending(),
// refilled(). A traversal calls add() for each node it pops and flush() when
// it has nothing left to pop; until then the queued children are work this
// thread holds.
class Expander {
 public:
  using Way = ExpandWay;
  using Ways = std::variant<LaneExpander, SlotPairExpander<false>, SlotPairExpander<true>>;
  template <Way kWay>
  using Of = std::variant_alternative_t<static_cast<std::size_t>(kWay), Ways>;

  explicit Expander(const Tree& tree) {
    switch (expand_way(tree)) {
      case Way::lanes: break;  // the variant starts as a LaneExpander
      case Way::slots: ways_.emplace<SlotPairExpander<false>>(); break;
      case Way::slots_visit_in_kernel: ways_.emplace<SlotPairExpander<true>>(); break;
    }
  }

  Way way() const { return static_cast<Way>(ways_.index()); }
  // This expander as the way it is; only where kWay == way().
  template <Way kWay>
  [[gnu::always_inline]] Of<kWay>& as() {
    assert(kWay == way());
    return *std::get_if<static_cast<std::size_t>(kWay)>(&ways_);
  }

  // The same members, through a test of the way (for the tests and cold
  // callers; traversal loops use as<kWay>()).
  template <class Sink, class KeepGoing = AlwaysGoOn, class Refill = NoRefill>
  void add(const Tree& tree, const Node& parent, Counts& counts, Sink& sink, KeepGoing&& keep_going = AlwaysGoOn{},
           Refill&& refill = NoRefill{}) {
    std::visit([&](auto& e) { e.add(tree, parent, counts, sink, keep_going, refill); }, ways_);
  }
  template <class Sink>
  bool flush(const Tree& tree, Counts& counts, Sink& sink) {
    return std::visit([&](auto& e) { return e.flush(tree, counts, sink); }, ways_);
  }
  bool abandoned() const {
    return std::visit([](const auto& e) { return e.abandoned(); }, ways_);
  }
  bool pending() const {
    return std::visit([](const auto& e) { return e.pending(); }, ways_);
  }
  std::uint64_t refilled() const {
    return std::visit([](const auto& e) { return e.refilled(); }, ways_);
  }

 private:
  Ways ways_;
};

}  // namespace uts
