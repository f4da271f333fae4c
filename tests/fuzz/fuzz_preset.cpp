// Fuzz target: preset lookup by name. find_preset must refuse a name with
// one clean UsageError line, or return a regular file named <name>.conf
// (any case) directly inside a preset directory: a name never reaches a
// file elsewhere (no path traversal, no NUL cutting the name short).
#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>

#include "cli/config_file.hpp"
#include "cli/usage_error.hpp"
#include "fuzz_target.hpp"

namespace {
constexpr const char* kTarget = "preset";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using uts::fuzz::check;
  // Only the built-in directories: $UTS_PRESET_DIR would make the outcome
  // depend on the environment the fuzzer was started in.
  static const bool unset = (::unsetenv("UTS_PRESET_DIR"), true);
  (void)unset;
  const std::string name(reinterpret_cast<const char*>(data), size);
  try {
    const std::filesystem::path found = uts::cli::find_preset(name);
    const std::string file = found.string();  // named: GCC 12 warns (-Wrestrict) on "..." + a temporary here
    std::error_code ec;
    check(std::filesystem::is_regular_file(found, ec), kTarget, "'" + file + "' is not a regular file");
    check(found.extension() == ".conf" && lower(found.stem().string()) == lower(name), kTarget,
          "'" + file + "' is not the file of preset '" + name + "'");
    const std::vector<std::string> dirs = uts::cli::preset_dirs();
    const bool inside = std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) {
      return std::filesystem::equivalent(found.parent_path(), d, ec);
    });
    check(inside, kTarget, "'" + file + "' is outside the preset directories");
  } catch (const uts::cli::UsageError& err) {
    check(uts::fuzz::one_clean_line(err.what()), kTarget,
          std::string("a refusal that is not one clean line: '") + err.what() + "'");
  } catch (const std::exception& err) {
    uts::fuzz::broken(kTarget, std::string("an exception other than UsageError: ") + err.what());
  }
  return 0;
}
