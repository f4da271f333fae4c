// Children's ids in batches: the hashes of one node's children are
// independent, so they can overlap in the CPU instead of waiting for each
// other. Two paths compute the same ids:
//   shani     x86 SHA extensions, the 64-byte block built in registers from
//             the parent's state words, several children interleaved
//   cryptopp  Crypto++'s one-block SHA1::Transform per child (portable; the
//             test oracle)
// Path::automatic picks shani when the CPU has it (cpuid), cryptopp otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sha1/words.hpp"

namespace uts::sha1 {

enum class Path { automatic, shani, cryptopp };

// True when this CPU (and this build) can run the SHA-NI path.
bool cpu_has_shani();
// The path `requested` resolves to on this CPU; nullopt when it cannot run
// here (shani asked for on a CPU without it).
std::optional<Path> resolve(Path requested);
std::optional<Path> parse_path(const std::string& text);
const char* to_string(Path p);

// ids of children first .. first+count-1 of `parent` into out[0 .. count-1].
void child_ids_cryptopp(const Words& parent, std::uint32_t first, std::uint32_t count, Words* out);
void child_ids_shani(const Words& parent, std::uint32_t first, std::uint32_t count, Words* out);

// The SHA-NI kernel with a fixed number of interleaved lanes (1..kMaxLanes),
// for tests and the lane-count benchmark: hashes `lanes` children starting at
// index `first` in one call.
inline constexpr int kMaxLanes = 6;
void child_ids_shani_lanes(int lanes, const Words& parent, std::uint32_t first, Words* out);

inline void child_ids(Path path, const Words& parent, std::uint32_t first, std::uint32_t count, Words* out) {
  if (path == Path::shani) child_ids_shani(parent, first, count, out);
  else child_ids_cryptopp(parent, first, count, out);
}

// One child to hash: child `index` of the node whose id is `parent`. Jobs let
// the children of several nodes share one interleaved call.
struct ChildJob {
  Words parent;
  std::uint32_t index;
};
void child_ids_cryptopp(const ChildJob* jobs, int count, Words* out);
// count = 1 .. kMaxLanes.
void child_ids_shani(const ChildJob* jobs, int count, Words* out);
inline void child_ids(Path path, const ChildJob* jobs, int count, Words* out) {
  if (path == Path::shani) child_ids_shani(jobs, count, out);
  else child_ids_cryptopp(jobs, count, out);
}

}  // namespace uts::sha1
