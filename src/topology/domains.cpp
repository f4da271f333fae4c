// Locality domains from hwloc or virtual ones, and a run's thread ->
// domain map (domains.hpp).
#include "topology/domains.hpp"

#include <hwloc.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace uts {

namespace {

hwloc_obj_type_t type_of(DomainLevel level) {
  switch (level) {
    case DomainLevel::l3: return HWLOC_OBJ_L3CACHE;
    case DomainLevel::package: return HWLOC_OBJ_PACKAGE;
    case DomainLevel::numa:
    case DomainLevel::virtual_count: break;
  }
  return HWLOC_OBJ_NUMANODE;
}

}  // namespace

Topology::Topology() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) {
    error_ = "hwloc_topology_init failed";
    return;
  }
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    error_ = "hwloc_topology_load failed";
    return;
  }
  // HWLOC_XMLFILE or HWLOC_SYNTHETIC give hwloc another machine: binding
  // would silently do nothing and placements would be made up.
  if (!hwloc_topology_is_thissystem(topo)) {
    hwloc_topology_destroy(topo);
    error_ = "the topology hwloc loaded is not this machine's (HWLOC_XMLFILE or HWLOC_SYNTHETIC set?)";
    return;
  }
  topology_ = topo;
}

Topology::Topology(const std::string& synthetic) : synthetic_(true) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) {
    error_ = "hwloc_topology_init failed";
    return;
  }
  if (hwloc_topology_set_synthetic(topo, synthetic.c_str()) != 0 || hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    error_ = "bad synthetic topology '" + synthetic + "'";
    return;
  }
  topology_ = topo;
}

Topology::~Topology() {
  if (topology_) hwloc_topology_destroy(static_cast<hwloc_topology_t>(topology_));
}

int Topology::domains_at(DomainLevel level) const {
  if (!topology_) return 0;
  const int n = hwloc_get_nbobjs_by_type(static_cast<hwloc_topology_t>(topology_), type_of(level));
  return n > 0 ? n : 0;
}

int Topology::domain_of_calling_thread(DomainLevel level) const {
  if (!topology_) return -1;
  auto topo = static_cast<hwloc_topology_t>(topology_);
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) return -1;
  int found = -1;
  // A thread allowed on every CPU the process may use is unbound, even on a
  // machine with a single domain (its mask would fit inside that domain).
  const hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(topo);
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0 && !hwloc_bitmap_iszero(set) &&
      !(hwloc_bitmap_weight(set) > 1 && allowed && hwloc_bitmap_isequal(set, allowed))) {
    const int n = hwloc_get_nbobjs_by_type(topo, type_of(level));
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type_of(level), static_cast<unsigned>(i));
      if (obj && obj->cpuset && hwloc_bitmap_isincluded(set, obj->cpuset)) {
        found = i;
        break;
      }
    }
  }
  hwloc_bitmap_free(set);
  return found;
}

DomainMap virtual_domains(int threads, int count) {
  DomainMap m;
  m.count = count;
  m.of_thread.resize(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t)
    m.of_thread[static_cast<std::size_t>(t)] =
        static_cast<int>(static_cast<std::int64_t>(t) * count / threads);
  m.source = std::to_string(count) + " virtual";
  m.fill_members();
  return m;
}

DomainMap hardware_domains(const std::vector<int>& hw_domain, int hw_domains, const std::string& level_name) {
  const auto threads = static_cast<int>(hw_domain.size());
  std::vector<int> d = hw_domain;
  const int spread_over = hw_domains > 0 ? hw_domains : 1;
  int unbound = 0;
  for (int t = 0; t < threads; ++t) {
    if (d[static_cast<std::size_t>(t)] >= 0) continue;
    // Unbound: in order, contiguous blocks over the hardware domains.
    d[static_cast<std::size_t>(t)] = static_cast<int>(static_cast<std::int64_t>(t) * spread_over / threads);
    ++unbound;
  }
  // Keep the domains that have threads, renumbered in order.
  std::vector<int> used(d.begin(), d.end());
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  DomainMap m;
  m.count = static_cast<int>(used.size());
  m.of_thread.resize(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t)
    m.of_thread[static_cast<std::size_t>(t)] = static_cast<int>(
        std::lower_bound(used.begin(), used.end(), d[static_cast<std::size_t>(t)]) - used.begin());
  m.source = level_name + (unbound == 0 ? " (threads bound)"
                                        : unbound == threads ? " (threads unbound: assigned in order)"
                                                             : " (unbound threads assigned in order)");
  m.fill_members();
  return m;
}

DomainMap build_domain_map(const DomainSpec& spec, int threads) {
  if (spec.level == DomainLevel::virtual_count) return virtual_domains(threads, spec.count);
  const Topology topology;
  if (!topology.loaded()) {
    std::fprintf(stderr, "uts: warning: cannot read the hardware topology (%s): one domain\n",
                 topology.error().c_str());
    return virtual_domains(threads, 1);
  }
  std::vector<int> hw_domain(static_cast<std::size_t>(threads), -1);
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
    if (id < threads) hw_domain[static_cast<std::size_t>(id)] = topology.domain_of_calling_thread(spec.level);
  }
  return hardware_domains(hw_domain, topology.domains_at(spec.level), to_string(spec));
}

}  // namespace uts
