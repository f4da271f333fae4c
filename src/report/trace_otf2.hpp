// The event trace as an OTF2 archive (docs/trace.md, "OTF2 archives"), for
// ViTE and Vampir: one location per thread in a location group per rank
// under a system tree node per host; state intervals, steal attempts,
// wake-ups and MPI events as ENTER/LEAVE of regions, with attributes. In a
// build without OTF2 (meson -Dotf2=disabled, or libotf2 not found) only
// the checks below are there and writing throws.
#pragma once

#include <stdexcept>
#include <string>

#include "base/printable.hpp"
#include "report/record.hpp"

namespace uts {

// True when this uts was built with OTF2.
bool otf2_available();

// --trace names an OTF2 archive: PATH.otf2 (or PATH.otf2/).
bool is_otf2_path(const std::string& path);

// Checked before the run: empty when `path` can take the archive (it does
// not exist, or is an empty folder, and its parent folder is writable);
// otherwise why not, in a few words.
std::string otf2_target_problem(const std::string& path);

// Its message names the user's --trace path: made printable (no raw control
// character, about 1 KiB at most), as cli::UsageError's messages are.
class Otf2Error : public std::runtime_error {
 public:
  explicit Otf2Error(const std::string& message) : std::runtime_error(printable_line(message)) {}
};

// Writes the archive into the folder `path` (anchor file path/traces.otf2),
// built in a temporary folder beside it and renamed into place, so a
// failure leaves nothing behind. Throws Otf2Error (one line).
void write_trace_otf2(const RunReport& r, const std::string& path);

}  // namespace uts
