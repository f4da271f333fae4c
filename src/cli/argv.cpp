// From argv and files to the parser's tokens (argv.hpp): -v N joined,
// file entries turned into option tokens, cxxopts' errors as UsageError.
#include "cli/argv.hpp"

#include <cctype>
#include <optional>
#include <set>

#include "cli/config_file.hpp"
#include "cli/convert.hpp"
#include "cli/option_table.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"

namespace uts::cli {

cxxopts::ParseResult parse_tokens(cxxopts::Options& options, const std::vector<std::string>& tokens) {
  std::vector<const char*> argv;
  argv.reserve(tokens.size());
  for (const std::string& t : tokens) argv.push_back(t.c_str());
  try {
    auto result = options.parse(static_cast<int>(argv.size()), argv.data());
    if (!result.unmatched().empty()) throw UsageError("unexpected argument '" + result.unmatched().front() + "'");
    return result;
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(plain_quotes(e.what()));
  }
}

std::vector<std::string> normalize_tokens(const std::vector<std::string>& args) {
  std::set<std::string> takes_value;  // "-d", "--depth", ...: the next token is their value
  for (const OptionSpec& o : option_specs()) {
    if (!o.arg || o.implicit) continue;
    const std::string name(o.name);
    if (o.letter) takes_value.insert(std::string("-") + o.letter);
    if (name.size() > 1) takes_value.insert("--" + name);
  }
  auto numeric = [](const std::string& t) {
    const std::size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
    return t.size() > i && std::isdigit(static_cast<unsigned char>(t[i]));
  };
  // cxxopts splits a list option's value at commas, so "-v 1,2" would reach
  // the level check as two levels and be summed: one level per -v.
  auto one_level = [](const std::string& value) {
    if (value.find(',') != std::string::npos)
      throw UsageError("-v/--verbose: '" + value + "' is not a level from 0 to 2147483647");
    return value;
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i == 0 || a == "--") {
      out.push_back(a);
      if (i == 0) continue;
      out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if ((a == "-v" || a == "--verbose") && i + 1 < args.size() && numeric(args[i + 1])) {
      out.push_back("--verbose=" + one_level(args[++i]));
      continue;
    }
    if (a.size() > 2 && a.compare(0, 2, "-v") == 0 && numeric(a.substr(2))) {
      out.push_back("--verbose=" + one_level(a.substr(2)));
      continue;
    }
    if (a.compare(0, 10, "--verbose=") == 0) one_level(a.substr(10));
    if (a.compare(0, 2, "--") == 0 && a.find('=') != std::string::npos) {
      const std::string name = a.substr(2, a.find('=') - 2);
      if (const OptionSpec* spec = find_option(name); spec && !spec->arg && name.size() > 1) {
        const std::string text = a.substr(a.find('=') + 1);
        const auto on = flag_value(text);
        if (!on) throw UsageError(label(spec->name) + ": '" + text + "' is not true, false, 1 or 0 (a flag's value)");
        out.push_back("--" + name + (*on ? "=true" : "=false"));
        continue;
      }
    }
    out.push_back(a);
    // A value-taking option alone in its token takes the next token as its
    // value; in a short group (-tv), the first value-taking letter takes the
    // rest of the token, or the next token when it is the last letter.
    bool next_is_value = false;
    if (a.compare(0, 2, "--") == 0) {
      next_is_value = takes_value.count(a) > 0;  // "--x=v" is never in the set
    } else if (a.size() > 1 && a[0] == '-') {
      for (std::size_t k = 1; k < a.size(); ++k)
        if (takes_value.count(std::string("-") + a[k])) {
          next_is_value = k + 1 == a.size();
          break;
        }
    }
    if (next_is_value && i + 1 < args.size()) out.push_back(args[++i]);
  }
  return out;
}

std::vector<ConfigEntry> append_file_tokens(cxxopts::Options& options, const std::string& path,
                                            std::vector<std::string>& tokens) {
  const std::vector<ConfigEntry> entries = read_config_file(path);
  std::vector<ConfigEntry> used;
  const ConfigEntry* chunk_entry = nullptr;
  const ConfigEntry* steal_entry = nullptr;
  std::optional<StealPolicy> chunk, steal;
  for (const ConfigEntry& e : entries) {
    if (e.key == "description") continue;
    const std::string where = e.file + ":" + std::to_string(e.line) + ": ";
    // Files may also use the reference's one-letter names (q = 0.2, m = 5).
    const OptionSpec* spec = find_option(e.key);
    if (!spec) throw UsageError(where + "unknown key '" + e.key + "'");
    if (!spec->in_files)
      throw UsageError(where + "'" + e.key + "' cannot be set in a file (give " + label(spec->name) +
                       " on the command line)");
    const std::string key = spec->name;
    RunConfig scratch;
    std::vector<std::string> token;
    try {
      token = normalize_tokens({"uts", "--" + key + "=" + e.value});
      fill_config(parse_tokens(options, token), scratch);
    } catch (const UsageError& err) {
      throw UsageError(where + err.what());
    }
    ConfigEntry origin = e;
    origin.key = key;
    if (key == "chunk") {
      chunk_entry = &e;
      chunk = scratch.engine.steal;
      tokens.push_back("--steal=chunk:" + std::to_string(chunk->chunk));
      origin.key = "steal";
      used.push_back(std::move(origin));
      continue;
    }
    if (key == "steal") {
      steal_entry = &e;
      steal = scratch.engine.steal;
    }
    tokens.push_back(token.back());
    used.push_back(std::move(origin));
  }
  if (chunk && steal && !(*chunk == *steal)) {
    const ConfigEntry& later = chunk_entry->line > steal_entry->line ? *chunk_entry : *steal_entry;
    const ConfigEntry& earlier = &later == chunk_entry ? *steal_entry : *chunk_entry;
    throw UsageError(later.file + ":" + std::to_string(later.line) + ": '" + later.key + " = " + later.value +
                     "' disagrees with '" + earlier.key + " = " + earlier.value + "' on line " +
                     std::to_string(earlier.line) + " (chunk = K means steal = chunk:K)");
  }
  return used;
}

}  // namespace uts::cli
