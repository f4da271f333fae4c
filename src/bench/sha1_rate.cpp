// Raw one-block SHA-1 rates, the figures a node's cost is measured against.
// Prints, one per line:
//   chained_blocks_per_sec      Crypto++ Transform, each block's input is the
//                               previous digest (pure latency)
//   independent_blocks_per_sec  Crypto++ Transform, children 0..7 of a parent
//                               (inputs do not depend on each other)
//   shani_lanes_L_blocks_per_sec  the SHA-NI kernel hashing L children of one
//                               parent side by side, L = 1..6 (absent without
//                               SHA-NI)
//   avx512_lanes_16_blocks_per_sec  the AVX-512 kernel, 16 children of one
//                               parent per call, the next parent from this
//                               call's ids (absent without AVX-512)
//   avx512_independent_blocks_per_sec  the same kernel on batches that do not
//                               depend on each other: its throughput
//   avx512_pair_blocks_per_sec  the kernel on two slot batches per call, their
//                               rounds interleaved, calls independent: the
//                               kernel the traversal runs, and the figure it
//                               is measured against
//   auto_path                   what --sha1 auto chooses here
// usage: uts-sha1-rate [BLOCKS]   (default 50 million; 1 to 10^12)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/clock.hpp"
#include "sha1/batch.hpp"
#include "sha1/sha1.hpp"

using uts::Clock;
using uts::seconds_since;

int main(int argc, char** argv) {
  std::uint64_t blocks = 50'000'000;
  if (argc > 2) {
    std::fprintf(stderr, "uts-sha1-rate: one argument at most (BLOCKS)\n");
    return 2;
  }
  if (argc > 1) {
    // Digits only: strtoull alone would take "-3" as 2^64 - 3 (and run for ever).
    constexpr std::uint64_t kMaxBlocks = 1'000'000'000'000ull;
    const std::string text = argv[1];
    bool ok = !text.empty();
    blocks = 0;
    for (char c : text) {
      if (c < '0' || c > '9' || blocks > kMaxBlocks) {
        ok = false;
        break;
      }
      blocks = blocks * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (!ok || blocks == 0 || blocks > kMaxBlocks) {
      std::fprintf(stderr, "uts-sha1-rate: BLOCKS must be an integer from 1 to 10^12, not '%s'\n", argv[1]);
      return 2;
    }
  }
  std::uint32_t fold = 0;
  auto start = Clock::now();
  fold ^= uts::sha1::compress_blocks(blocks);
  const double chained = seconds_since(start);

  // Independent: children 0..7 of a parent, then the last child becomes the
  // next parent, like a depth-first walk that expands every eighth node.
  start = Clock::now();
  uts::sha1::Words parent{1, 2, 3, 4, 5};
  for (std::uint64_t i = 0; i < blocks; ++i) {
    const uts::sha1::Words child = uts::sha1::child_id(parent, static_cast<std::uint32_t>(i & 7));
    fold ^= child[4];
    if ((i & 7) == 7) parent = child;
  }
  const double independent = seconds_since(start);

  std::printf("chained_blocks_per_sec %.0f\nindependent_blocks_per_sec %.0f\n", double(blocks) / chained,
              double(blocks) / independent);
  if (uts::sha1::cpu_has_shani()) {
    for (int lanes = 1; lanes <= uts::sha1::kShaniLanes; ++lanes) {
      // L children of one parent per call; the last one is the next parent.
      const std::uint64_t calls = blocks / static_cast<std::uint64_t>(lanes);
      uts::sha1::Words p{1, 2, 3, 4, 5}, out[uts::sha1::kShaniLanes];
      start = Clock::now();
      for (std::uint64_t c = 0; c < calls; ++c) {
        uts::sha1::child_ids_shani_lanes(lanes, p, static_cast<std::uint32_t>(c), out);
        p = out[lanes - 1];
      }
      fold ^= p[4];
      std::printf("shani_lanes_%d_blocks_per_sec %.0f\n", lanes, double(calls * static_cast<std::uint64_t>(lanes)) / seconds_since(start));
    }
  }
  if (uts::sha1::cpu_has_avx512()) {
    // 16 children of one parent per call; the last one is the next parent
    // (each call waits for the one before, like the shani lines above).
    constexpr int kLanes = uts::sha1::kMaxLanes;
    const std::uint64_t calls = blocks / kLanes;
    uts::sha1::Batch batch;
    uts::sha1::Ids ids;
    uts::sha1::Words p{1, 2, 3, 4, 5};
    start = Clock::now();
    for (std::uint64_t c = 0; c < calls; ++c) {
      batch.fill(0, p, static_cast<std::uint32_t>(c));
      batch.fill(8, p, static_cast<std::uint32_t>(c) + 8);
      uts::sha1::child_ids_avx512(batch, ids);
      p = ids.get(kLanes - 1);
    }
    fold ^= p[4];
    std::printf("avx512_lanes_16_blocks_per_sec %.0f\n", double(calls * kLanes) / seconds_since(start));
    // Calls that do not wait for each other: the kernel's throughput.
    start = Clock::now();
    for (std::uint64_t c = 0; c < calls; ++c) {
      batch.word[5][c & 15] = static_cast<std::uint32_t>(c);
      uts::sha1::child_ids_avx512(batch, ids);
      fold ^= ids.word[4][0];
    }
    std::printf("avx512_independent_blocks_per_sec %.0f\n", double(calls * kLanes) / seconds_since(start));
    // Pairs of slot batches (four parents of four children each), as the
    // traversal hashes them.
    uts::sha1::SlotBatch pair[2];
    for (int q = 0; q < 2; ++q)
      for (int s = 0; s < 4; ++s) pair[q].put(s, uts::sha1::Words{1, 2, 3, 4, static_cast<std::uint32_t>(4 * q + s)}, 4 * s, 0);
    start = Clock::now();
    for (std::uint64_t c = 0; c < calls / 2; ++c) {
      pair[c & 1].first[c & 3] = static_cast<std::uint32_t>(c);
      uts::sha1::child_ids_avx512(pair[0], pair[1], ids);
      fold ^= ids.word[4][0];
    }
    std::printf("avx512_pair_blocks_per_sec %.0f\n", double(calls / 2 * 2 * kLanes) / seconds_since(start));
  }
  std::printf("auto_path %s\n", uts::sha1::to_string(*uts::sha1::resolve(uts::sha1::Path::automatic)));
  std::printf("blocks %llu\nfold %08x\n", static_cast<unsigned long long>(blocks), fold);
  return 0;
}
