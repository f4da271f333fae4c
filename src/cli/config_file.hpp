// Preset and config files: `key = value` lines whose keys are the long option
// names, `#` comments, blank lines ignored. A preset is such a file in a preset
// directory; a config file is one given by path.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace uts::cli {

struct ConfigEntry {
  std::string key;
  std::string value;
  std::string file;
  int line = 0;
};

// Throws UsageError naming file:line for unreadable files and malformed lines.
std::vector<ConfigEntry> read_config_file(const std::string& path);

// Directories searched for presets, in order: $UTS_PRESET_DIR, the
// installation the binary runs from (<bindir>/../share/uts/presets), the
// source tree's configs/presets, the configured <prefix>/share/uts/presets.
std::vector<std::string> preset_dirs();

// Path of preset NAME (case-insensitive); throws UsageError if there is none.
std::string find_preset(const std::string& name);

struct PresetInfo {
  std::string name;
  std::string path;
  std::string description;
  std::string expect_size, expect_depth, expect_leaves;  // as the file says them; empty if absent
};
std::vector<PresetInfo> list_presets();

}  // namespace uts::cli
