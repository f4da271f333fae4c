// Steal policy switches (docs/engine.md, section 2): how much a thief claims,
// how it picks victims, and how the root's children are first spread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace uts {

enum class StealAmount { half, one, chunk };
enum class VictimOrder { random, linear, tree, hier };
enum class InitSpread { root, balanced };
// Across MPI ranks (distrib/README.md): how a dry rank finds work, and how the
// ranks learn that the job is over.
enum class RankSteal { random, lifeline };
enum class RankTermination { ring, tree };
// What an answer or a push carries (distrib/README.md, "What a steal
// carries"): the shallowest half of thread 0's nodes, or every other node
// from the shallow end, which is half of every level.
enum class RankSplit { shallowest, levels };

struct StealPolicy {
  StealAmount amount = StealAmount::half;
  std::uint32_t chunk = 0;  // K for chunk:K

  // How many of `shared` nodes one claim takes; 0 means none may be taken.
  std::uint32_t claim_size(std::uint32_t shared) const {
    switch (amount) {
      case StealAmount::half: return shared - shared / 2;  // ceil(n/2), Manber's halving
      case StealAmount::one: return shared ? 1 : 0;
      case StealAmount::chunk: return shared >= chunk ? chunk : 0;
    }
    return 0;
  }
  bool operator==(const StealPolicy& o) const {
    return amount == o.amount && (amount != StealAmount::chunk || chunk == o.chunk);
  }
};

std::optional<StealPolicy> parse_steal(const std::string& text);
std::optional<VictimOrder> parse_victim(const std::string& text);
std::optional<InitSpread> parse_init(const std::string& text);
std::optional<RankSteal> parse_rank_steal(const std::string& text);
std::optional<RankTermination> parse_rank_termination(const std::string& text);
std::optional<RankSplit> parse_rank_split(const std::string& text);
std::string to_string(const StealPolicy& p);
const char* to_string(StealAmount a);
const char* to_string(VictimOrder v);
const char* to_string(InitSpread i);
const char* to_string(RankSteal s);
const char* to_string(RankTermination t);
const char* to_string(RankSplit s);

}  // namespace uts
