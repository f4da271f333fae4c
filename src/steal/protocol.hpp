// What a steal protocol is to the rest of uts: its identity (traits), and
// the operations the one worker loop (engine/worker.hpp) calls.
//
// A protocol lives in its own folder under steal/protocols/, organised alike:
// a data structure with its safety argument in the header, and a small
// adapter `<name>_protocol.hpp` that defines the protocol type P:
//   P::traits             ProtocolTraits: name, defaults, counters (below)
//   P::Context            what all threads share (built once, before the region)
//   P::Deque              one per thread, constructed by its owner (first touch)
// It becomes selectable by one line in steal/registry.hpp.
//
// The deque offers, to its owner:
//   pusher(n), commit(pusher)   the expansion sink (tree/expand.hpp)
//   push(node)            one node
//   pop(node)             the deepest node; false: this deque is empty for certain
//   size()                how many nodes the owner holds (stealable or not)
//   give_shallowest(k, out)
//                         move up to k of the shallowest nodes it holds into
//                         `out` (appended, shallowest first); returns how many
//                         (an MPI rank's agent answers other ranks with them)
//   expose_work()         some thread sleeps: make nodes stealable if the design
//                         lets the owner do so; true when stealable nodes wait
//                         unclaimed (the loop then wakes a sleeper)
// and optionally (the loop calls them when the deque has them):
//   serve_thieves()       after every expansion: answer a share request (split),
//                         release surplus chunks (locked), poll the request
//                         cell (request)
//   pop_private(node)     the deepest node if the owner can take it with no
//                         atomic and no call: false says only that there is
//                         none such, not that the deque is empty. The
//                         expander takes refills with it while the AVX-512
//                         kernel holds its state in registers. A protocol
//                         without it gets pop() there (the dispatcher
//                         pop_private(d, node) below): Chase-Lev, request.
//   on_dry()              the owner ran dry and starts searching
//   on_refilled()         its search succeeded
//   report(stats)         the protocol's counters into the thread's statistics
// to thieves (any thread):
//   stealable()           a cheap probe: does a steal look worthwhile
// and to the thief, called on the thief's own deque:
//   steal(victim, busy, amount, delay)
//                         try to move nodes from `victim` into this deque;
//                         `amount` is the steal policy for this try (--steal,
//                         or --steal-local/-remote under --victim hier); a
//                         protocol with one fixed amount ignores it (the
//                         command line has checked it against the traits);
//                         `delay()` runs right before the claim (a no-op
//                         unless the victim is in another domain)
//
// Termination (idle/termination.hpp) needs one rule from every protocol: a
// thief calls busy.busy() before its claim can succeed and busy.idle() if it
// fails, so every node not yet expanded is always held by a busy thread.
#pragma once

#include <atomic>
#include <bit>
#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/clock.hpp"
#include "base/cpu_relax.hpp"
#include "base/interrupt.hpp"
#include "run/policy.hpp"
#include "run/settings.hpp"
#include "run/stats.hpp"
#include "steal/idle/termination.hpp"
#include "tree/node.hpp"

namespace uts {

// The StealAmounts a protocol honours, as a set of bits.
constexpr unsigned amount_bit(StealAmount a) { return 1u << static_cast<unsigned>(a); }
inline constexpr unsigned kAnyAmount =
    amount_bit(StealAmount::half) | amount_bit(StealAmount::one) | amount_bit(StealAmount::chunk);

// A protocol's identity, defined once, beside it; the command line, the
// report and the dispatch read it.
struct ProtocolTraits {
  std::string_view name;         // --protocol NAME
  std::string_view summary;      // --help, after the name
  std::string_view engine_line;  // the text report's "Engine:" line
  StealPolicy default_steal;     // --steal when not given
  unsigned amounts;              // the StealAmounts it honours: amount_bit() of each
  std::string_view amount_rule;  // why it refuses the others (for the error message)
  VictimOrder default_victim;    // --victim when not given
  unsigned counters;             // the ProtocolCounters (run/stats.hpp) it keeps
  bool polls;                    // takes --poll-interval (-I): owners poll for requests

  bool accepts(StealAmount a) const { return (amounts & amount_bit(a)) != 0; }
  // One kind of amount only: under --victim hier local and remote steals
  // take it too.
  bool fixed_amount() const { return std::popcount(amounts) == 1; }
  bool has(ProtocolCounters c) const { return (counters & c) != 0; }
};

// --remote-delay: the emulated cost of one access to another domain's deque.
// A protocol calls it right before its claim (CAS, lock or request post);
// the engine calls it before the probe. It ends early when the run is asked
// to stop (a delay may be seconds long: --remote-delay takes up to 10 s), and
// when the run has ended: a thief counts as idle while it waits, so the
// others may detect the end meanwhile, and the rest of a wait for a deque
// that can hold nothing would only lengthen the run's time (and a signal in
// that tail would shorten it: the same run, two times).
struct RemoteDelay {
  std::uint64_t ns = 0;
  const std::atomic<bool>* ended = nullptr;  // the run's end (termination's done flag), or none
  void operator()() const {
    if (ns == 0) return;
    const auto end = Clock::now() + std::chrono::nanoseconds(ns);
    // relaxed: the flag only cuts the wait short; whoever acts on the end
    // reads it again with termination's own order.
    while (Clock::now() < end && !interrupt::stop_requested() && !(ended && ended->load(std::memory_order_relaxed)))
      cpu_relax();
  }
};

// What one steal try did.
struct StealOutcome {
  bool attempted = false;   // a claim was issued (CAS, lock, or request posted)
  std::uint32_t nodes = 0;  // nodes now in the thief's deque (0: failed)
};

template <class D>
concept ProtocolDeque = requires(D& d, const D& cd, D& victim, const Node& node, Node& out, BusyMark& busy,
                                 const StealPolicy& amount, const RemoteDelay& delay, std::vector<Node>& given) {
  { d.pusher(std::uint32_t{1}).push(node) };
  { d.commit(d.pusher(std::uint32_t{1})) };
  { d.push(node) };
  { d.pop(out) } -> std::same_as<bool>;
  { cd.size() } -> std::convertible_to<std::uint64_t>;
  { d.give_shallowest(std::uint32_t{1}, given) } -> std::same_as<std::uint32_t>;
  { d.expose_work() } -> std::same_as<bool>;
  { cd.stealable() } -> std::same_as<bool>;
  { d.steal(victim, busy, amount, delay) } -> std::same_as<StealOutcome>;
};

template <class P>
concept StealProtocol = ProtocolDeque<typename P::Deque> &&
    std::same_as<std::remove_cvref_t<decltype(P::traits)>, ProtocolTraits> &&
    std::constructible_from<typename P::Context, int, const EngineSettings&> &&
    std::constructible_from<typename P::Deque, typename P::Context&, int>;

// The optional operations: called where the deque has them.
template <class D>
void serve_thieves(D& d) {
  if constexpr (requires { d.serve_thieves(); }) d.serve_thieves();
}
template <class D>
bool pop_private(D& d, Node& out) {
  if constexpr (requires { d.pop_private(out); }) return d.pop_private(out);
  else return d.pop(out);
}
template <class D>
void on_dry(D& d) {
  if constexpr (requires { d.on_dry(); }) d.on_dry();
}
template <class D>
void on_refilled(D& d) {
  if constexpr (requires { d.on_refilled(); }) d.on_refilled();
}
template <class D>
void report(const D& d, ThreadStats& stats) {
  if constexpr (requires { d.report(stats); }) d.report(stats);
}

}  // namespace uts
