// The live progress line's own thread (progress.hpp): about once a second,
// the nodes so far and the rate since the last line, on one stderr line.
#include "app/progress.hpp"

#include <chrono>
#include <cstdio>

namespace uts {

ProgressReporter::ProgressReporter(const ProgressBoard& board) : board_(board), thread_([this] { loop(); }) {}

ProgressReporter::~ProgressReporter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (printed_) std::fprintf(stderr, "\r\033[K");
}

void ProgressReporter::loop() {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto last_time = start;
  std::uint64_t last_nodes = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
    const auto now = clock::now();
    const std::uint64_t nodes = board_.total();
    const double dt = std::chrono::duration<double>(now - last_time).count();
    const double rate = dt > 0 ? double(nodes - last_nodes) / dt : 0.0;
    const double elapsed = std::chrono::duration<double>(now - start).count();
    std::fprintf(stderr, "\r\033[K[uts] %llu nodes, %.2f M nodes/s, %.0f s elapsed",
                 static_cast<unsigned long long>(nodes), rate / 1e6, elapsed);
    std::fflush(stderr);
    printed_ = true;
    last_time = now;
    last_nodes = nodes;
  }
}

}  // namespace uts
