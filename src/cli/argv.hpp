// From argv and files to one token list for the parser: the reference's
// `-v N` joined into one token, and a preset's or config file's entries as
// option tokens (each checked on its own first, so its error names file:line).
#pragma once

#include <cxxopts.hpp>

#include <string>
#include <vector>

#include "cli/config_file.hpp"

namespace uts::cli {

// Parse tokens (argv[0] first); a UsageError for anything cxxopts refuses or
// leaves unmatched.
cxxopts::ParseResult parse_tokens(cxxopts::Options& options, const std::vector<std::string>& tokens);

// The command line made regular before cxxopts sees it (the tokens of
// argv[0] onward, "--" and what follows left alone):
// - cxxopts never gives an option with an implicit value (-v) the next token,
//   so `-v 2` would leave a stray "2". A bare -v (or --verbose) and a
//   following token that starts like a number (digit, or sign and digit: no
//   option looks like that) are joined into --verbose=N, and -vN likewise; a
//   bad level then gets -v's own error.
// - A flag's explicit value (`--verify=false`) is checked and written as
//   true or false: a flag takes true, false, 1 or 0 in any case, and anything
//   else is a UsageError naming the flag (cxxopts alone would take "t" and
//   refuse "TRUE" without naming the option).
// Tokens that are another option's value are skipped, so `--output -v`
// still names a file "-v".
std::vector<std::string> normalize_tokens(const std::vector<std::string>& args);

// Append the entries of the file at `path` as option tokens (one
// `--key=value` token each). A file's `chunk = K` becomes
// `steal = chunk:K`, so the later of a file's and the command line's steal
// settings wins as for any other key; a file that sets both must have them
// agree. Returns the entries turned into tokens, each keyed by the long name
// of the option it sets ("steal" for chunk), so that an error found later,
// on the merged options, can name the file:line a value came from.
std::vector<ConfigEntry> append_file_tokens(cxxopts::Options& options, const std::string& path,
                                            std::vector<std::string>& tokens);

}  // namespace uts::cli
