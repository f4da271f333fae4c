// The ThreadSanitizer report tests/tsan.supp suppresses, without uts: tasks
// that share nothing but an atomic counter, each reading only its own
// firstprivate copy, reported under libarcher as racing with a later task's
// creation (libomp reuses the finished task's memory; docs/schedulers.md).
// Not built by Meson: the report comes in some runs only (a few in ten here).
//   clang++-14 -O1 -g -fopenmp -fsanitize=thread tests/tsan/task_memory_reuse.cpp -o reuse
//   OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so \
//     TSAN_OPTIONS=ignore_noninstrumented_modules=1 ./reuse      # add -DUNTIED: the same
#include <atomic>
#include <cstdint>
#include <cstdio>

static std::atomic<std::uint64_t> nodes{0};

static std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  return x ^ (x >> 33);
}

static void walk(std::uint64_t id, int depth) {
  nodes.fetch_add(1, std::memory_order_relaxed);  // relaxed: a count read after the region
  if (depth == 0) return;
  const int kids = 1 + static_cast<int>(mix(id) % 4);
  for (int i = 0; i < kids; ++i) {
    const std::uint64_t child = mix(id + static_cast<std::uint64_t>(i) + 1);
    const int d = depth - 1;
#ifdef UNTIED
#pragma omp task untied firstprivate(child, d)
#else
#pragma omp task firstprivate(child, d)
#endif
    walk(child, d);
  }
#pragma omp taskwait
}

int main() {
#pragma omp parallel num_threads(3)
#pragma omp single
  walk(1, 9);
  std::printf("%llu nodes\n", static_cast<unsigned long long>(nodes.load()));
}
