// The options by concern, each section converting and checking its own
// values into a RunConfig. Every value is checked on its own first (a config
// file's line alone, so the error can name file:line); combinations are
// checked once, on the merged command line and files.
#pragma once

#include <cxxopts.hpp>

#include "cli/options.hpp"
#include "steal/protocol.hpp"

namespace uts::cli {

// Each option's value on its own (the tree, engine, locality, rank and output
// sections, in that order).
void fill_tree(const cxxopts::ParseResult& r, TreeParams& t);
void fill_engine(const cxxopts::ParseResult& r, EngineSettings& e, int default_threads);
void fill_locality(const cxxopts::ParseResult& r, EngineSettings& e);
void fill_output(const cxxopts::ParseResult& r, RunConfig& cfg);
inline void fill_config(const cxxopts::ParseResult& r, RunConfig& cfg, int default_threads = 1) {
  fill_tree(r, cfg.tree);
  fill_engine(r, cfg.engine, default_threads);
  fill_locality(r, cfg.engine);
  fill_output(r, cfg);
}

// Combinations, on the merged command line and files.
void check_locality(const cxxopts::ParseResult& command_line, const cxxopts::ParseResult& r, EngineSettings& e);
void fill_pool(const cxxopts::ParseResult& r, RunConfig& cfg);
// Options that do not apply to this run: refused when given on the command
// line, recorded in cfg.ignored when a file set them.
void check_applicability(const cxxopts::ParseResult& command_line, const cxxopts::ParseResult& merged,
                         RunConfig& cfg);

// Refuses a steal amount the protocol cannot honour; `given` is how the user
// spelled it ("--steal half", "-c 8").
void check_protocol_steal(const ProtocolTraits& p, const StealPolicy& steal, const std::string& given);

// -c K and --steal chunk:K, -T N and --threads N: given both on the command
// line, they must agree.
void check_spellings_agree(const cxxopts::ParseResult& command_line);

}  // namespace uts::cli
