// Preset and config files (config_file.hpp): reading `key = value` lines,
// and finding presets by name in the preset directories.
#include "cli/config_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/printable.hpp"
#include "cli/usage_error.hpp"
#include "uts_build_config.hpp"

namespace uts::cli {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool valid_key(const std::string& key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace

std::vector<ConfigEntry> read_config_file(const std::string& path) {
  constexpr std::size_t kMaxBytes = 1 << 20;  // presets are a few hundred bytes
  constexpr std::size_t kMaxLine = 4096;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError(path + ": is a directory, not a config file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read config file");
  // Read at most one byte past the limit: /dev/zero and the like end here.
  std::string text(kMaxBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw UsageError(path + ": read error");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxBytes) throw UsageError(path + ": larger than 1 MiB, not a config file");
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte order mark
  std::vector<ConfigEntry> entries;
  std::size_t start = 0;
  for (int line_no = 1; start < text.size(); ++line_no) {
    // A line ends at LF, CRLF or a lone CR (a file saved on Windows or by an
    // old Mac editor reads as it looks, line numbers included).
    const std::size_t end = std::min(text.find_first_of("\r\n", start), text.size());
    const std::string raw = text.substr(start, end - start);
    start = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (raw.find('\0') != std::string::npos) throw UsageError(where + "a NUL byte (not a text file?)");
    if (raw.size() > kMaxLine) throw UsageError(where + "a line longer than 4096 characters");
    // Other control characters (an escape sequence, a form feed) have no
    // place in a key or a value, and a value is echoed in messages and in
    // --list-presets; tabs are blanks.
    for (const char c : raw)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == '\x7f')
        throw UsageError(where + "a control character " + printable(std::string(1, c)) + " (not a text file?)");
    const auto hash = raw.find('#');
    const std::string line = trim(hash == std::string::npos ? raw : raw.substr(0, hash));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw UsageError(where + "expected 'key = value'");
    ConfigEntry e{trim(line.substr(0, eq)), trim(line.substr(eq + 1)), path, line_no};
    if (!valid_key(e.key)) throw UsageError(where + "malformed key '" + e.key + "'");
    if (e.value.empty() && e.key != "description") throw UsageError(where + "key '" + e.key + "' has no value");
    entries.push_back(std::move(e));
  }
  return entries;
}

std::vector<std::string> preset_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("UTS_PRESET_DIR"); env && *env) dirs.emplace_back(env);
  // An installed binary: its own installation's presets, wherever it was
  // moved (bin/../share/uts/presets); a binary in the build tree has none.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path beside = exe.parent_path() / UTS_PRESET_DIR_FROM_BINDIR;
    if (std::filesystem::is_directory(beside, ec)) dirs.push_back(beside.lexically_normal().string());
  }
  dirs.emplace_back(UTS_PRESET_DIR_SOURCE);
  dirs.emplace_back(UTS_PRESET_DIR_INSTALLED);
  return dirs;
}

std::string find_preset(const std::string& name) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (plain) {
    // Names are case-insensitive (t1l is T1L): in each directory in turn, the
    // exact name first, then any spelling.
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    for (const std::string& dir : preset_dirs()) {
      const std::filesystem::path p = std::filesystem::path(dir) / (name + ".conf");
      std::error_code ec;
      if (std::filesystem::is_regular_file(p, ec)) return p.string();
      std::string found;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().extension() != ".conf" || lower(entry.path().stem().string()) != lower(name)) continue;
        // Two spellings of one name in one directory (T1.conf, t1.conf):
        // the first in name order, whatever the directory's order.
        if (found.empty() || entry.path().string() < found) found = entry.path().string();
      }
      if (!found.empty()) return found;
    }
  }
  throw UsageError("unknown preset '" + name + "' (uts --list-presets shows them)");
}

std::vector<PresetInfo> list_presets() {
  std::vector<PresetInfo> presets;
  for (const std::string& dir : preset_dirs()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".conf") continue;
      const std::string name = entry.path().stem().string();
      if (std::any_of(presets.begin(), presets.end(), [&](const PresetInfo& p) { return p.name == name; }))
        continue;
      PresetInfo info{name, entry.path().string(), "", "", "", ""};
      try {
        for (const ConfigEntry& e : read_config_file(info.path)) {
          if (e.key == "description") info.description = e.value;
          if (e.key == "expect-size") info.expect_size = e.value;
          if (e.key == "expect-depth") info.expect_depth = e.value;
          if (e.key == "expect-leaves") info.expect_leaves = e.value;
        }
      } catch (const UsageError& err) {
        info.description = std::string("(unreadable: ") + err.what() + ")";
      }
      presets.push_back(std::move(info));
    }
    if (!presets.empty()) break;  // the first directory that has presets wins
  }
  std::sort(presets.begin(), presets.end(),
            [](const PresetInfo& a, const PresetInfo& b) { return a.name < b.name; });
  return presets;
}

}  // namespace uts::cli
