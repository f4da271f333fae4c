// Every command-line option, once: its names, group, help, argument and
// default, and whether a config or preset file may set it. The cxxopts parser,
// the file-key check, the one-letter file keys and the labels in error
// messages are all built from this table.
#pragma once

#include <cxxopts.hpp>

#include <span>
#include <string>
#include <string_view>

namespace uts::cli {

struct OptionSpec {
  const char* name;      // the long name ("tree"); a short-only option has its letter ("T")
  char letter;           // the short name ('t'), or 0
  const char* group;     // the --help section
  const char* help;      // may hold {protocols}, {protocol steals}, {protocol victims}: filled from the registry
  const char* arg;       // the argument's name in --help ("N"); "" for the default; nullptr: a flag
  const char* fallback;  // the default value, or nullptr
  bool in_files;         // a config or preset file may set it
  const char* implicit = nullptr;  // the value when given without one (-v alone)
};

std::span<const OptionSpec> option_specs();
// By long name, or by one letter (a file's "q = 0.2"); nullptr if none.
const OptionSpec* find_option(std::string_view name);
// The parser, built from the table.
cxxopts::Options make_options();
// How an error message names an option: "-b/--b0", "--threads", "-T".
std::string label(const std::string& name);

}  // namespace uts::cli
