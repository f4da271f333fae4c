// One rank's agent in a job of several ranks: the UPC Queues request/response
// design over messages, X10 GLB's lifelines (lifeline.hpp), and the job's
// termination: Mattern's four-counter waves over a tree of ranks (waves.hpp)
// or Dijkstra-Safra's ring (safra.hpp). It implements the engine's
// RemoteLink and speaks only through a Transport (transport.hpp), so it
// holds no MPI call. Runs on OpenMP thread 0 only (MPI_THREAD_FUNNELED):
// polled every --rank-poll expansions while thread 0 works, and in its idle
// loop.
//
// Messages (tags), sent without blocking (MPI: synchronous mode; uts-smpi:
// standard mode, see docs/smpi.md; closing relies on neither):
//   REQUEST   thief -> victim, empty. At most one in flight per rank.
//   ANSWER    victim -> thief, 0..--rank-chunk nodes as 28-byte records;
//             0 nodes is a refusal. Nodes make it a basic message.
//   LIFELINE  dry thief -> each of its lifeline buddies, empty: record me.
//   PUSH      buddy -> a recorded lifeline thief, 1..--rank-chunk nodes (basic).
//   WAVE      --rank-termination tree: down the tree of ranks, the wave's number.
//   REPORT    up the tree: the wave's number, a subtree's sent and received sums.
//   TOKEN     --rank-termination ring: the token, to the next rank.
//   DONE      the job is over: rank 0 -> all (ring), or down the tree.
//   STOP      any -> all: a rank stopped early (SIGINT, --max-nodes).
//   COUNT     any -> rank 0, only with --max-nodes: its nodes so far.
//   CLOSE_WAVE, CLOSE_REPORT, RELEASE   closing (below), over the tree of ranks.
//
// Victim side. A request is answered at the victim's next poll. A working
// thread 0 answers with half of its own deque's nodes (the shallowest, at
// most --rank-chunk), keeping at least one; an idle thread 0 holds nothing
// and refuses. A lifeline request is never refused: the thief is recorded
// (once), and served at thread 0's next busy poll when it holds two nodes
// or more: half of them, the shallowest, at most --rank-chunk, oldest thief
// first. Thief side. Thread 0, idle after a failed local round, looks for
// work in other ranks while it keeps stealing locally: --rank-steal random
// sends one request to a random other rank, again after every refusal;
// lifeline sends --rank-w of them, then a lifeline request to each buddy
// not already asked, and then nothing (dormant) until nodes arrive, which
// re-arms its --rank-w attempts. Nodes that arrive go into thread 0's deque
// (marked busy first), and its other threads steal them as usual. With
// --init root every rank but 0 starts as a recorded thief of its buddies
// (both sides know the graph, no message) and dormant: rank 0's nodes fan
// out down the lifeline graph.
//
// Why polling on thread 0 (FUNNELED) and not a progress thread: a progress
// thread needs MPI_THREAD_MULTIPLE or a core of its own; on a loaded machine
// it competes with the workers for cores, and every request still waits for
// a worker to give nodes up. Polling costs one probe per --rank-poll
// expansions (measured in README.md beside this file), and the answer comes
// from the thread that holds the nodes, with no locks.
//
// Closing (no message left unreceived, no rank left waiting). After DONE or
// STOP each rank enters close(): it keeps receiving, refuses every request,
// drops what cannot matter, and sends nothing else of its own (a WAVE or
// DONE that reaches a closing rank is not forwarded: a rank closes before
// DONE only in a stopped run, and STOP reached every rank directly). Over
// the tree of ranks of waves.hpp, a second FourCounterWaves counts every
// message of the job except its own (CLOSE_WAVE, CLOSE_REPORT, RELEASE):
// a rank counts a message as sent before sending it and as received when
// it takes it, and reports up only from close(). A closing rank is passive
// in the four-counter sense: it sends only an answer to a request it has
// just received, so one that receives nothing sends nothing. Rank 0
// concludes when wave k's received total equals wave k+1's sent total; by
// waves.hpp's argument every rank was then in close() with nothing in
// flight, and nothing could be sent any more. RELEASE goes down the tree;
// a rank forwards it, waits until its own sends completed (matched or
// buffered) and leaves. So every message of the job was received, whatever
// the send mode and whatever a barrier of the MPI library guarantees
// (SimGrid 3.32's MPI_Ibarrier releases a rank once it and rank 0 joined).
#pragma once

#include <memory>

#include "distrib/transport.hpp"
#include "engine/remote_link.hpp"
#include "run/settings.hpp"
#include "run/status.hpp"

namespace uts::distrib {

// The agent speaks through `transport` (which it owns).
std::unique_ptr<RemoteLink> make_rank_agent(std::unique_ptr<Transport> transport, const EngineSettings& settings,
                                            const StopRule& stop);

}  // namespace uts::distrib
