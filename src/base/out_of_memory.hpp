// Out of memory, said once: "uts: out of memory: <what>" on stderr and exit
// status 3 (docs/output.md, section 6), from whichever thread ran out, even
// inside an OpenMP region or a helper thread, where no catch in main can
// see the exception. main() installs fail_on_terminate() as the
// std::terminate handler (install_terminate_handler): the net under every
// allocation.
#pragma once

#include <string>

namespace uts::oom {

// What the process is allocating for now ("the nodes waiting to be
// expanded"): the message of an out-of-memory failure that a narrower catch
// did not name. A string literal or one that lives until exit.
void set_context(const char* what);

// Under mpirun every rank may run out of the same memory: rank 0 prints at
// once, the others wait three seconds first and stay silent if mpirun's
// teardown signal comes meanwhile (rank 0 failed too, and said so); they
// print only when rank 0 did not fail. `first`: this rank prints at once.
void set_rank_voice(bool first);

// Prints the one line (once per process: the first caller; the others wait
// for it to end the process) and exits with status 3, at once (_exit: the
// other threads may hold locks, and no destructor can be trusted now).
[[noreturn]] void fail(const std::string& what);

// The std::terminate handler: an uncaught std::bad_alloc (or a container
// past its maximum size, std::length_error) is out of memory, as the current
// context; anything else goes to the handler it replaced (a bug: libstdc++
// names the exception, then aborts with a core dump).
[[noreturn]] void fail_on_terminate();
// Installs it (main, first thing).
void install_terminate_handler();

}  // namespace uts::oom
