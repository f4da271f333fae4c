// Running a scheduler's traversal on a thread with a large stack: the
// literature forms recurse once per tree level (T3L: 17,844 levels), and the
// thread that starts a run recurses as deep as the runtime's workers, while
// the process's initial thread has only `ulimit -s` (8 MiB by default).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>

namespace uts {

// What each thread of a literature-form traversal reserves: address space,
// not memory (only the pages a run reaches are committed). libfork's suite
// sets 128 MiB; twice that leaves room for a wait's nesting of other tasks.
constexpr std::size_t kLargeStackBytes = std::size_t{256} << 20;

// Runs fn() on a new thread whose stack is `bytes`, waits for it, and
// rethrows what it threw. When no such thread can be created (an
// address-space limit), fn() runs on the calling thread instead.
template <class Fn>
void on_large_stack(Fn& fn, std::size_t bytes = kLargeStackBytes) {
  struct Call {
    Fn* fn;
    std::exception_ptr error;
  } call{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        try {
          (*c->fn)();
        } catch (...) {
          c->error = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    fn();
    return;
  }
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace uts
