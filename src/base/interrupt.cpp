// The signal handler and the stop flags behind interrupt.hpp: it touches
// only lock-free atomics, the one kind a signal handler may use.
#include "base/interrupt.hpp"

#include <csignal>
#include <cstdint>
#include <ctime>

namespace uts::interrupt {

namespace {

// Lock-free atomics: the only kind a signal handler may touch.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

thread_local const std::atomic<int>* t_watched = nullptr;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

// When the first signal came (CLOCK_MONOTONIC, ns; 0: not yet recorded).
std::atomic<std::int64_t> g_first_ns{0};
static_assert(std::atomic<std::int64_t>::is_always_lock_free);

// The same signal again within this much of the first is one signal
// delivered twice, not a second request: GNU timeout sends its signal to the
// child and then to its whole process group (the child gets it twice,
// microseconds apart), and batch systems may signal both a job's processes
// and its group. A person pressing Ctrl-C again takes longer than this.
constexpr std::int64_t kDuplicateNs = 200'000'000;

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe (POSIX.1-2008)
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

extern "C" void on_signal(int sig) {
  const std::int64_t now = now_ns();
  int none = 0;
  // seq_cst: the flag's place in the single total order decides whether the
  // signal came before a run's end (signal_number(), steal/idle/termination.hpp).
  // relaxed, the time: it carries no data for other memory.
  if (g_signal.compare_exchange_strong(none, sig, std::memory_order_seq_cst)) {
    g_first_ns.store(now, std::memory_order_relaxed);
    return;
  }
  // `none` now holds the first signal. The same one again, while the first
  // handler (on another thread) has not recorded its time yet or within the
  // window: a duplicate delivery, ignored.
  const std::int64_t first = g_first_ns.load(std::memory_order_relaxed);
  if (sig == none && (first == 0 || now - first < kDuplicateNs)) return;
  // A second signal: the default action, now (a stuck run can be killed).
  // sigaction, not std::signal (unspecified in a multithreaded process).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  std::raise(sig);
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
// seq_cst: read right after a run's end is stored, it says whether the
// handler's store came first (see on_signal).
int signal_number() { return g_signal.load(std::memory_order_seq_cst); }
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
void reset_for_testing() {
  // The time first: a signal between the two stores then finds the old flag
  // and is dropped (tests only), instead of leaving a flag without a time,
  // which would make every later same signal look like a duplicate.
  g_first_ns.store(0, std::memory_order_relaxed);
  g_signal.store(0, std::memory_order_relaxed);
}

}  // namespace uts::interrupt
