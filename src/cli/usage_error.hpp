// The one exception for bad usage or bad input, so that every caller
// reports it alike: one line on stderr, exit status 2.
#pragma once

#include <stdexcept>

namespace uts::cli {

// Bad usage or bad input: printed as one line on stderr, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace uts::cli
