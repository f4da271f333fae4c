// Thread placement with hwloc (placement.hpp): the PUs a process may use,
// the compact, scatter and numa plans, binding, and where threads ran.
#include "topology/placement.hpp"

#include <hwloc.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include <sched.h>
#include <unistd.h>

#if UTS_SMPI
#include <simgrid/host.h>
#endif

namespace uts {

namespace {

hwloc_topology_t topo_of(const Topology& t) { return static_cast<hwloc_topology_t>(t.handle()); }

// The PUs (OS numbers) of `set` that are also usable, in order.
std::vector<int> pus_in(hwloc_const_bitmap_t set, const std::vector<int>& usable) {
  std::vector<int> out;
  if (!set) return out;
  unsigned i;
  hwloc_bitmap_foreach_begin(i, set) {
    const int pu = static_cast<int>(i);
    if (usable.empty() || std::binary_search(usable.begin(), usable.end(), pu)) out.push_back(pu);
  }
  hwloc_bitmap_foreach_end();
  return out;
}

// Logical index of the object of `type` whose cpuset contains `set`, or -1.
int containing(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_bitmap_t set) {
  const int n = hwloc_get_nbobjs_by_type(topo, type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
    if (o && o->cpuset && !hwloc_bitmap_iszero(set) && hwloc_bitmap_isincluded(set, o->cpuset)) return i;
  }
  return -1;
}

struct CoreSlots {
  int package = -1, numa = -1;
  std::vector<int> pus;  // usable PUs of the core, in order
};

std::vector<CoreSlots> cores_of(hwloc_topology_t topo, const std::vector<int>& usable) {
  std::vector<CoreSlots> cores;
  // A topology without cores (some virtual machines): every PU is a core.
  const hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int n = hwloc_get_nbobjs_by_type(topo, type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
    if (!o || !o->cpuset) continue;
    CoreSlots c;
    c.pus = pus_in(o->cpuset, usable);
    if (c.pus.empty()) continue;
    c.package = containing(topo, HWLOC_OBJ_PACKAGE, o->cpuset);
    c.numa = containing(topo, HWLOC_OBJ_NUMANODE, o->cpuset);
    cores.push_back(std::move(c));
  }
  return cores;
}

}  // namespace

namespace {

// The PUs the process may use now (see usable_pus).
std::vector<int> process_pus(hwloc_topology_t topo) {
  std::vector<int> out;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) return out;
  // When the OpenMP runtime has places (OMP_PLACES, OMP_PROC_BIND), it bound
  // this (the initial) thread to the first place as the program started, so
  // the process's binding now reads narrower than what the run may use: the
  // places together are that set (the runtime built them from the affinity
  // the process started with).
  const int places = omp_get_num_places();
  bool have = false;
  if (places > 0) {
    for (int p = 0; p < places; ++p) {
      const int n = omp_get_place_num_procs(p);
      if (n <= 0) continue;
      std::vector<int> ids(static_cast<std::size_t>(n));
      omp_get_place_proc_ids(p, ids.data());
      for (int id : ids)
        if (id >= 0) hwloc_bitmap_set(set, static_cast<unsigned>(id));
    }
    have = !hwloc_bitmap_iszero(set);
  }
  if (!have)
    have = hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 ||
           hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0;
  if (have) {
    hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(topo));
    out = pus_in(set, {});
  }
  hwloc_bitmap_free(set);
  return out;
}

}  // namespace

std::vector<int> usable_pus(const Topology& topology) {
  hwloc_topology_t topo = topo_of(topology);
  if (!topo || topology.synthetic()) return {};
  // Read once, before uts binds anything: a later read would see the
  // binding of an earlier run in this process (--work-baseline sequential
  // binds the initial thread) and take one PU for all the process may use.
  static const std::vector<int> first = process_pus(topo);
  return first;
}

std::vector<std::vector<int>> plan_placement(const Topology& topology, BindPolicy policy, bool smt, int threads,
                                             const std::vector<int>& usable_in, int first_slot) {
  std::vector<std::vector<int>> plan;
  hwloc_topology_t topo = topo_of(topology);
  if (!topo || threads < 1) return plan;
  std::vector<int> usable = usable_in;
  std::sort(usable.begin(), usable.end());
  std::vector<int> slots;  // compact and scatter: one PU per slot, in order
  switch (policy) {
    case BindPolicy::none:
    case BindPolicy::omp: return plan;
    case BindPolicy::compact: {
      for (const CoreSlots& c : cores_of(topo, usable)) {
        if (smt)
          slots.insert(slots.end(), c.pus.begin(), c.pus.end());
        else
          slots.push_back(c.pus.front());
      }
      break;
    }
    case BindPolicy::scatter: {
      // Groups of cores by (package, NUMA node), in logical order.
      std::map<std::pair<int, int>, std::vector<const CoreSlots*>> groups;
      const std::vector<CoreSlots> cores = cores_of(topo, usable);
      for (const CoreSlots& c : cores) groups[{c.package, c.numa}].push_back(&c);
      // Alternate packages: the first group of every package, then the
      // second of every package, ...
      std::map<int, std::vector<const std::vector<const CoreSlots*>*>> by_package;
      for (const auto& [key, members] : groups) by_package[key.first].push_back(&members);
      std::vector<const std::vector<const CoreSlots*>*> order;
      for (std::size_t round = 0;; ++round) {
        bool any = false;
        for (const auto& [pkg, list] : by_package)
          if (round < list.size()) {
            order.push_back(list[round]);
            any = true;
          }
        if (!any) break;
      }
      // Within a group: the k-th PU of each core (k = 0 only without smt).
      std::vector<std::vector<int>> group_slots;
      for (const auto* members : order) {
        std::vector<int> s;
        std::size_t depth = 1;
        if (smt)
          for (const CoreSlots* c : *members) depth = std::max(depth, c->pus.size());
        for (std::size_t k = 0; k < depth; ++k)
          for (const CoreSlots* c : *members)
            if (k < c->pus.size()) s.push_back(c->pus[k]);
        group_slots.push_back(std::move(s));
      }
      // Round-robin over the groups.
      for (std::size_t k = 0;; ++k) {
        bool any = false;
        for (const std::vector<int>& s : group_slots)
          if (k < s.size()) {
            slots.push_back(s[k]);
            any = true;
          }
        if (!any) break;
      }
      break;
    }
    case BindPolicy::numa: {
      std::vector<std::vector<int>> nodes;
      const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
      for (int i = 0; i < n; ++i) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
        if (!o || !o->cpuset) continue;
        std::vector<int> pus = pus_in(o->cpuset, usable);
        if (!pus.empty()) nodes.push_back(std::move(pus));
      }
      if (nodes.empty()) nodes.push_back(pus_in(hwloc_topology_get_topology_cpuset(topo), usable));
      if (nodes.front().empty()) return plan;
      for (int t = 0; t < threads; ++t)
        plan.push_back(nodes[static_cast<std::size_t>(static_cast<long long>(t) * static_cast<long long>(nodes.size()) /
                                                      threads)]);
      return plan;
    }
  }
  if (slots.empty()) return plan;
  for (int t = 0; t < threads; ++t)
    plan.push_back({slots[static_cast<std::size_t>(first_slot + t) % slots.size()]});
  return plan;
}

bool bind_calling_thread(const Topology& topology, const std::vector<int>& pus) {
  hwloc_topology_t topo = topo_of(topology);
  if (!topo || topology.synthetic() || pus.empty()) return false;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) return false;
  for (int pu : pus) hwloc_bitmap_set(set, static_cast<unsigned>(pu));
  const bool ok = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT) == 0 ||
                  hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0;
  hwloc_bitmap_free(set);
  return ok;
}

ThreadPlace place_of_calling_thread(const Topology& topology, const std::vector<int>& usable) {
  ThreadPlace p;
  hwloc_topology_t topo = topo_of(topology);
  if (!topo || topology.synthetic()) return p;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) return p;
  if (hwloc_get_last_cpu_location(topo, set, HWLOC_CPUBIND_THREAD) == 0 && !hwloc_bitmap_iszero(set)) {
    p.pu = hwloc_bitmap_first(set);
    hwloc_bitmap_only(set, static_cast<unsigned>(p.pu));
    p.core = containing(topo, HWLOC_OBJ_CORE, set);
    p.numa = containing(topo, HWLOC_OBJ_NUMANODE, set);
    p.package = containing(topo, HWLOC_OBJ_PACKAGE, set);
  }
  hwloc_bitmap_zero(set);
  // Bound: a binding narrower than every PU the process may use.
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0 && !hwloc_bitmap_iszero(set)) {
    const std::vector<int> mine = pus_in(set, {});
    if (mine != usable || usable.size() == 1) {
      p.bound_pus = static_cast<int>(mine.size());
      char* text = nullptr;
      if (hwloc_bitmap_list_asprintf(&text, set) >= 0 && text) {
        const std::size_t n = std::strlen(text);
        std::memcpy(p.bound_to, text, std::min(n, sizeof p.bound_to - 1));
        if (n >= sizeof p.bound_to) std::memcpy(p.bound_to + sizeof p.bound_to - 4, "...", 4);
        std::free(text);
      }
    }
  }
  hwloc_bitmap_free(set);
  return p;
}

TopologySummary summarize_topology(const Topology& topology) {
  TopologySummary s;
  hwloc_topology_t topo = topo_of(topology);
  if (!topo) return s;
  s.loaded = true;
  auto count = [&](hwloc_obj_type_t t) { return std::max(0, hwloc_get_nbobjs_by_type(topo, t)); };
  s.packages = count(HWLOC_OBJ_PACKAGE);
  s.numa_nodes = count(HWLOC_OBJ_NUMANODE);
  s.cores = count(HWLOC_OBJ_CORE);
  s.pus = count(HWLOC_OBJ_PU);
  const hwloc_obj_type_t caches[] = {HWLOC_OBJ_L1CACHE,  HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
                                      HWLOC_OBJ_L3CACHE,  HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
  for (hwloc_obj_type_t type : caches) {
    const int n = count(type);
    hwloc_obj_t o = n > 0 ? hwloc_get_obj_by_type(topo, type, 0) : nullptr;
    if (!o || !o->attr) continue;
    CacheLevel c;
    c.level = static_cast<int>(o->attr->cache.depth);
    c.type = o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction"
             : o->attr->cache.type == HWLOC_OBJ_CACHE_DATA      ? "data"
                                                                 : "unified";
    c.size = o->attr->cache.size;
    c.count = n;
    s.caches.push_back(c);
  }
  return s;
}

Placement prepare_placement() {
  Placement p;
#if UTS_SMPI
  // uts-smpi: a simulated rank has one core of its own simulated host; the
  // real machine's topology (read once per simulated rank, milliseconds
  // each) says nothing about it.
  p.usable.push_back(0);
  return p;
#endif
  p.topology = std::make_unique<Topology>();
  if (!p.topology->loaded()) {
    std::fprintf(stderr, "uts: warning: cannot read the hardware topology (%s): threads not placed, their PUs not recorded\n",
                 p.topology->error().c_str());
    // The PUs the process may use, from the kernel, for the record's counts.
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0)
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &mask)) p.usable.push_back(cpu);
    return p;
  }
  p.usable = usable_pus(*p.topology);
  return p;
}

void Placement::apply(const BindSettings& bind, int threads, int first_slot) {
  if (!topology || !topology->loaded()) return;
  plan = plan_placement(*topology, bind.policy, bind.smt, threads, usable, first_slot);
  if (plan.empty()) return;
  std::vector<char> ok(static_cast<std::size_t>(threads), 1);
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    if (id < plan.size()) ok[id] = bind_calling_thread(*topology, plan[id]) ? 1 : 0;
  }
  for (std::size_t t = 0; t < ok.size(); ++t)
    if (!ok[t]) {
      std::fprintf(stderr, "uts: warning: --bind %s: thread %zu could not be bound (the record shows where it ran)\n",
                   to_string(bind.policy), t);
      break;
    }
}

Placement place_team(const BindSettings& bind, int threads) {
  Placement p = prepare_placement();
  p.apply(bind, threads);
  return p;
}

void Placement::bind_again(int thread) const {
  if (topology && static_cast<std::size_t>(thread) < plan.size())
    bind_calling_thread(*topology, plan[static_cast<std::size_t>(thread)]);
}

ThreadPlace Placement::sample() const {
  return topology ? place_of_calling_thread(*topology, usable) : ThreadPlace{};
}

RankPlace Placement::rank_place() const {
  RankPlace r;
  char host[256] = {};
#if UTS_SMPI
  std::strncpy(host, sg_host_self_get_name(), sizeof host - 1);  // the simulated host
  if (true) {
#else
  if (gethostname(host, sizeof host - 1) == 0) {
#endif
    const std::size_t n = std::min(std::strlen(host), sizeof r.host - 1);
    std::memcpy(r.host, host, n);  // a longer name is cut (r.host stays terminated)
  }
  r.usable_pus = static_cast<int>(usable.size());
  for (int pu : usable) {
    if (pu >= 0 && pu < RankPlace::kMaskPus)
      r.usable_mask[pu / 64] |= std::uint64_t{1} << (pu % 64);
    else
      r.mask_complete = false;
  }
  return r;
}

TopologySummary Placement::summary() const { return topology ? summarize_topology(*topology) : TopologySummary{}; }

}  // namespace uts
