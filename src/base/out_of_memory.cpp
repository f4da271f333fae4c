// The out-of-memory line behind out_of_memory.hpp: printed by the first
// thread that fails, with write(2) and no allocation (there may be none left).
#include "base/out_of_memory.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "base/interrupt.hpp"

namespace uts::oom {

namespace {

std::atomic<const char*> g_context{"a buffer sized by the input"};
std::atomic<bool> g_first_voice{true};
std::atomic<bool> g_failing{false};
// The handler before ours (libstdc++'s verbose one: "terminate called after
// throwing ..."), for everything that is not out of memory.
std::terminate_handler g_previous = nullptr;

void write_all(const char* s, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;  // nothing else can be said
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

void write_str(const char* s) {
  std::size_t n = 0;
  while (s[n] != '\0') ++n;
  write_all(s, n);
}

// Ends the process from the first failing thread; every later one waits for it.
[[noreturn]] void say_and_exit(const char* what, std::size_t n) {
  // acq_rel: one winner; the others only need to see that someone won.
  if (g_failing.exchange(true, std::memory_order_acq_rel))
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  // relaxed: set once, before any run, by the thread that later fails or its parent.
  if (!g_first_voice.load(std::memory_order_relaxed)) {
    // When rank 0 failed too it has said so and exited, and mpirun tears
    // the job down: its SIGTERM (caught by interrupt.cpp) says this rank's
    // line would be a second one. Without it, this rank is the one to speak.
    for (int i = 0; i < 30 && !interrupt::requested(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (interrupt::requested()) ::_exit(3);
  }
  // One write per piece, no buffer: a failed allocation must not need another.
  write_str("uts: out of memory: ");
  write_all(what, n);
  write_str("\n");
  ::_exit(3);
}

}  // namespace

// relaxed: read by the failing thread, which set it or was started after it.
void set_context(const char* what) { g_context.store(what, std::memory_order_relaxed); }

// relaxed: as set_context.
void set_rank_voice(bool first) { g_first_voice.store(first, std::memory_order_relaxed); }

void fail(const std::string& what) { say_and_exit(what.data(), what.size()); }

void fail_on_terminate() {
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      // relaxed: see set_context.
      const char* what = g_context.load(std::memory_order_relaxed);
      say_and_exit(what, std::char_traits<char>::length(what));
    } catch (const std::length_error& err) {
      // Ours name the container (steal/storage/node_array.hpp).
      const char* what = err.what();
      say_and_exit(what, std::char_traits<char>::length(what));
    } catch (...) {
    }
  }
  if (g_previous != nullptr) g_previous();
  std::abort();
}

void install_terminate_handler() {
  const std::terminate_handler previous = std::set_terminate(fail_on_terminate);
  if (previous != fail_on_terminate) g_previous = previous;
}

}  // namespace uts::oom
