// The live progress line: "nodes, rate, elapsed" on one updating stderr line,
// read from a ProgressBoard about once a second by a thread of its own.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "run/progress.hpp"

namespace uts {

class ProgressReporter {
 public:
  explicit ProgressReporter(const ProgressBoard& board);
  ~ProgressReporter();  // stops the thread and clears the line

 private:
  void loop();
  const ProgressBoard& board_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool printed_ = false;
  std::thread thread_;
};

}  // namespace uts
