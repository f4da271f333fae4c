#include <omp.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>

#include "cli/options.hpp"
#include "cli/usage_error.hpp"

namespace uts::cli {

ThreadDefault thread_default() {
  ThreadDefault d;
  d.limit = omp_get_thread_limit();
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env != nullptr) {
    // The first level of a nesting list ("4,2") is the team size.
    std::string text(env);
    text = text.substr(0, text.find(','));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(0, 1);
    long v = 0;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || v < 1 || v > 4096)
      throw UsageError("OMP_NUM_THREADS: '" + std::string(env) + "' is not a number of threads from 1 to 4096");
    d.threads = static_cast<int>(v);
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
  if (d.threads > d.limit) {
    d.threads = d.limit;
    d.source += ", clamped to OMP_THREAD_LIMIT " + std::to_string(d.limit);
  }
  return d;
}

}  // namespace uts::cli
