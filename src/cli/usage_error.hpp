// The one exception for bad usage or bad input, so that every caller
// reports it alike: one line on stderr, exit status 2.
#pragma once

#include <stdexcept>
#include <string>

#include "base/printable.hpp"

namespace uts::cli {

// Bad usage or bad input: printed as one line on stderr, exit status 2.
// The message is made printable here, once for every thrower: it echoes
// values a user typed or a file held, and a raw newline or escape sequence
// in one would break the one-line contract (or forge a second "uts:" line);
// a huge value is cut to a line of about 1 KiB (base/printable.hpp).
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(printable_line(message)) {}
  explicit UsageError(const char* message) : UsageError(std::string(message)) {}
};

}  // namespace uts::cli
