// The command line as a whole (options.hpp): preset and config files
// underneath, the command line on top, each section filled and the
// combinations checked once.
#include "cli/options.hpp"

#include <cxxopts.hpp>

#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <vector>

#include "cli/argv.hpp"
#include "cli/config_file.hpp"
#include "cli/convert.hpp"
#include "cli/option_table.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"
#include "schedulers/registry.hpp"

namespace uts::cli {

const char* to_string(Format f) {
  switch (f) {
    case Format::text: return "text";
    case Format::json: return "json";
    case Format::csv: return "csv";
  }
  return "?";
}

namespace {

// The same tree (the same nodes): the parameters its type reads are equal.
// Granularity is not one of them (more SHA-1 work per child, the same tree);
// nor are the parameters a type ignores (q and m of a geometric tree).
bool same_tree(const TreeParams& a, const TreeParams& b) {
  if (a.type != b.type || a.rng != b.rng || a.b0 != b.b0 || a.seed != b.seed) return false;
  if (a.rng == RngConvention::paper2003 && a.root_id != b.root_id) return false;
  const bool geometric = a.type == TreeType::geometric || a.type == TreeType::hybrid;
  const bool binomial = a.type == TreeType::binomial || a.type == TreeType::hybrid;
  if (geometric && a.shape != b.shape) return false;
  if (a.type != TreeType::binomial && a.depth != b.depth) return false;
  if (binomial && (a.q != b.q || a.m != b.m)) return false;
  if (a.type == TreeType::hybrid && a.shift != b.shift) return false;
  return true;
}

struct Origin {
  ConfigEntry entry;
  std::size_t order = 0;  // files' entries in reading order: the later wins
};
using Origins = std::map<std::string, Origin>;  // by long option name

// A message about the merged options, prefixed with the file:line of the
// option it names that a file set (the one read last, where two did: where
// the contradiction appeared). Options are found by their labels, as every
// message names them: "-d/--depth", "--threads", "-q", "-T".
std::string located(const std::string& message, const Origins& from_file) {
  const Origin* where = nullptr;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = 0; i < message.size(); ++i) {
    // A quoted value ('-d', as a user typed it) names no option; an
    // apostrophe inside a word (preset T1's tree) opens no quote.
    if (message[i] == '\'' && (i == 0 || !word(message[i - 1]))) {
      std::size_t close = message.find('\'', i + 1);
      while (close != std::string::npos && close + 1 < message.size() && word(message[close + 1]))
        close = message.find('\'', close + 1);
      if (close == std::string::npos) break;
      i = close;
      continue;
    }
    if (message[i] != '-' || (i > 0 && (word(message[i - 1]) || message[i - 1] == '-'))) continue;
    std::string name;
    if (message.compare(i, 2, "--") == 0) {
      std::size_t j = i + 2;
      while (j < message.size() && (word(message[j]) || message[j] == '-')) ++j;
      name = message.substr(i + 2, j - i - 2);
      while (!name.empty() && name.back() == '-') name.pop_back();
    } else if (i + 1 < message.size() && word(message[i + 1]) &&
               (i + 2 == message.size() || !word(message[i + 2]))) {
      name = message.substr(i + 1, 1);
    }
    const OptionSpec* spec = name.empty() ? nullptr : find_option(name);
    if (!spec) continue;
    const auto it = from_file.find(spec->name);
    if (it != from_file.end() && (!where || it->second.order > where->order)) where = &it->second;
  }
  if (!where) return message;
  return where->entry.file + ":" + std::to_string(where->entry.line) + ": " + message;
}

}  // namespace

RunConfig parse_command_line(int argc, const char* const* argv, const ThreadDefault& threads) {
  cxxopts::Options options = make_options();
  std::vector<std::string> command_line(argv, argv + argc);
  if (command_line.empty()) command_line.emplace_back("uts");
  RunConfig cfg;
  cfg.command_line = command_line;  // as given, for the record
  command_line = normalize_tokens(command_line);

  // First pass: the command line alone, to find --preset/--config.
  const auto first = parse_tokens(options, command_line);
  if (flag_on(first, "help")) {
    cfg.show_help = true;
    cfg.help_text = options.help();
    return cfg;
  }
  if (flag_on(first, "version")) {
    cfg.show_version = true;
    return cfg;
  }
  if (flag_on(first, "list-presets")) {
    cfg.show_presets = true;
    return cfg;
  }
  if (flag_on(first, "list-schedulers")) {
    cfg.show_schedulers = true;
    return cfg;
  }
  check_spellings_agree(first);

  // Files underneath, the command line on top (the last value wins).
  std::vector<std::string> preset_tokens, config_tokens;
  std::vector<ConfigEntry> file_entries;  // preset's, then config's: later ones win
  if (first.count("preset")) {
    const std::string path = find_preset(value_of<std::string>(first, "preset"));
    cfg.preset = std::filesystem::path(path).stem().string();  // the file's spelling (names are case-insensitive)
    file_entries = append_file_tokens(options, path, preset_tokens);
  }
  if (first.count("config")) {
    cfg.config_file = value_of<std::string>(first, "config");
    for (ConfigEntry& e : append_file_tokens(options, cfg.config_file, config_tokens))
      file_entries.push_back(std::move(e));
  }
  // The file line each value the run uses came from, for the options a file
  // set and the command line did not (-T sets threads, -c steal).
  Origins from_file;
  for (std::size_t i = 0; i < file_entries.size(); ++i) from_file[file_entries[i].key] = {file_entries[i], i};
  for (const auto& kv : first.arguments()) from_file.erase(kv.key());
  if (first.count("T")) from_file.erase("threads");
  if (first.count("chunk")) from_file.erase("steal");

  // Every value was checked on its own (a file's with its file:line);
  // what fails from here on is a value in the company of the others, and
  // the message names the options concerned. Where a file set one of them,
  // the message names that file:line as well (located()).
  try {
    auto assemble = [&](const std::vector<std::string>& preset_part) {
      std::vector<std::string> t{command_line.front()};
      t.insert(t.end(), preset_part.begin(), preset_part.end());
      t.insert(t.end(), config_tokens.begin(), config_tokens.end());
      t.insert(t.end(), command_line.begin() + 1, command_line.end());
      return t;
    };
    auto r = parse_tokens(options, assemble(preset_tokens));
    // A preset names a tree and its expected values. When the tree parameters
    // given on top of it (command line or --config) make another tree, the
    // record must not carry the preset's name nor its expected values
    // (docs/output.md, "Presets"): the name moves to preset_base and the
    // expected values are those given explicitly, if any.
    if (!cfg.preset.empty()) {
      std::vector<std::string> preset_alone{command_line.front()};
      preset_alone.insert(preset_alone.end(), preset_tokens.begin(), preset_tokens.end());
      TreeParams preset_tree, final_tree;
      fill_tree(parse_tokens(options, preset_alone), preset_tree);
      fill_tree(r, final_tree);
      if (!same_tree(preset_tree, final_tree)) {
        cfg.preset_base = cfg.preset;
        cfg.preset.clear();
        std::vector<std::string> without_expected;
        for (const std::string& t : preset_tokens)  // one --key=value token per entry
          if (t.rfind("--expect-", 0) != 0) without_expected.push_back(t);
        r = parse_tokens(options, assemble(without_expected));
      }
    }

    for (const auto& kv : first.arguments()) cfg.given.insert(kv.key());
    fill_config(r, cfg, threads.threads);
    cfg.threads_from = r.count("threads") || r.count("T") ? (first.count("threads") || first.count("T") ? "--threads"
                                                                                                         : "--threads (file)")
                                                        : threads.source;
    // OMP_THREAD_LIMIT caps OpenMP's threads only (not oneTBB's).
    const SchedulerEntry* scheduler = find_scheduler(cfg.engine.scheduler.name);
    if (!cfg.engine.sequential && (!scheduler || scheduler->openmp_threads) && cfg.engine.threads > threads.limit)
      throw UsageError(label(first.count("T") ? "T" : "threads") + " " + std::to_string(cfg.engine.threads) +
                       ": OpenMP allows only " + std::to_string(threads.limit) +
                       (threads.limit == 1 ? " thread" : " threads") + " here (OMP_THREAD_LIMIT)");
    check_locality(first, r, cfg.engine);
    if (cfg.engine.ranks.poll_max < cfg.engine.ranks.poll)
      throw UsageError("--rank-poll-max " + std::to_string(cfg.engine.ranks.poll_max) + " is below --rank-poll " +
                       std::to_string(cfg.engine.ranks.poll));
    fill_pool(r, cfg);
    check_applicability(first, r, cfg);
    try {
      validate(cfg.tree, cfg.stop.max_nodes != 0);
    } catch (const std::invalid_argument& err) {
      throw UsageError(err.what());
    }
    return cfg;
  } catch (const UsageError& err) {
    throw UsageError(located(err.what(), from_file));
  }
}

}  // namespace uts::cli
