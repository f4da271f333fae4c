// The steal-protocol concept: what the one worker loop (engine.cpp) needs
// from a protocol. Each protocol lives in its own file with its safety
// argument:
//   split     split_protocol.hpp  (split_deque.hpp)  Lace-style split deque
//   locked    locked_stack.hpp                       2003 UPC / uts_shm chunk stack
//   request   request_protocol.hpp                   UPC Queues request/response
//   chaselev  chase_lev.hpp                          Chase-Lev, Le et al. 2013 orders
//
// A protocol P provides
//   P::Context            what all threads share (built once, before the region)
//   P::Deque              one per thread, constructed by its owner (first touch)
// and the deque offers, to its owner:
//   reserve(n), push_if(node, keep), push(node)   the expansion sink (tree/expand.hpp)
//   pop(node)             the deepest node; false: this deque is empty for certain
//   maintain()            after every expansion (split: answer a share request;
//                         locked: release chunks; request: poll for requests)
//   offer()               a thread sleeps: make nodes stealable if it can; true
//                         when some are stealable now (the engine wakes one)
//   go_idle()             the owner has run dry and starts searching
//   got_work()            its search succeeded
//   report(stats)         the protocol's counters into the thread's statistics
// to thieves (any thread):
//   stealable()           a cheap probe: does a steal look worthwhile
// and to the thief, called on the thief's own deque:
//   steal(victim, busy)   try to move nodes from `victim` into this deque
//
// Termination (termination.hpp) needs one rule from every protocol: a thief
// calls busy.busy() before its claim can succeed and busy.idle() if it fails,
// so every node not yet expanded is always held by a busy thread.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>

#include "parallel/termination.hpp"
#include "report/result.hpp"
#include "tree/node.hpp"

namespace uts {

// The thief's side of the termination rule, for one thread.
class BusyMark {
 public:
  BusyMark(Termination& termination, int id) : termination_(termination), id_(id) {}
  void busy() { termination_.busy(id_); }
  void idle() { termination_.idle(id_); }

 private:
  Termination& termination_;
  int id_;
};

// What one steal try did.
struct StealOutcome {
  bool attempted = false;  // a claim was issued (CAS, lock, or request posted)
  std::uint32_t nodes = 0;  // nodes now in the thief's deque (0: failed)
};

template <class D>
concept ProtocolDeque = requires(D& d, const D& cd, D& victim, const Node& node, Node& out, BusyMark& busy,
                                 ThreadStats& stats) {
  { d.reserve(std::uint32_t{1}) };
  { d.push_if(node, true) };
  { d.push(node) };
  { d.pop(out) } -> std::same_as<bool>;
  { d.maintain() };
  { d.offer() } -> std::same_as<bool>;
  { d.go_idle() };
  { d.got_work() };
  { cd.stealable() } -> std::same_as<bool>;
  { d.steal(victim, busy) } -> std::same_as<StealOutcome>;
  { cd.report(stats) };
};

template <class P>
concept StealProtocol = ProtocolDeque<typename P::Deque> &&
    std::constructible_from<typename P::Context, int, const EngineSettings&> &&
    std::constructible_from<typename P::Deque, typename P::Context&, int>;

}  // namespace uts
