// Steal, victim, init and rank policies parsed from and printed as the
// command line spells them (policy.hpp).
#include "run/policy.hpp"

#include <cctype>

namespace uts {

std::optional<StealPolicy> parse_steal(const std::string& text) {
  if (text == "half") return StealPolicy{StealAmount::half, 0};
  if (text == "one") return StealPolicy{StealAmount::one, 0};
  const std::string prefix = "chunk:";
  if (text.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string digits = text.substr(prefix.size());
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  const auto k = static_cast<std::uint32_t>(std::stoul(digits));
  if (k < 1) return std::nullopt;
  return StealPolicy{StealAmount::chunk, k};
}

std::optional<VictimOrder> parse_victim(const std::string& text) {
  if (text == "random") return VictimOrder::random;
  if (text == "linear") return VictimOrder::linear;
  if (text == "tree") return VictimOrder::tree;
  if (text == "hier") return VictimOrder::hier;
  return std::nullopt;
}

std::optional<InitSpread> parse_init(const std::string& text) {
  if (text == "root") return InitSpread::root;
  if (text == "balanced") return InitSpread::balanced;
  return std::nullopt;
}

std::string to_string(const StealPolicy& p) {
  switch (p.amount) {
    case StealAmount::half: return "half";
    case StealAmount::one: return "one";
    case StealAmount::chunk: return "chunk:" + std::to_string(p.chunk);
  }
  return "?";
}

const char* to_string(StealAmount a) {
  switch (a) {
    case StealAmount::half: return "half";
    case StealAmount::one: return "one";
    case StealAmount::chunk: return "chunk:K";
  }
  return "?";
}

const char* to_string(VictimOrder v) {
  switch (v) {
    case VictimOrder::random: return "random";
    case VictimOrder::linear: return "linear";
    case VictimOrder::tree: return "tree";
    case VictimOrder::hier: return "hier";
  }
  return "?";
}

const char* to_string(InitSpread i) { return i == InitSpread::root ? "root" : "balanced"; }
const char* to_string(RankSteal s) { return s == RankSteal::random ? "random" : "lifeline"; }
const char* to_string(RankTermination t) { return t == RankTermination::ring ? "ring" : "tree"; }
const char* to_string(RankSplit s) { return s == RankSplit::shallowest ? "shallowest" : "levels"; }

std::optional<RankSteal> parse_rank_steal(const std::string& text) {
  if (text == "random") return RankSteal::random;
  if (text == "lifeline") return RankSteal::lifeline;
  return std::nullopt;
}
std::optional<RankTermination> parse_rank_termination(const std::string& text) {
  if (text == "ring") return RankTermination::ring;
  if (text == "tree") return RankTermination::tree;
  return std::nullopt;
}
std::optional<RankSplit> parse_rank_split(const std::string& text) {
  if (text == "shallowest") return RankSplit::shallowest;
  if (text == "levels") return RankSplit::levels;
  return std::nullopt;
}

}  // namespace uts
