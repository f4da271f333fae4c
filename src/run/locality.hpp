// Locality domains (docs/engine.md, section 6): which threads share a NUMA
// node, an L3 cache or a package, or N equal virtual domains. The map itself
// is built by topology/ (from hwloc and each thread's binding).
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

// Threads -> domains for one run.
struct DomainMap {
  int count = 1;
  std::vector<int> of_thread;             // domain of each thread
  std::vector<std::vector<int>> members;  // threads of each domain, ascending
  std::string source;                     // how it was derived (for output)

  bool same(int a, int b) const {
    return of_thread[static_cast<std::size_t>(a)] == of_thread[static_cast<std::size_t>(b)];
  }
  // Rebuild `members` from `of_thread` and `count`.
  void fill_members();
};

}  // namespace uts
