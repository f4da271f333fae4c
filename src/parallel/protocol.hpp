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
//   steal(victim, busy, amount, delay)
//                         try to move nodes from `victim` into this
//                         deque; `amount` is the steal policy for this try
//                         (--steal, or --steal-local/-remote under --victim
//                         hier); locked and chaselev have one fixed amount
//                         each, which the command line has checked;
//                         `delay()` runs right before the claim (a no-op
//                         unless the victim is in another domain)
//
// Termination (termination.hpp) needs one rule from every protocol: a thief
// calls busy.busy() before its claim can succeed and busy.idle() if it fails,
// so every node not yet expanded is always held by a busy thread.
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>

#include "parallel/termination.hpp"
#include "report/result.hpp"
#include "tree/node.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

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

// --remote-delay: the emulated cost of one access to another domain's deque.
// A protocol calls it right before its claim (CAS, lock or request post);
// the engine calls it before the probe.
struct RemoteDelay {
  std::uint64_t ns = 0;
  void operator()() const {
    if (ns == 0) return;
    const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
    while (std::chrono::steady_clock::now() < end) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    }
  }
};

// What one steal try did.
struct StealOutcome {
  bool attempted = false;  // a claim was issued (CAS, lock, or request posted)
  std::uint32_t nodes = 0;  // nodes now in the thief's deque (0: failed)
};

template <class D>
concept ProtocolDeque = requires(D& d, const D& cd, D& victim, const Node& node, Node& out, BusyMark& busy,
                                 const StealPolicy& amount, const RemoteDelay& delay, ThreadStats& stats) {
  { d.reserve(std::uint32_t{1}) };
  { d.push_if(node, true) };
  { d.push(node) };
  { d.pop(out) } -> std::same_as<bool>;
  { d.maintain() };
  { d.offer() } -> std::same_as<bool>;
  { d.go_idle() };
  { d.got_work() };
  { cd.stealable() } -> std::same_as<bool>;
  { d.steal(victim, busy, amount, delay) } -> std::same_as<StealOutcome>;
  { cd.report(stats) };
};

template <class P>
concept StealProtocol = ProtocolDeque<typename P::Deque> &&
    std::constructible_from<typename P::Context, int, const EngineSettings&> &&
    std::constructible_from<typename P::Deque, typename P::Context&, int>;

}  // namespace uts
