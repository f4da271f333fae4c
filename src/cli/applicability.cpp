// One rule for options that do not apply to the run the other options
// describe (docs/output.md, section 5): given on the command line, such an
// option is refused, naming both options (exit 2); set by a preset or config
// file (a shared file may set what one run does not use), it is ignored, and
// the record says so (RunConfig::ignored).
#include <cxxopts.hpp>

#include <string>

#include "cli/convert.hpp"
#include "cli/option_table.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"
#include "schedulers/registry.hpp"

namespace uts::cli {

namespace {

struct Rule {
  const char* option;
  const char* because;  // the option that makes it not apply
  const char* why;      // what the run does instead
  bool (*applies_not)(const RunConfig&);
};

bool sequential(const RunConfig& c) { return c.workload == Workload::uts && c.engine.sequential; }
bool pool(const RunConfig& c) { return c.workload == Workload::pool; }
bool stealing_off(const RunConfig& c) { return c.workload == Workload::uts && !c.engine.sequential && !c.engine.stealing; }

bool rank_random(const RunConfig& c) {
  return c.workload == Workload::uts && !c.engine.sequential && c.engine.ranks.steal == RankSteal::random;
}

bool not_single_pus(const RunConfig& c) {
  return c.engine.bind.policy != BindPolicy::compact && c.engine.bind.policy != BindPolicy::scatter;
}

bool foreign_scheduler(const RunConfig& c) {
  return c.workload == Workload::uts && !c.engine.sequential && c.engine.scheduler.foreign();
}
bool own_scheduler(const RunConfig& c) {
  return c.workload == Workload::uts && !c.engine.sequential && !c.engine.scheduler.foreign();
}
bool counters_unreadable(const RunConfig& c) {
  const SchedulerEntry* s = find_scheduler(c.engine.scheduler.name);
  return foreign_scheduler(c) && s && !s->reads_counters;
}
bool literature_form(const RunConfig& c) {
  return foreign_scheduler(c) && c.engine.scheduler.form == SchedulerForm::literature;
}

const Rule kRules[] = {
    // clang-format off
    {"scheduler", "--sequential", "the sequential baseline is its own loop", sequential},
    {"scheduler-form", "--sequential", "the sequential baseline is its own loop", sequential},
    {"task-grain", "--sequential", "the sequential baseline is its own loop", sequential},
    {"scheduler-form", "--scheduler uts", "the engine's loop has one form", own_scheduler},
    {"task-grain", "--scheduler uts", "the engine's threads share nodes through their deques", own_scheduler},
    {"task-grain", "--scheduler-form literature", "the literature form makes one task per child", literature_form},
    {"protocol", "a --scheduler other than uts", "the runtime's own scheduler moves the tasks", foreign_scheduler},
    {"steal", "a --scheduler other than uts", "the runtime's own scheduler moves the tasks", foreign_scheduler},
    {"chunk", "a --scheduler other than uts", "the runtime's own scheduler moves the tasks", foreign_scheduler},
    {"stealing", "a --scheduler other than uts", "the runtime's own scheduler moves the tasks", foreign_scheduler},
    {"victim", "a --scheduler other than uts", "the runtime's own scheduler chooses victims", foreign_scheduler},
    {"domains", "a --scheduler other than uts", "the runtime's own scheduler knows no domains", foreign_scheduler},
    {"steal-local", "a --scheduler other than uts", "the runtime's own scheduler chooses victims", foreign_scheduler},
    {"steal-remote", "a --scheduler other than uts", "the runtime's own scheduler chooses victims", foreign_scheduler},
    {"remote-delay", "a --scheduler other than uts", "the runtime's own scheduler knows no domains", foreign_scheduler},
    {"init", "a --scheduler other than uts", "the root is the first task", foreign_scheduler},
    {"poll-interval", "a --scheduler other than uts", "no protocol polls for requests", foreign_scheduler},
    {"trace", "a --scheduler other than uts", "its tasks' events are not traced yet (docs/schedulers.md)", foreign_scheduler},
    {"counters", "this --scheduler", "its runtime starts its own worker threads, which uts cannot open counters on",
     counters_unreadable},
    {"trace-events", "a --scheduler other than uts", "its tasks' events are not traced yet (docs/schedulers.md)", foreign_scheduler},
    {"scheduler", "--workload pool", "the pool has no tree to schedule", pool},
    {"scheduler-form", "--workload pool", "the pool has no tree to schedule", pool},
    {"task-grain", "--workload pool", "the pool has no tree to schedule", pool},
    {"threads", "--sequential", "the sequential baseline runs one thread", sequential},
    {"T", "--sequential", "the sequential baseline runs one thread", sequential},
    {"protocol", "--sequential", "the sequential baseline keeps one stack and steals nothing", sequential},
    {"steal", "--sequential", "the sequential baseline steals nothing", sequential},
    {"chunk", "--sequential", "the sequential baseline steals nothing", sequential},
    {"stealing", "--sequential", "the sequential baseline steals nothing", sequential},
    {"victim", "--sequential", "the sequential baseline steals nothing", sequential},
    {"domains", "--sequential", "the sequential baseline has no domains", sequential},
    {"steal-local", "--sequential", "the sequential baseline steals nothing", sequential},
    {"steal-remote", "--sequential", "the sequential baseline steals nothing", sequential},
    {"remote-delay", "--sequential", "the sequential baseline has no domains", sequential},
    {"init", "--sequential", "the sequential baseline starts at the root", sequential},
    {"rank-chunk", "--sequential", "the sequential baseline runs in one process", sequential},
    {"rank-poll", "--sequential", "the sequential baseline runs in one process", sequential},
    {"rank-poll-max", "--sequential", "the sequential baseline runs in one process", sequential},
    {"rank-split", "--sequential", "the sequential baseline runs in one process", sequential},
    {"rank-steal", "--sequential", "the sequential baseline runs in one process", sequential},
    {"rank-w", "--sequential", "the sequential baseline runs in one process", sequential},
    {"rank-l", "--sequential", "the sequential baseline runs in one process", sequential},
    {"rank-termination", "--sequential", "the sequential baseline runs in one process", sequential},

    {"rank-w", "--rank-steal random", "only lifelines make random attempts before going dormant", rank_random},
    {"rank-l", "--rank-steal random", "random stealing has no lifeline graph", rank_random},

    {"steal", "-s 0", "work stealing is off", stealing_off},
    {"rank-steal", "-s 0", "work stealing is off, across ranks too", stealing_off},
    {"rank-split", "-s 0", "work stealing is off, across ranks too", stealing_off},
    {"rank-w", "-s 0", "work stealing is off, across ranks too", stealing_off},
    {"rank-l", "-s 0", "work stealing is off, across ranks too", stealing_off},
    {"victim", "-s 0", "work stealing is off", stealing_off},
    {"steal-local", "-s 0", "work stealing is off", stealing_off},
    {"steal-remote", "-s 0", "work stealing is off", stealing_off},
    {"domains", "-s 0", "work stealing is off, so no steal is local or remote", stealing_off},
    {"remote-delay", "-s 0", "work stealing is off, so no deque is probed", stealing_off},

    {"tree", "--workload pool", "the pool has no tree", pool},
    {"shape", "--workload pool", "the pool has no tree", pool},
    {"b0", "--workload pool", "the pool has no tree", pool},
    {"depth", "--workload pool", "the pool has no tree", pool},
    {"nonleaf-prob", "--workload pool", "the pool has no tree", pool},
    {"nonleaf-children", "--workload pool", "the pool has no tree", pool},
    {"shift", "--workload pool", "the pool has no tree", pool},
    {"granularity", "--workload pool", "the pool has no tree", pool},
    {"rng", "--workload pool", "the pool has no tree", pool},
    {"root-id", "--workload pool", "the pool has no tree", pool},
    {"preset", "--workload pool", "presets describe trees", pool},
    {"verify", "--workload pool", "the pool checks its items itself, every trial", pool},
    {"expect-size", "--workload pool", "the pool has no tree", pool},
    {"expect-depth", "--workload pool", "the pool has no tree", pool},
    {"expect-leaves", "--workload pool", "the pool has no tree", pool},
    {"max-nodes", "--workload pool", "the pool runs --ops operations", pool},
    {"init", "--workload pool", "the pool starts from --fill items", pool},
    {"domains", "--workload pool", "every other segment is remote in the pool", pool},
    {"steal-local", "--workload pool", "the pool has no --victim hier", pool},
    {"steal-remote", "--workload pool", "the pool has no --victim hier", pool},
    {"sha1", "--workload pool", "the pool hashes nothing", pool},
    {"stealing", "--workload pool", "the pool's removes always search", pool},
    {"rank-chunk", "--workload pool", "the pool runs in one process", pool},
    {"rank-poll", "--workload pool", "the pool runs in one process", pool},
    {"rank-poll-max", "--workload pool", "the pool runs in one process", pool},
    {"rank-split", "--workload pool", "the pool runs in one process", pool},
    {"rank-steal", "--workload pool", "the pool runs in one process", pool},
    {"rank-w", "--workload pool", "the pool runs in one process", pool},
    {"rank-l", "--workload pool", "the pool runs in one process", pool},
    {"rank-termination", "--workload pool", "the pool runs in one process", pool},
    {"smt", "--bind other than compact or scatter", "only compact and scatter put threads on single PUs",
     not_single_pus},
    {"progress", "--workload pool", "the pool prints no progress line", pool},
    {"no-progress", "--workload pool", "the pool prints no progress line", pool},
    // clang-format on
};

// The reference's flags stay accepted where its scripts pass them: -c with
// -s 0 is recorded as not applicable, never refused (its run scripts pass
// the same flags whether stealing is on or off).
bool lenient(const Rule& rule) { return std::string(rule.option) == "chunk" && rule.applies_not == stealing_off; }

}  // namespace

void check_applicability(const cxxopts::ParseResult& command_line, const cxxopts::ParseResult& merged,
                         RunConfig& cfg) {
  for (const Rule& rule : kRules) {
    if (!rule.applies_not(cfg) || !is_set(merged, rule.option)) continue;
    // Built with +=: GCC 12 warns falsely (-Wrestrict) on some chains of +.
    std::string text = label(rule.option);
    if (is_set(command_line, rule.option) && !lenient(rule)) {
      text += " does not apply to ";
      text += rule.because;
      text += ": ";
      text += rule.why;
      throw UsageError(text);
    }
    if (find_option(rule.option)->arg) {  // a flag has no value to show
      text += ' ';
      text += value_of<std::string>(merged, rule.option);
    }
    text += " (";
    text += rule.because;
    text += ')';
    cfg.ignored.push_back(text);
  }
}

}  // namespace uts::cli
