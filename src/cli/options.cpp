#include "cli/options.hpp"

#include <cxxopts.hpp>

#include <stdexcept>
#include <vector>

#include "cli/argv.hpp"
#include "cli/config_file.hpp"
#include "cli/convert.hpp"
#include "cli/option_table.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"

namespace uts::cli {

const char* to_string(Format f) {
  switch (f) {
    case Format::text: return "text";
    case Format::json: return "json";
    case Format::csv: return "csv";
  }
  return "?";
}

RunConfig parse_command_line(int argc, const char* const* argv, const ThreadDefault& threads) {
  cxxopts::Options options = make_options();
  std::vector<std::string> command_line(argv, argv + argc);
  if (command_line.empty()) command_line.emplace_back("uts");
  command_line = join_verbose_levels(command_line);

  // First pass: the command line alone, to find --preset/--config.
  const auto first = parse_tokens(options, command_line);
  RunConfig cfg;
  if (first.count("help")) {
    cfg.show_help = true;
    cfg.help_text = options.help();
    return cfg;
  }
  if (first.count("version")) {
    cfg.show_version = true;
    return cfg;
  }
  if (first.count("list-presets")) {
    cfg.show_presets = true;
    return cfg;
  }
  check_spellings_agree(first);

  // Files underneath, the command line on top (the last value wins).
  std::vector<std::string> tokens{command_line.front()};
  if (first.count("preset")) {
    cfg.preset = value_of<std::string>(first, "preset");
    append_file_tokens(options, find_preset(cfg.preset), tokens);
  }
  if (first.count("config")) {
    cfg.config_file = value_of<std::string>(first, "config");
    append_file_tokens(options, cfg.config_file, tokens);
  }
  tokens.insert(tokens.end(), command_line.begin() + 1, command_line.end());
  const auto r = parse_tokens(options, tokens);

  for (const auto& kv : first.arguments()) cfg.given.insert(kv.key());
  fill_config(r, cfg, threads.threads);
  cfg.threads_from = r.count("threads") || r.count("T") ? (first.count("threads") || first.count("T") ? "--threads"
                                                                                                       : "--threads (file)")
                                                      : threads.source;
  if (!cfg.engine.sequential && cfg.engine.threads > threads.limit)
    throw UsageError(label(first.count("T") ? "T" : "threads") + " " + std::to_string(cfg.engine.threads) +
                     ": OpenMP allows only " + std::to_string(threads.limit) +
                     (threads.limit == 1 ? " thread" : " threads") + " here (OMP_THREAD_LIMIT)");
  check_locality(first, r, cfg.engine);
  fill_pool(r, cfg);
  check_applicability(first, r, cfg);
  try {
    validate(cfg.tree, cfg.stop.max_nodes != 0);
  } catch (const std::invalid_argument& err) {
    throw UsageError(err.what());
  }
  return cfg;
}

}  // namespace uts::cli
