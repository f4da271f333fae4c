// --bind parsed and printed, the topology in one line, and the placement
// summary: PUs available and used, oversubscribed or not (placement.hpp).
#include "run/placement.hpp"

#include <map>
#include <set>
#include <utility>

namespace uts {

std::optional<BindPolicy> parse_bind(const std::string& text) {
  if (text == "none") return BindPolicy::none;
  if (text == "compact") return BindPolicy::compact;
  if (text == "scatter") return BindPolicy::scatter;
  if (text == "numa") return BindPolicy::numa;
  return std::nullopt;
}

const char* to_string(BindPolicy b) {
  switch (b) {
    case BindPolicy::none: return "none";
    case BindPolicy::omp: return "omp";
    case BindPolicy::compact: return "compact";
    case BindPolicy::scatter: return "scatter";
    case BindPolicy::numa: return "numa";
  }
  return "none";
}

std::string TopologySummary::text() const {
  if (!loaded) return "unknown";
  auto n = [](int v, const char* one, const char* many) {
    return std::to_string(v) + " " + (v == 1 ? one : many);
  };
  return n(packages, "package", "packages") + ", " + n(numa_nodes, "NUMA node", "NUMA nodes") + ", " +
         n(cores, "core", "cores") + ", " + n(pus, "PU", "PUs");
}

// Per host: PUs available = the union of its ranks' usable sets (ranks of
// one host share the machine; those bound to different PUs add up), or the
// largest set when a PU number is past the bit set. Per rank: a thread bound to one PU uses that
// PU; an unbound thread or one bound to several PUs counts as one PU of the
// rank's usable set, at most the set's size. Oversubscribed: more threads
// on a host than its PUs, or two threads of a host bound to the same PU.
PlacementSummary summarize_placement(const std::vector<ThreadPlace>& threads, const std::vector<RankPlace>& ranks,
                                     int threads_per_rank) {
  PlacementSummary s;
  std::map<std::string, int> available;                    // host -> PUs (largest set)
  std::map<std::string, std::vector<std::uint64_t>> mask;  // host -> union of the sets
  std::map<std::string, bool> complete;
  std::map<std::string, std::pair<int, int>> loose;        // host -> (threads not on one PU, cap)
  std::map<std::string, std::map<int, int>> on_pu;         // host -> PU -> threads bound to it alone
  std::map<std::string, int> host_threads;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::string host = ranks[r].host;
    int& a = available[host];
    if (ranks[r].usable_pus > a) a = ranks[r].usable_pus;
    auto& m = mask[host];
    m.resize(RankPlace::kMaskPus / 64);
    for (std::size_t w = 0; w < m.size(); ++w) m[w] |= ranks[r].usable_mask[w];
    if (!complete.count(host)) complete[host] = true;
    complete[host] = complete[host] && ranks[r].mask_complete;
    for (int t = 0; t < threads_per_rank; ++t) {
      const std::size_t i = r * static_cast<std::size_t>(threads_per_rank) + static_cast<std::size_t>(t);
      if (i >= threads.size()) break;
      ++host_threads[host];
      if (threads[i].bound_pus == 1 && threads[i].pu >= 0)
        ++on_pu[host][threads[i].pu];
      else
        ++loose[host].first;
    }
  }
  for (auto& [host, pus] : available) {
    if (complete[host]) {
      int bits = 0;
      for (std::uint64_t w : mask[host]) bits += __builtin_popcountll(w);
      if (bits > 0) pus = bits;
    }
    s.pus_available += pus;
    std::set<int> used;
    for (const auto& [pu, n] : on_pu[host]) {
      used.insert(pu);
      if (n > 1) s.oversubscribed = true;
    }
    const int free_pus = pus - static_cast<int>(used.size());
    const int extra = loose[host].first;
    s.pus_used += static_cast<int>(used.size()) + std::min(extra, free_pus > 0 ? free_pus : 0);
    if (host_threads[host] > pus) s.oversubscribed = true;
  }
  return s;
}

}  // namespace uts
