// Thread placement with hwloc (--bind, docs/engine.md "Thread placement"):
// the plan (which PUs each thread of a run is bound to), binding the calling
// thread, and reading back where a thread is and what it is bound to.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "run/placement.hpp"
#include "topology/domains.hpp"

namespace uts {

// The PUs (OS numbers) thread i of `threads` is bound to, for a placement
// uts makes (compact, scatter, numa); empty for none and omp. Only PUs in
// `usable` (OS numbers; empty: every PU of the topology) are used.
//   compact  cores in hwloc's logical order (package by package), one PU per
//            core, or with `smt` every PU of a core before the next core;
//            thread i on slot i mod slots.
//   scatter  the cores grouped by (package, NUMA node); groups taken in
//            turn, alternating packages; within a group, one PU per core
//            first (with `smt`, then the second PUs, ...); thread i on slot
//            i mod slots.
//   numa     thread i on every usable PU of NUMA node floor(i * N / threads).
// `first_slot` shifts compact and scatter (thread i on slot first_slot + i):
// the ranks of one host that share its PUs take consecutive slots.
std::vector<std::vector<int>> plan_placement(const Topology& topology, BindPolicy policy, bool smt, int threads,
                                             const std::vector<int>& usable = {}, int first_slot = 0);

// The PUs (OS numbers) the calling process may run on (its affinity), or
// empty when it cannot be read.
std::vector<int> usable_pus(const Topology& topology);

// Binds the calling thread to these PUs; false (and errno-free) on failure.
bool bind_calling_thread(const Topology& topology, const std::vector<int>& pus);

// Where the calling thread is now and what it is bound to (`usable`: the
// PUs the process may use; a binding to all of them is no binding).
ThreadPlace place_of_calling_thread(const Topology& topology, const std::vector<int>& usable);

TopologySummary summarize_topology(const Topology& topology);

// A run's placement: the topology, read once, the PUs the process may use
// and the plan. prepare_placement() reads the topology and the usable PUs;
// apply() plans for `threads` OpenMP threads and binds each thread in an
// OpenMP region of that size (OpenMP keeps thread i of a team of a given
// size on the same OS thread from region to region; the engine binds again
// at the top of its own region). `first_slot` shifts compact and scatter:
// ranks of one host that share a set of PUs take consecutive slots
// (distrib/mpi/run.cpp). A topology that cannot be read, or one that is not
// this machine's (HWLOC_XMLFILE, HWLOC_SYNTHETIC), gives one warning line
// and neither binding nor placement record.
struct Placement {
  void apply(const BindSettings& bind, int threads, int first_slot = 0);
  std::unique_ptr<Topology> topology;
  std::vector<int> usable;              // PUs the process may use (OS numbers)
  std::vector<std::vector<int>> plan;   // per thread; empty: nothing bound by uts
  void bind_again(int thread) const;    // from inside a region: thread's plan again
  ThreadPlace sample() const;           // where the calling thread is, what it is bound to
  RankPlace rank_place() const;         // this process's host and usable PUs
  TopologySummary summary() const;
};
Placement prepare_placement();
Placement place_team(const BindSettings& bind, int threads);  // prepare, then apply

}  // namespace uts
