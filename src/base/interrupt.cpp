#include "base/interrupt.hpp"

#include <csignal>

namespace uts::interrupt {

namespace {

// Lock-free atomics: the only kind a signal handler may touch.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

thread_local const std::atomic<int>* t_watched = nullptr;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

extern "C" void on_signal(int sig) {
  int none = 0;
  // relaxed: the flag carries no data; pollers only need to see it eventually.
  if (!g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed)) {
    // A second signal: the default action, now (a stuck run can be killed).
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

void install() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : kSignals) sigaction(sig, &action, nullptr);
}

// relaxed: see on_signal.
bool requested() { return g_signal.load(std::memory_order_relaxed) != 0; }
// relaxed: see on_signal.
int signal_number() { return g_signal.load(std::memory_order_relaxed); }
int exit_status() { return 128 + signal_number(); }

const char* signal_name() {
  static thread_local std::string name;
  name = signal_number() ? name_of(signal_number()) : "";
  return name.c_str();
}

std::string name_of(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "signal " + std::to_string(sig);
  }
}

void watch(const std::atomic<int>* run_stop) { t_watched = run_stop; }

bool stop_requested() {
  // relaxed, both: requests to stop carry no data.
  return requested() || (t_watched && t_watched->load(std::memory_order_relaxed) != 0);
}

// relaxed: see on_signal.
void reset_for_testing() { g_signal.store(0, std::memory_order_relaxed); }

}  // namespace uts::interrupt
