// Raw single-block SHA-1 rate of Crypto++ (SHA1::Transform through the same
// one-block path the traversal uses), the floor a node's cost is measured
// against. Prints two rates:
//   independent  blocks whose inputs do not depend on each other (siblings in
//                a tree: the CPU may overlap them), the traversal's pattern
//   chained      each block's input is the previous digest (pure latency)
// usage: uts-sha1-rate [BLOCKS]   (default 50 million)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sha1/sha1.hpp"

namespace {

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t blocks = 50'000'000;
  if (argc > 1) {
    char* end = nullptr;
    blocks = std::strtoull(argv[1], &end, 10);
    if (!end || *end || blocks == 0) {
      std::fprintf(stderr, "uts-sha1-rate: BLOCKS must be a positive integer\n");
      return 2;
    }
  }
  // Independent: children 0..7 of a parent, then the last child becomes the
  // next parent, like a depth-first walk that expands every eighth node.
  auto start = std::chrono::steady_clock::now();
  uts::sha1::Words parent{1, 2, 3, 4, 5};
  std::uint32_t fold = 0;
  for (std::uint64_t i = 0; i < blocks; ++i) {
    const uts::sha1::Words child = uts::sha1::child_id(parent, static_cast<std::uint32_t>(i & 7));
    fold ^= child[4];
    if ((i & 7) == 7) parent = child;
  }
  const double independent = seconds(start);

  start = std::chrono::steady_clock::now();
  fold ^= uts::sha1::compress_blocks(blocks);
  const double chained = seconds(start);

  std::printf("independent_blocks_per_sec %.0f\nchained_blocks_per_sec %.0f\nblocks %llu\nfold %08x\n",
              double(blocks) / independent, double(blocks) / chained, static_cast<unsigned long long>(blocks),
              fold);
  return 0;
}
