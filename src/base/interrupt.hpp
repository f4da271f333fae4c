// Signals that end a run early: SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2
// (docs/output.md, section 7). The first one asks running work to stop at its
// next poll, so partial results can be printed; a second one ends the
// process at once (the signal's default action), unless it is the same
// signal within 200 ms of the first: that is one signal delivered twice (GNU
// timeout signals the child and then its process group), and is ignored.
// Installed as the first thing main does, for every workload.
#pragma once

#include <atomic>
#include <string>

namespace uts::interrupt {

void install();
// A signal arrived (relaxed: pollers only need to see it eventually).
bool requested();
// The first signal caught, or 0. Sequentially consistent: read just after a
// seq_cst store that ends a run, a 0 says the signal (if any) came after it.
int signal_number();
// 128 + that signal: the exit status of a run it stopped (130 for SIGINT).
int exit_status();
// Its name, "SIGINT" (or "" before any).
const char* signal_name();
// The name of one of the signals above ("signal N" for another).
std::string name_of(int sig);

// A run's own stop flag (non-zero: stop), which the loops deep in the tree
// and protocol code watch besides the signals: a thread of a run watches its
// run's flag while it works (nullptr: none).
void watch(const std::atomic<int>* run_stop);
// A signal arrived, or this thread's run raised its stop flag.
bool stop_requested();

// Tests only: forget a signal (the handler stays installed).
void reset_for_testing();

}  // namespace uts::interrupt
