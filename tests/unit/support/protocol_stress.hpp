// Shared test support: threads expand a synthetic tree of serial-numbered
// nodes through a steal protocol's owner operations and steal from each
// other with it, ending by the engine's termination double scan; a ledger
// counts every serial. The loop the per-protocol tests and the registry-wide
// test all run.
#pragma once

#include <omp.h>

#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "steal/idle/termination.hpp"
#include "steal/protocol.hpp"
#include "workload/items.hpp"

namespace uts::test {

// A tree of `total` serials: serial s has children kFanout*s+1 ..
// kFanout*s+kFanout (those below total), so any node may be expanded by any
// thread. Wide enough that a depth-first stack passes 2K = 40 nodes (the
// locked stack's default chunk K = 20 is released).
inline constexpr std::uint32_t kFanout = 16;
inline Node tree_node(std::uint32_t serial, std::uint32_t total) {
  const std::uint64_t first = std::uint64_t{kFanout} * serial + 1;
  const std::uint64_t end = first + kFanout < total ? first + kFanout : (first < total ? total : first);
  return make_item(serial, 0, static_cast<std::uint32_t>(end - first));
}

struct StressResult {
  std::uint32_t total = 0;
  std::uint64_t lost = 0, duplicated = 0, corrupt = 0;
  std::uint64_t steals = 0, nodes_stolen = 0, attempts = 0;
  std::uint64_t given = 0;  // nodes handed out by give_shallowest (then taken back)
  ThreadStats sum;
  bool exact() const { return lost == 0 && duplicated == 0 && corrupt == 0; }
};

// `give_every`: every so many expansions an owner gives its shallowest
// nodes away and takes them back at once, as an MPI rank's agent would
// hand them to another rank (0: never).
template <class P>
StressResult stress(int threads, std::uint32_t total, EngineSettings settings, unsigned seed, int give_every = 0) {
  settings.threads = threads;
  typename P::Context ctx(threads, settings);
  std::vector<std::unique_ptr<typename P::Deque>> deques(static_cast<std::size_t>(threads));
  Ledger ledger(total);
  std::atomic<std::uint64_t> steals{0}, stolen{0}, attempts{0}, given{0};
  Termination termination(threads);
  std::vector<ThreadStats> stats(static_cast<std::size_t>(threads));
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
    deques[static_cast<std::size_t>(id)] = std::make_unique<typename P::Deque>(ctx, id);
#pragma omp barrier
    auto& mine = *deques[static_cast<std::size_t>(id)];
    BusyMark busy(termination, id);
    std::mt19937 rng(seed + static_cast<unsigned>(id));
    std::vector<std::uint64_t> scratch;
    std::vector<Node> handed;
    int expansions = 0;
    if (id == 0) mine.push(tree_node(0, total));
    for (;;) {
      Node n;
      while (mine.pop(n)) {
        ledger.take(n);
        const std::uint64_t s = serial_of(n);
        if (s >= total) continue;  // corrupt: counted by the ledger
        auto out = mine.pusher(kFanout);
        for (std::uint64_t c = kFanout * s + 1; c <= kFanout * s + kFanout; ++c)
          if (c < total) out.push(tree_node(static_cast<std::uint32_t>(c), total));
        mine.commit(out);
        serve_thieves(mine);
        if (give_every && ++expansions % give_every == 0) {
          handed.clear();
          const auto k = static_cast<std::uint32_t>(mine.size() / 2);
          given.fetch_add(mine.give_shallowest(k, handed), std::memory_order_relaxed);
          // Another rank would expand them; here they come straight back.
          for (const Node& h : handed) mine.push(h);
        }
        if ((rng() & 15) == 0) std::this_thread::yield();  // let thieves in on 2 cores
      }
      on_dry(mine);
      termination.idle(id);
      bool found = false;
      while (!termination.done()) {
        if (threads == 1) {
          termination.detect(scratch);
          continue;
        }
        int v = static_cast<int>(rng() % static_cast<unsigned>(threads - 1));
        if (v >= id) ++v;
        const StealOutcome o = mine.steal(*deques[static_cast<std::size_t>(v)], busy, settings.steal, RemoteDelay{});
        if (o.attempted) attempts.fetch_add(1);
        if (o.nodes > 0) {
          steals.fetch_add(1);
          stolen.fetch_add(o.nodes);
          found = true;
          break;
        }
        if (termination.detect(scratch)) break;
        std::this_thread::yield();
      }
      if (!found) break;
      on_refilled(mine);
    }
    report(mine, stats[static_cast<std::size_t>(id)]);
#pragma omp barrier
  }
  StressResult r;
  r.total = total;
  r.lost = ledger.lost();
  r.duplicated = ledger.duplicated();
  r.corrupt = ledger.corrupted() + ledger.strays();
  r.steals = steals.load();
  r.nodes_stolen = stolen.load();
  r.attempts = attempts.load();
  r.given = given.load();
  for (const ThreadStats& s : stats) {
    r.sum.shares += s.shares;
    r.sum.nodes_shared += s.nodes_shared;
    r.sum.reclaims += s.reclaims;
    r.sum.nodes_reclaimed += s.nodes_reclaimed;
    r.sum.requests_sent += s.requests_sent;
    r.sum.requests_answered += s.requests_answered;
    r.sum.requests_refused += s.requests_refused;
    r.sum.requests_withdrawn += s.requests_withdrawn;
  }
  return r;
}

inline EngineSettings settings_for(const ProtocolTraits& p, StealPolicy steal, std::uint32_t poll = 1) {
  EngineSettings s;
  s.protocol = std::string(p.name);
  s.steal = steal;
  s.poll_interval = poll;
  return s;
}

}  // namespace uts::test
