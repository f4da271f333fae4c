// One rank's agent in a job of several ranks: the UPC Queues request/response
// design over messages, and Dijkstra-Safra termination (safra.hpp). It
// implements the engine's RemoteLink and speaks only through a Transport
// (transport.hpp), so it holds no MPI call. Runs on OpenMP thread 0 only
// (MPI_THREAD_FUNNELED): polled every --rank-poll expansions while thread 0
// works, and in its idle loop.
//
// Messages (tags), all sent in synchronous mode (a send completes only once
// it is matched; close() relies on that):
//   REQUEST   thief -> victim, empty. At most one in flight per rank.
//   ANSWER    victim -> thief, 0..--rank-chunk nodes as 28-byte records;
//             0 nodes is a refusal. Nodes make it a basic message (Safra).
//   TOKEN     the termination token, to the next rank in the ring.
//   DONE      rank 0 -> all: the job is over.
//   STOP      any -> all: a rank stopped early (SIGINT, --max-nodes).
//   COUNT     any -> rank 0, only with --max-nodes: its nodes so far.
//
// Victim side. A request is answered at the victim's next poll. A working
// thread 0 answers with half of its own deque's nodes (the shallowest, at
// most --rank-chunk), keeping at least one; an idle thread 0 holds nothing
// and refuses. Thief side. Thread 0, idle after a failed local round, sends
// one request to a random other rank and keeps stealing locally while it is
// out; nodes that arrive go into its deque (marked busy first), and its
// other threads steal them as usual.
//
// Why polling on thread 0 (FUNNELED) and not a progress thread: a progress
// thread needs MPI_THREAD_MULTIPLE or a core of its own; on a loaded machine
// it competes with the workers for cores, and every request still waits for
// a worker to give nodes up. Polling costs one probe per --rank-poll
// expansions (measured in README.md beside this file), and the answer comes
// from the thread that holds the nodes, with no locks.
//
// Closing (no message left unmatched, no rank left waiting). After DONE or
// STOP, each rank keeps receiving (refusing requests, dropping what cannot
// matter) until its own request is answered and all its sends completed;
// then it joins a non-blocking barrier and keeps receiving until the barrier
// completes. A rank joins only after its sends were matched, so when the
// barrier completes every message of the job has been received.
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
