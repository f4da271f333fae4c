// Locality domains: which threads share a NUMA node, an L3 cache or a
// package (from the hardware topology, through hwloc), or N equal virtual
// domains (to study hierarchy on a small machine).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace uts {

enum class DomainLevel { numa, l3, package, virtual_count };

struct DomainSpec {
  DomainLevel level = DomainLevel::numa;
  int count = 0;  // virtual_count: N
};

std::optional<DomainSpec> parse_domains(const std::string& text);
std::string to_string(const DomainSpec& spec);

// The hardware side, read once per run.
class Topology {
 public:
  Topology();  // loads the topology; never throws (a failure is remembered)
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

 private:
  void* topology_ = nullptr;  // hwloc_topology_t
  std::string error_;
};

// Threads -> domains for one run.
struct DomainMap {
  int count = 1;
  std::vector<int> of_thread;             // domain of each thread
  std::vector<std::vector<int>> members;  // threads of each domain, ascending
  std::string source;                     // how it was derived (for output)

  bool same(int a, int b) const { return of_thread[static_cast<std::size_t>(a)] == of_thread[static_cast<std::size_t>(b)]; }
};

// Virtual: thread i of P goes to domain floor(i * N / P) (contiguous blocks
// whose sizes differ by at most one).
DomainMap virtual_domains(int threads, int count);

// From per-thread hardware domain indices (-1: unbound). Bound threads keep
// their domain; unbound ones are spread in order over the domains, in
// contiguous blocks; domains without threads are dropped and the rest
// renumbered 0.. in order.
DomainMap hardware_domains(const std::vector<int>& hw_domain, int hw_domains, const std::string& level_name);

}  // namespace uts
