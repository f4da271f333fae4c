#include "base/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace uts::interrupt {

namespace {
// lock-free atomic: the only kind a signal handler may touch.
std::atomic<bool> g_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sigint(int) {
  // relaxed: the flag carries no data; pollers only need to see it eventually.
  if (g_requested.exchange(true, std::memory_order_relaxed)) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}
}  // namespace

void install() {
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
}

// relaxed: see on_sigint.
bool requested() { return g_requested.load(std::memory_order_relaxed); }

}  // namespace uts::interrupt
