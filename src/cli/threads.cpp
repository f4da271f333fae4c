// The thread count when --threads is not given (options.hpp):
// OMP_NUM_THREADS, else every core, clamped to OMP_THREAD_LIMIT; both
// variables checked before the OpenMP runtime reads them.
#include <omp.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "cli/options.hpp"
#include "cli/usage_error.hpp"

namespace uts::cli {

namespace {

// One whole number in [1, most], blanks around it allowed; nullopt otherwise.
std::optional<long> positive(std::string text, long most) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(0, 1);
  long v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || v < 1 || v > most)
    return std::nullopt;
  return v;
}

// The whole of `name`'s value as a whole number in [1, most]; nullopt when
// the variable is unset; UsageError when it is anything else.
std::optional<long> positive_env(const char* name, long most, const char* what, bool list) {
  const char* env = std::getenv(name);
  if (env == nullptr) return std::nullopt;
  const std::string text(env);
  // OMP_NUM_THREADS may be a nesting list ("4,2"): its first level is the
  // team size. Every level must be a positive number, as libgomp's parser
  // (env.c, parse_unsigned_long_list) wants: "3,abc" and "1," are refused
  // there, so here too, whichever runtime this build uses.
  const std::size_t comma = list ? text.find(',') : std::string::npos;
  const auto v = positive(text.substr(0, comma), most);
  bool ok = v.has_value();
  for (std::size_t at = comma; ok && at != std::string::npos;) {
    const std::size_t next = text.find(',', at + 1);
    ok = positive(text.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1),
                  std::numeric_limits<int>::max())
             .has_value();
    at = next;
  }
  if (!ok) throw UsageError(std::string(name) + ": '" + env + "' is not " + what);
  return v;
}

}  // namespace

ThreadDefault thread_default() {
  ThreadDefault d;
  // Both variables are checked before the first OpenMP call: libomp parses
  // the environment then, and an OMP_NUM_THREADS such as -2 corrupts its
  // state (an assertion, or "Out of heap memory") before we could refuse it.
  const auto env_threads =
      positive_env("OMP_NUM_THREADS", 4096, "a number of threads from 1 to 4096 (or a list of them, 4,2)", true);
  positive_env("OMP_THREAD_LIMIT", 2147483647, "a thread limit from 1 to 2147483647", false);
#if UTS_SMPI
  // uts-smpi: one thread per simulated rank, whatever the real machine has.
  d.threads = 1;
  d.source = "one per simulated rank (uts-smpi)";
  d.limit = omp_get_thread_limit();
  return d;
#endif
  if (env_threads) {
    d.threads = static_cast<int>(*env_threads);
    d.source = "OMP_NUM_THREADS";
  } else {
    d.threads = omp_get_num_procs();
    if (d.threads > 4096) {
      d.threads = 4096;
      d.source = "every core, at most 4096";
    } else {
      d.source = "every core";
    }
  }
  d.limit = omp_get_thread_limit();
  if (d.threads > d.limit) {
    d.threads = d.limit;
    d.source += ", clamped to OMP_THREAD_LIMIT " + std::to_string(d.limit);
  }
  return d;
}

}  // namespace uts::cli
