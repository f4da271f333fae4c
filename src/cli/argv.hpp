// From argv and files to one token list for the parser: the reference's
// `-v N` joined into one token, and a preset's or config file's entries as
// option tokens (each checked on its own first, so its error names file:line).
#pragma once

#include <cxxopts.hpp>

#include <string>
#include <vector>

namespace uts::cli {

// Parse tokens (argv[0] first); a UsageError for anything cxxopts refuses or
// leaves unmatched.
cxxopts::ParseResult parse_tokens(cxxopts::Options& options, const std::vector<std::string>& tokens);

// cxxopts never gives an option with an implicit value (-v) the next token,
// so `-v 2` would leave a stray "2". Join a bare -v (or --verbose) with a
// following token that starts like a number (digit, or sign and digit: no
// option looks like that) into --verbose=N, and -vN likewise; a bad level then
// gets -v's own error. Tokens that are another option's value are skipped, so
// `--output -v` still names a file "-v".
std::vector<std::string> join_verbose_levels(const std::vector<std::string>& args);

// Append the entries of the file at `path` as option tokens. A file's
// `chunk = K` becomes `steal = chunk:K`, so the later of a file's and the
// command line's steal settings wins as for any other key; a file that sets
// both must have them agree.
void append_file_tokens(cxxopts::Options& options, const std::string& path, std::vector<std::string>& tokens);

}  // namespace uts::cli
