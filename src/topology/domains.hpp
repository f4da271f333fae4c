// Locality domains from the machine (hwloc) or virtual ones, and the map of
// a run's threads onto them (run/locality.hpp's DomainMap).
#pragma once

#include <string>
#include <vector>

#include "run/locality.hpp"

namespace uts {

// The hardware side, read once per run.
class Topology {
 public:
  Topology();  // loads this machine's topology; never throws (a failure is remembered)
  // A synthetic topology in hwloc's syntax ("pack:2 numa:1 core:4 pu:2"),
  // for planning placements of machines one does not own (tests).
  explicit Topology(const std::string& synthetic);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  bool loaded() const { return topology_ != nullptr; }
  const std::string& error() const { return error_; }
  // The index of the domain at `level` that contains the calling thread's
  // CPU binding, or -1 when the thread is bound to CPUs of several domains
  // (unbound) or the binding cannot be read.
  int domain_of_calling_thread(DomainLevel level) const;
  int domains_at(DomainLevel level) const;
  bool synthetic() const { return synthetic_; }
  void* handle() const { return topology_; }  // hwloc_topology_t (topology/placement.cpp)

 private:
  void* topology_ = nullptr;  // hwloc_topology_t
  std::string error_;
  bool synthetic_ = false;
};

// Virtual: thread i of P goes to domain floor(i * N / P) (contiguous blocks
// whose sizes differ by at most one).
DomainMap virtual_domains(int threads, int count);

// From per-thread hardware domain indices (-1: unbound). Bound threads keep
// their domain; unbound ones are spread in order over the domains, in
// contiguous blocks; domains without threads are dropped and the rest
// renumbered 0.. in order.
DomainMap hardware_domains(const std::vector<int>& hw_domain, int hw_domains, const std::string& level_name);

// The map for a run of `threads` OpenMP threads. Hardware levels read each
// thread's binding inside an OpenMP region of that size (OpenMP binds thread
// i of a team of a given size to the same place in every region). When the
// topology cannot be read: one domain, and a one-line warning on stderr.
DomainMap build_domain_map(const DomainSpec& spec, int threads);

}  // namespace uts
