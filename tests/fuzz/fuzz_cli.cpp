// Fuzz target: the command-line parser. Bytes become an argv (split on NUL
// or newline); parse_command_line must refuse it with one clean UsageError
// line or return a RunConfig that holds the invariants the run relies on.
#include <cmath>
#include <exception>

#include "cli/options.hpp"
#include "cli/usage_error.hpp"
#include "fuzz_target.hpp"

namespace {

constexpr const char* kTarget = "cli";

void check_config(const uts::cli::RunConfig& cfg, const std::vector<std::string>& args) {
  using uts::fuzz::check;
  check(cfg.command_line == args, kTarget, "the record's command line is not the argv given");
  if (cfg.show_help) {
    check(!cfg.help_text.empty(), kTarget, "--help with an empty help text");
    return;
  }
  if (cfg.show_version || cfg.show_presets) return;
  const auto& e = cfg.engine;
  check(e.threads >= 1 && e.threads <= 4096, kTarget, "threads " + std::to_string(e.threads) + " outside 1..4096");
  const auto& t = cfg.tree;
  const int type = static_cast<int>(t.type), shape = static_cast<int>(t.shape);
  check(type >= 0 && type <= 3, kTarget, "an unknown tree type " + std::to_string(type));
  check(shape >= 0 && shape <= 3, kTarget, "an unknown shape " + std::to_string(shape));
  check(t.rng == uts::RngConvention::uts || t.rng == uts::RngConvention::paper2003, kTarget, "an unknown --rng");
  check(std::isfinite(t.b0) && t.b0 > 0, kTarget, "b0 not a positive number");
  check(t.depth >= 0 && t.granularity >= 1, kTarget, "a negative depth or a granularity below 1");
  check(t.rng == uts::RngConvention::paper2003 || (t.seed >= INT32_MIN && t.seed <= INT32_MAX), kTarget,
        "a seed outside 32 bits");
  const int format = static_cast<int>(cfg.format);
  check(format >= 0 && format <= 2, kTarget, "an unknown format");
  // What the parser returned, validate accepts: the run does not stop on it.
  try {
    uts::validate(t, cfg.stop.max_nodes != 0);
  } catch (const std::exception& err) {
    uts::fuzz::broken(kTarget, std::string("accepted a tree validate refuses: ") + err.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args = uts::fuzz::split_args(data, size);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  // A fixed thread default: the environment's (OMP_NUM_THREADS) is
  // thread_default()'s concern, not the parser's, and would make a result
  // depend on the machine.
  const uts::cli::ThreadDefault threads{4, "default", 1 << 30};
  try {
    const uts::cli::RunConfig cfg =
        uts::cli::parse_command_line(static_cast<int>(args.size()), argv.data(), threads);
    check_config(cfg, args);
  } catch (const uts::cli::UsageError& err) {
    uts::fuzz::check(uts::fuzz::one_clean_line(err.what()), kTarget,
                     std::string("a refusal that is not one clean line: '") + err.what() + "'");
  } catch (const std::exception& err) {
    uts::fuzz::broken(kTarget, std::string("an exception other than UsageError: ") + err.what());
  }
  return 0;
}
