// Choosing and calling a kernel: --sha1's names, resolve() (which paths
// this CPU runs, and automatic's start-up calibration between AVX-512 and
// SHA-NI), and child_ids() of one parent on any path.
#include "sha1/batch.hpp"

#include <algorithm>
#include <chrono>

#include "sha1/sha1.hpp"

namespace uts::sha1 {

void child_ids(Path path, const Words& parent, std::uint32_t first, std::uint32_t count, Words* out) {
  if (path == Path::cryptopp) {
    for (std::uint32_t i = 0; i < count; ++i) out[i] = child_id(parent, first + i);
    return;
  }
  const std::uint32_t width = kMaxLanes;
  while (count > 0) {
    const std::uint32_t n = count < width ? count : width;
    if (path == Path::avx512) {
      Batch batch;
      Ids ids;
      for (std::uint32_t i = 0; i < n; ++i) batch.set(static_cast<int>(i), parent, first + i);
      child_ids_avx512(batch, ids);
      for (std::uint32_t i = 0; i < n; ++i) out[i] = ids.get(static_cast<int>(i));
    } else {
      RowBatch batch;  // two rows of RowBatch::kFill lanes cover the sixteen
      RowIds ids;
      static_assert(2 * RowBatch::kFill == kMaxLanes);
      batch.put(0, parent, first);
      batch.put(RowBatch::kFill, parent, first + RowBatch::kFill);
      child_ids_shani(batch, static_cast<int>(n), ids);
      for (std::uint32_t i = 0; i < n; ++i) out[i] = ids.get(static_cast<int>(i));
    }
    first += n;
    out += n;
    count -= n;
  }
}

namespace {

// Blocks per second of one kernel over `blocks` children, parents chained
// from batch to batch as in a traversal; SHA-NI's through the row batch the
// traversals give it.
double kernel_rate(Path path, int lanes, std::uint64_t blocks) {
  const std::uint64_t calls = blocks / static_cast<std::uint64_t>(lanes);
  std::chrono::steady_clock::time_point start;
  if (path == Path::shani) {
    RowBatch batch;
    RowIds ids;
    for (int l = 0; l < kMaxLanes; ++l) batch.put(l, {1, 2, 3, 4, static_cast<std::uint32_t>(l)}, static_cast<std::uint32_t>(l));
    start = std::chrono::steady_clock::now();
    for (std::uint64_t c = 0; c < calls; ++c) {
      child_ids_shani(batch, lanes, ids);
      batch.row[c % static_cast<std::uint64_t>(lanes)][4] = ids.row[0][4];
    }
  } else {
    Batch batch;
    Ids ids;
    for (int l = 0; l < kMaxLanes; ++l) batch.set(l, {1, 2, 3, 4, static_cast<std::uint32_t>(l)}, static_cast<std::uint32_t>(l));
    start = std::chrono::steady_clock::now();
    for (std::uint64_t c = 0; c < calls; ++c) {
      child_ids_avx512(batch, ids);
      batch.word[4][c % static_cast<std::uint64_t>(lanes)] = ids.word[4][0];
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s > 0 ? double(calls * static_cast<std::uint64_t>(lanes)) / s : 0;
}

Calibration measure() {
  Calibration c;
  const bool avx = cpu_has_avx512(), sha = cpu_has_shani();
  if (!avx || !sha) {
    c.chosen = avx ? Path::avx512 : sha ? Path::shani : Path::cryptopp;
    return c;
  }
  // Every start of uts pays for this, so a short first round settles the
  // clear case, AVX-512 at least 1.5x SHA-NI (the ratio on the CPUs measured
  // is well above it). A cold start can only make AVX-512 look slower (its
  // upper lanes power up on first use), so this shortcut never picks it
  // wrongly. Anything closer gets three interleaved rounds of three times
  // the blocks, the best of each, so a moment's noise cannot decide. What
  // each round costs, and the ratios measured:
  // results/benchmarks/2026-11-27-sha1-auto-calibration.md.
  constexpr std::uint64_t kShort = 16'000, kBlocks = 48'000;
  c.avx512_rate = kernel_rate(Path::avx512, kMaxLanes, kShort);
  c.shani_rate = kernel_rate(Path::shani, kShaniLanes, kShort);
  if (c.avx512_rate >= 1.5 * c.shani_rate) {
    c.chosen = Path::avx512;
    return c;
  }
  for (int round = 0; round < 3; ++round) {
    c.avx512_rate = std::max(c.avx512_rate, kernel_rate(Path::avx512, kMaxLanes, kBlocks));
    c.shani_rate = std::max(c.shani_rate, kernel_rate(Path::shani, kShaniLanes, kBlocks));
  }
  c.chosen = c.shani_rate > 1.1 * c.avx512_rate ? Path::shani : Path::avx512;
  return c;
}

}  // namespace

const Calibration& calibrate() {
  static const Calibration c = measure();
  return c;
}

std::optional<Path> resolve(Path requested) {
  switch (requested) {
    case Path::automatic: return calibrate().chosen;
    case Path::avx512: return cpu_has_avx512() ? std::optional<Path>(Path::avx512) : std::nullopt;
    case Path::shani: return cpu_has_shani() ? std::optional<Path>(Path::shani) : std::nullopt;
    case Path::cryptopp: return Path::cryptopp;
  }
  return std::nullopt;
}

std::optional<Path> parse_path(const std::string& text) {
  if (text == "auto") return Path::automatic;
  if (text == "avx512") return Path::avx512;
  if (text == "shani") return Path::shani;
  if (text == "cryptopp") return Path::cryptopp;
  return std::nullopt;
}

const char* to_string(Path p) {
  switch (p) {
    case Path::automatic: return "auto";
    case Path::avx512: return "avx512";
    case Path::shani: return "shani";
    case Path::cryptopp: return "cryptopp";
  }
  return "?";
}

}  // namespace uts::sha1
