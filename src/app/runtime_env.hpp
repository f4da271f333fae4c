// What the OpenMP runtime says about its environment (OMP_* variables), kept
// off stderr and turned into uts's own one line. libgomp parses the
// environment in its shared-library constructor, before main; libomp at the
// first OpenMP call. Either prints its complaint (libgomp: a blank line,
// then "libgomp: Invalid value for environment variable ..."), keeps a
// default and runs: uts refuses such a value instead (exit 2, one line), by
// the runtime's own rules, for every variable the runtime reads.
#pragma once

#include <string>

namespace uts::app {

// fd 2 goes to an anonymous memory file until end_capture(). Nested
// captures are not supported; a failure to capture leaves stderr alone.
void begin_capture();
// fd 2 back; returns what was written meanwhile.
std::string end_capture();
// fd 2 back, and nothing else: async-signal-safe, for a process about to die.
void restore_stderr();

// Captured runtime text: the first complaint the OpenMP runtime made about
// the environment, as one uts line's text ("" when it made none). What it
// said that is no complaint (OMP_DISPLAY_ENV's listing, information lines)
// is written back to stderr unchanged.
std::string runtime_complaint(const std::string& captured);

// The capture begun before the shared libraries' constructors (the
// executable's .preinit_array) ends here, in the program's first
// constructor; startup_complaint() then holds what libgomp said about its
// environment while it read it ("" when nothing).
void end_startup_capture();
const std::string& startup_complaint();

}  // namespace uts::app
