// Fuzz target: the config-file reader. The bytes are written to a file of
// this process's own; read_config_file must refuse it with one clean
// UsageError line naming file:line, or return entries that hold its
// format: a key of [a-z0-9-], a trimmed value, non-empty but for
// description, lines rising within the file.
#include <algorithm>
#include <exception>

#include "cli/config_file.hpp"
#include "cli/usage_error.hpp"
#include "fuzz_target.hpp"

namespace {
constexpr const char* kTarget = "config";

bool trimmed(const std::string& s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  return s.empty() || (!blank(s.front()) && !blank(s.back()));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using uts::fuzz::check;
  uts::fuzz::write_scratch(data, size);
  const std::string& path = uts::fuzz::scratch_path();
  try {
    const std::vector<uts::cli::ConfigEntry> entries = uts::cli::read_config_file(path);
    int last_line = 0;
    for (const auto& e : entries) {
      check(!e.key.empty() && std::all_of(e.key.begin(), e.key.end(),
                                          [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }),
            kTarget, "a malformed key '" + e.key + "' accepted");
      check(trimmed(e.key) && trimmed(e.value), kTarget, "an untrimmed key or value");
      check(!e.value.empty() || e.key == "description", kTarget, "key '" + e.key + "' accepted without a value");
      check(e.value.find('\n') == std::string::npos && e.value.find('#') == std::string::npos, kTarget,
            "a value with a newline or a comment in it");
      check(e.file == path && e.line > last_line, kTarget, "entries not in file order, or another file's");
      last_line = e.line;
    }
  } catch (const uts::cli::UsageError& err) {
    const std::string what = err.what();
    check(uts::fuzz::one_clean_line(what), kTarget, "a refusal that is not one clean line: '" + what + "'");
    check(what.rfind(path + ":", 0) == 0, kTarget, "a refusal that does not name the file: '" + what + "'");
  } catch (const std::exception& err) {
    uts::fuzz::broken(kTarget, std::string("an exception other than UsageError: ") + err.what());
  }
  return 0;
}
