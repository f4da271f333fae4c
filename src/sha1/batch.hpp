// Children's ids in batches: the hashes of one node's children are
// independent, so they can overlap in the CPU instead of waiting for each
// other. Three paths compute the same ids, one file each:
//   avx512    sixteen children at once, one per 32-bit lane of the zmm
//             registers (sha1/avx512.cpp; the rounds in avx512_kernel.hpp)
//   shani     x86 SHA extensions, the 64-byte block built in registers from
//             the parent's state words, up to six children interleaved
//             (sha1/shani.cpp)
//   cryptopp  Crypto++'s one-block SHA1::Transform per child (portable;
//             the test oracle; sha1/cryptopp.cpp)
// Which of them this CPU runs: sha1/cpu_features.cpp. Path::automatic picks
// the fastest (resolve() below, sha1/dispatch.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "sha1/words.hpp"

namespace uts::sha1 {

enum class Path { automatic, avx512, shani, cryptopp };

// True when this CPU (and this build) can run the SHA-NI path.
// UTS_SHA1_NO_SHANI=1 in the environment says no, to test the fallback.
bool cpu_has_shani();
// True when this CPU, its OS (zmm state enabled in XCR0) and this build can
// run the AVX-512 path (AVX-512F and VL). UTS_SHA1_NO_AVX512=1 says no.
bool cpu_has_avx512();
// The path `requested` resolves to on this CPU; nullopt when it cannot run
// here (shani or avx512 asked for on a CPU without it). automatic: the
// fastest path here, decided once per process by calibrate() when both fast
// paths exist, else the one fast path there is, else cryptopp.
std::optional<Path> resolve(Path requested);

// How automatic chose, for -v and the records: each fast kernel's rate in
// blocks per second (0: not available or not measured) and the choice.
struct Calibration {
  double avx512_rate = 0;
  double shani_rate = 0;
  Path chosen = Path::cryptopp;
};
// Runs once per process; later calls return the first answer. A short round
// of both kernels chooses avx512 when it is at least 1.5x SHA-NI; otherwise
// three longer interleaved rounds, the best round of each, choose avx512
// unless SHA-NI's best round beats it by more than a tenth. Every start pays for it
// (results/benchmarks/2026-11-27-sha1-auto-calibration.md).
const Calibration& calibrate();
std::optional<Path> parse_path(const std::string& text);
const char* to_string(Path p);

// The widest batch a path hashes in one call (the AVX-512 kernel's lanes).
inline constexpr int kMaxLanes = 16;
// The SHA-NI kernel's widest interleaving: by six lanes uts-sha1-rate's
// shani_lanes_L rates have stopped growing (results/benchmarks/README.md,
// the SHA-1 rates).
inline constexpr int kShaniLanes = 6;

// Children a traversal queues before hashing them, per path: a full batch
// for the kernel (avx512 costs the same for 1 or 16 lanes, so it waits for
// 16; shani and cryptopp for 6, as before the AVX-512 path existed).
constexpr int batch_lanes(Path path) { return path == Path::avx512 ? kMaxLanes : kShaniLanes; }

// The AVX-512 kernel's column batch (uts-sha1-rate, the calibration,
// child_ids() of one parent; traversals give it a SlotBatch instead):
// children to hash, from any parents, one column per lane: word[0..4][l] is
// the parent's id of lane l, word[5][l] the child's index. Column-wise, so
// the kernel loads each word of sixteen messages in one instruction.
// Columns kMaxLanes .. 2*kMaxLanes-1 are scratch: fill() writes kFill
// columns from any lane below kMaxLanes with fixed-length (vectorised) loops,
// and the kernel reads no column past kMaxLanes-1.
struct Batch {
  alignas(64) std::uint32_t word[6][2 * kMaxLanes] = {};
  void set(int lane, const Words& parent, std::uint32_t index) {
    for (int k = 0; k < 5; ++k) word[k][lane] = parent[k];
    word[5][lane] = index;
  }
  // Lanes lane .. lane+kFill-1: children first, first+1, ... of `parent`.
  // Eight per call, not sixteen: fewer stores for a node with few children
  // (eight measured faster).
  static constexpr int kFill = 8;
  void fill(int lane, const Words& parent, std::uint32_t first) {
    for (int k = 0; k < 5; ++k)
      for (int l = 0; l < kFill; ++l) word[k][lane + l] = parent[k];
    for (int l = 0; l < kFill; ++l) word[5][lane + l] = first + static_cast<std::uint32_t>(l);
  }
  Words parent(int lane) const {
    return {word[0][lane], word[1][lane], word[2][lane], word[3][lane], word[4][lane]};
  }
  std::uint32_t index(int lane) const { return word[5][lane]; }
};
// The lane path's input (shani, cryptopp): one row per parent, written at
// the lane its first queued child takes, and which row each lane reads:
//   lane l hashes parent row[slot[l]] (its words 0-4) with child index
//   row[slot[l]][5] + l (mod 2^32).
// Words 6 and 7 of a row are the message's next words (the 0x80 terminator
// and a zero), so a lane's message groups are two 16-byte loads of its row
// (SHA-NI: and a shuffle each), where a column-wise Batch took a 4x4
// transpose per four lanes and six stores per child
// (results/benchmarks/2026-11-28-shani-rows.md).
struct RowBatch {
  alignas(32) std::uint32_t row[kMaxLanes][8] = {};
  alignas(16) std::uint8_t slot[2 * kMaxLanes] = {};
  // Lanes lane .. lane+kFill-1: children first, first+1, ... of `parent`
  // (a later put() overwrites the slots past its own first lane).
  static constexpr int kFill = 8;
  void put(int lane, const Words& parent, std::uint32_t first) {
    std::uint32_t* r = row[lane];
    for (int k = 0; k < 5; ++k) r[k] = parent[k];
    r[5] = first - static_cast<std::uint32_t>(lane);
    r[6] = 0x80000000u;
    r[7] = 0;
    const std::uint64_t bytes = static_cast<std::uint64_t>(lane) * 0x0101010101010101u;
    std::memcpy(slot + lane, &bytes, 8);
  }
  Words parent(int lane) const {
    const std::uint32_t* r = row[slot[lane]];
    return {r[0], r[1], r[2], r[3], r[4]};
  }
  std::uint32_t index(int lane) const { return row[slot[lane]][5] + static_cast<std::uint32_t>(lane); }
};
// The AVX-512 path's input: up to sixteen parents, one slot each, and which
// slot each lane's child comes from. A traversal writes a few words per
// parent (its id, where its children start) instead of six per child; the
// kernel spreads them over the lanes with one permute per word:
//   lane l hashes parent slot[l] (word[0..4][slot[l]]) with child index
//   l + first[slot[l]] (mod 2^32).
// Lanes past the batch's count may hold any slot below kMaxLanes (the
// kernel computes them and nobody reads them); slot[kMaxLanes..] is scratch,
// so sixteen lanes can be written from any lane below kMaxLanes.
struct SlotBatch {
  alignas(64) std::uint32_t word[5][kMaxLanes] = {};
  alignas(64) std::uint32_t first[kMaxLanes] = {};
  alignas(16) std::uint8_t slot[2 * kMaxLanes] = {};
  // Parent `s` is `parent`; its children from `index` on go in lanes `lane`
  // on (the slot map is written for sixteen lanes; later slots overwrite).
  void put(int s, const Words& parent, int lane, std::uint32_t index) {
    for (int k = 0; k < 5; ++k) word[k][s] = parent[k];
    first[s] = index - static_cast<std::uint32_t>(lane);
    const std::uint64_t bytes = static_cast<std::uint64_t>(s) * 0x0101010101010101u;
    std::memcpy(slot + lane, &bytes, 8);
    std::memcpy(slot + lane + 8, &bytes, 8);
  }
  Words parent(int lane) const {
    const int s = slot[lane];
    return {word[0][s], word[1][s], word[2][s], word[3][s], word[4][s]};
  }
  std::uint32_t index(int lane) const { return static_cast<std::uint32_t>(lane) + first[slot[lane]]; }
};

// The ids hashed from a Batch, lane by lane in the same columns.
// Columns kMaxLanes.. hold the second batch of an AVX-512 pair
// (child_ids_avx512(first, second, out)); elsewhere they are scratch, as in
// Batch.
struct Ids {
  alignas(64) std::uint32_t word[5][2 * kMaxLanes];
  Words get(int lane) const { return {word[0][lane], word[1][lane], word[2][lane], word[3][lane], word[4][lane]}; }
  void put(int lane, const Words& id) {
    for (int k = 0; k < 5; ++k) word[k][lane] = id[k];
  }
};

// The ids hashed from a RowBatch, one row per lane: row[l][0..4] is lane
// l's id (a traversal copies a child's id with one 16-byte load and one
// 4-byte load, where Ids takes five loads a column apart).
struct RowIds {
  alignas(32) std::uint32_t row[kMaxLanes][8];
  Words get(int lane) const { return {row[lane][0], row[lane][1], row[lane][2], row[lane][3], row[lane][4]}; }
  void put(int lane, const Words& id) {
    for (int k = 0; k < 5; ++k) row[lane][k] = id[k];
  }
};

// Lanes 0 .. count-1 of `in` hashed into the same lanes of `out`
// (1 <= count <= kMaxLanes). The avx512 kernel always computes all sixteen
// lanes (same cost) and needs only that the unused ones hold any values.
void child_ids_cryptopp(const Batch& in, int count, Ids& out);  // sha1/cryptopp.cpp
void child_ids_cryptopp(const RowBatch& in, int count, RowIds& out);
void child_ids_shani(const RowBatch& in, int count, RowIds& out);  // sha1/shani.cpp; only where cpu_has_shani()
void child_ids_avx512(const Batch& in, Ids& out);  // sha1/avx512.cpp; only where cpu_has_avx512()
// All sixteen lanes of a SlotBatch (sha1/avx512.cpp; only where cpu_has_avx512()).
void child_ids_avx512(const SlotBatch& in, Ids& out);
// Two slot batches in one call, their rounds interleaved: `first` in columns
// 0-15 of out, `second` in 16-31.
void child_ids_avx512(const SlotBatch& first, const SlotBatch& second, Ids& out);
// The lane path's batch: shani or cryptopp (not avx512).
inline void child_ids(Path path, const RowBatch& in, int count, RowIds& out) {
  if (path == Path::shani) child_ids_shani(in, count, out);
  else child_ids_cryptopp(in, count, out);
}

// ids of children first .. first+count-1 of `parent` into out[0 .. count-1],
// in batches of the path's width.
void child_ids(Path path, const Words& parent, std::uint32_t first, std::uint32_t count, Words* out);

// The SHA-NI kernel with a fixed number of interleaved lanes (1..kShaniLanes),
// for tests and the lane-count benchmark: hashes `lanes` children starting at
// index `first` in one call (sha1/shani.cpp).
void child_ids_shani_lanes(int lanes, const Words& parent, std::uint32_t first, Words* out);

}  // namespace uts::sha1
