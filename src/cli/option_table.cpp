// The table of every command-line option, and what is built from it
// (option_table.hpp): the cxxopts parser, file-key lookup, error labels.
#include "cli/option_table.hpp"

#include "schedulers/registry.hpp"
#include "steal/registry.hpp"

namespace uts::cli {

namespace {

// The reference's -i, -I and -x are accepted; see docs/output.md, section 5.
const OptionSpec kOptions[] = {
    // clang-format off
    {"tree", 't', "Tree", "tree type: 0|bin|binomial, 1|geo|geometric, 2|hybrid, 3|balanced", "", "geo", true},
    {"shape", 'a', "Tree", "geometric shape: 0|linear, 1|expdec, 2|cyclic, 3|fixed", "", "linear", true},
    {"b0", 'b', "Tree", "root branching factor (binomial) / mean children (geometric, balanced)", "", "4.0", true},
    {"depth", 'd', "Tree", "depth parameter D (geometric, hybrid, balanced)", "", "6", true},
    {"nonleaf-prob", 'q', "Tree", "binomial: probability that a node has m children", "", "0.234375", true},
    {"nonleaf-children", 'm', "Tree", "binomial: number of children of a non-leaf", "", "4", true},
    {"shift", 'f', "Tree", "hybrid: geometric rule below depth shift*D, binomial from there", "", "0.5", true},
    {"seed", 'r', "Tree", "root seed (uts RNG convention)", "", "0", true},
    {"granularity", 'g', "Tree", "SHA-1 evaluations per child (compute granularity)", "", "1", true},
    {"rng", 0, "Tree", "RNG convention: uts (UTS 2.x reference) | paper2003", "", "uts", true},
    {"root-id", 0, "Tree", "paper2003: root id as up to 40 hex digits, right-aligned", "", nullptr, true},
    {"preset", 0, "Tree", "load a tree preset by name (see --list-presets)", "", nullptr, false},
    {"config", 0, "Tree", "load options from a key = value file", "", nullptr, false},
    {"list-presets", 0, "Tree", "list the tree presets and exit", nullptr, nullptr, false},

    {"threads", 0, "Engine", "number of threads (default: OMP_NUM_THREADS or all cores)", "", nullptr, true},
    {"T", 'T', "Engine", "number of threads, as --threads N (the reference's pthreads flag; both given must agree)",
     "N", nullptr, false},
    {"sequential", 0, "Engine", "run the sequential depth-first baseline", nullptr, nullptr, false},
    {"scheduler", 0, "Engine", "who schedules the traversal: {schedulers}", "", "uts", true},
    {"scheduler-form", 0, "Engine",
     "a scheduler other than uts: literature (one task per child and a wait, as BOTS writes UTS) | tuned (a task "
     "expands a local stack through the batched expander and hands half of it to a new task every --task-grain "
     "nodes; default)", "", nullptr, true},
    {"task-grain", 0, "Engine",
     "--scheduler-form tuned: nodes a task expands between two hand-offs, N from 1 to 1000000000 (default: the "
     "scheduler's own: {scheduler grains})", "N", nullptr, true},
    {"list-schedulers", 0, "Engine", "list the schedulers this build has, one name a line, and exit", nullptr,
     nullptr, false},
    {"protocol", 0, "Engine", "steal protocol: {protocols}", "", "{default protocol}", true},
    {"steal", 0, "Engine", "nodes per steal: half | one | chunk:K (default: the protocol's own: {protocol steals})", "",
     nullptr, true},
    {"chunk", 'c', "Engine",
     "nodes per steal, as --steal chunk:K (the reference's chunk size; K from 1 to 999999999; both given must agree)",
     "K", nullptr, true},
    {"stealing", 's', "Engine",
     "work stealing: 1 on (default), 0 off (each thread explores only the nodes it starts with)", "0|1", nullptr, true},
    {"victim", 0, "Engine", "victim selection: random | linear | tree | hier (default: the protocol's own: {protocol victims})",
     "", nullptr, true},
    {"domains", 0, "Engine",
     "locality domains: numa | l3 | package (from hwloc and the threads' binding) | N (N equal virtual domains of "
     "consecutive threads); default numa", "", nullptr, true},
    {"steal-local", 0, "Engine", "--victim hier: nodes per steal inside the domain, half | one | chunk:K (default one)",
     "", nullptr, true},
    {"steal-remote", 0, "Engine", "--victim hier: nodes per steal across domains, half | one | chunk:K (default half)",
     "", nullptr, true},
    {"remote-delay", 0, "Engine",
     "spin NS nanoseconds before every probe of and claim on another domain's deque (emulates remote cost; 0 to "
     "10000000000, default 0)", "NS", nullptr, true},
    {"init", 0, "Engine", "root start: root (thread 0 expands it) | balanced (children split in blocks)", "", "root",
     true},
    {"sha1", 0, "Engine", "child-id hashing: auto (the fastest this CPU has, calibrated at start-up) | avx512 | shani | cryptopp", "", "auto", true},
    {"bind", 0, "Engine",
     "thread placement with hwloc: compact (cores of one package first, one PU per core) | scatter (round-robin over "
     "packages and NUMA nodes) | numa (each thread on a whole NUMA node, in blocks) | none (default: none, or the "
     "OpenMP runtime's binding when OMP_PLACES or OMP_PROC_BIND is set)", "", nullptr, true},
    {"smt", 0, "Engine", "--bind compact or scatter: use every PU of a core (SMT siblings) before the next core",
     nullptr, nullptr, false},
    {"max-nodes", 0, "Engine", "stop after about N nodes and say so (safety valve)", "", nullptr, true},

    {"rank-chunk", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "most nodes one answer to another rank carries (1 to 1000000, default 1024)", "K", nullptr, true},
    {"rank-poll", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "the fewest expansions between two checks for other ranks' messages while thread 0 works (1 to 1000000, default "
     "256; see --rank-poll-max)", "N",
     nullptr, true},
    {"rank-poll-max", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "the longest interval between two such checks: the interval doubles after a check that finds no other rank "
     "asking for nodes and falls back to --rank-poll after one that does; equal to --rank-poll, a fixed interval "
     "(--rank-poll to 16777216, default: the larger of 4096 and --rank-poll)", "M", nullptr, true},
    {"rank-split", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "what an answer or a push to another rank carries of thread 0's nodes: levels (every other node from the "
     "shallow end: half of every level, so both ranks keep about half of the work) | shallowest (the shallowest "
     "half) (default: levels)", "SPLIT", nullptr, true},
    {"rank-steal", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "how a dry rank finds work in other ranks: random (a request to a random rank, again and again) | lifeline "
     "(--rank-w random requests, then a request to each lifeline buddy, then dormant until one pushes work; X10 GLB) "
     "(default: lifeline)", "MODE", nullptr, true},
    {"rank-w", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "--rank-steal lifeline: random requests a dry rank sends before its lifeline requests (0 to 1000000, default 1)",
     "W", nullptr, true},
    {"rank-l", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "--rank-steal lifeline: base of the lifeline graph (a cyclic hypercube: ceil(log_l ranks) buddies per rank; 2 to "
     "1024, default 4)", "L", nullptr, true},
    {"model-rate", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "uts-smpi only: model each simulated rank's computation as R nodes per second of simulated time instead of "
     "timing it (needs smpirun --cfg=smpi/simulate-computation:no; docs/smpi.md)", "R", nullptr, true},
    {"rank-termination", 0, "MPI ranks (under mpirun, in a build with -Dmpi)",
     "how the ranks detect the job's end: ring (Dijkstra-Safra token, 2P hops) | tree (Mattern's four-counter waves "
     "over a 4-ary tree of ranks, O(log P) hops) (default: tree)", "SCHEME", nullptr, true},

    {"barrier-interval", 'i', "Reference compatibility",
     "the reference's barrier polling interval, N from 0 to 2147483647: accepted, no effect here (-v and JSON say not "
     "applicable)", "N", nullptr, true},
    {"poll-interval", 'I', "Reference compatibility",
     "protocols that poll for work requests (request): expansions between two checks, N from 1 to 2147483647 "
     "(default 1); other protocols accept N from 0, as the reference does, with no effect (-v and JSON say not "
     "applicable)", "N", nullptr, true},
    {"debug", 'x', "Reference compatibility",
     "the reference's debug level, N from 0 to 2147483647: accepted, no effect here (-v and JSON say not applicable)",
     "N", nullptr, true},

    {"workload", 0, "Pool workload (--workload pool: the concurrent-pools experiment)",
     "uts (the tree search, default) | pool (Kotz and Ellis's concurrent-pool experiment on split deques)", "", "uts",
     true},
    {"ops", 0, "Pool workload (--workload pool: the concurrent-pools experiment)",
     "pool: operations by all threads together, N from 1 to 1000000000 (default 5000)", "", nullptr, true},
    {"fill", 0, "Pool workload (--workload pool: the concurrent-pools experiment)",
     "pool: items spread over the segments at the start, 0 to 1000000000 (default 320)", "", nullptr, true},
    {"trials", 0, "Pool workload (--workload pool: the concurrent-pools experiment)",
     "pool: repetitions, 1 to 1000000 (default 10)", "", nullptr, true},
    {"mix", 0, "Pool workload (--workload pool: the concurrent-pools experiment)",
     "pool, random model: percent of operations that add, 0 to 100 (default 50)", "", nullptr, true},
    {"producers", 0, "Pool workload (--workload pool: the concurrent-pools experiment)",
     "pool, producer/consumer model: K producers (only add), the other threads only remove; 1 to --threads", "",
     nullptr, true},
    {"arrangement", 0, "Pool workload (--workload pool: the concurrent-pools experiment)",
     "pool: where the producers sit: contiguous (threads 0..K-1, default) | spread (evenly around the ring)", "",
     nullptr, true},

    {"format", 0, "Output", "text | json | csv", "", "text", true},
    {"output", 0, "Output", "append the json (or csv with --format csv) record to FILE", "", nullptr, false},
    {"verify", 0, "Output", "compare with the expected size/depth/leaves; exit 1 on mismatch", nullptr, nullptr, false},
    {"expect-size", 0, "Output", "expected tree size (presets set it)", "", nullptr, true},
    {"expect-depth", 0, "Output", "expected tree depth", "", nullptr, true},
    {"expect-leaves", 0, "Output", "expected number of leaves", "", nullptr, true},
    {"trace", 0, "Output",
     "the tree search: write an event trace to FILE after the run (FILE.json: Chrome/Perfetto trace JSON; "
     "FILE.otf2: an OTF2 archive folder for ViTE/Vampir, in builds with OTF2; docs/trace.md); --workload pool: each "
     "segment's size over time (sampled) as CSV", "", nullptr, false},
    {"trace-events", 0, "Output",
     "--trace: events kept per thread, 1 to 100000000 (default 262144, 8 MiB per thread); later ones are "
     "counted as dropped", "N", nullptr, true},
    {"work-baseline", 0, "Output",
     "work inflation (work time summed over threads / the sequential time): sequential (run --sequential on the "
     "same tree first) | SECONDS (a sequential time measured before)", "", nullptr, true},
    {"counters", 0, "Output",
     "read these counters per thread around the run (perf_event_open), comma-separated: cycles, instructions, "
     "llc-misses, llc-references, branch-misses, branches, task-clock, page-faults, context-switches, "
     "cpu-migrations; where they are not permitted, one line says so and the run goes on", "LIST", nullptr, true},
    {"progress", 0, "Output", "show a live progress line on stderr", nullptr, nullptr, false},
    {"no-progress", 0, "Output", "never show the progress line", nullptr, nullptr, false},
    {"verbose", 'v', "Output",
     "verbosity level N from 0 to 2147483647 (-v alone: 1; repeats add up, -v -v is 2). 1 and above add the "
     "per-thread table and the not-applicable reference flags; levels above 1 print the same as 1", "N", nullptr,
     false, "1"},
    {"help", 'h', "Output", "print this help and exit", nullptr, nullptr, false},
    {"version", 0, "Output", "print the version and exit", nullptr, nullptr, false},
    // clang-format on
};

void replace(std::string& s, std::string_view what, const std::string& with) {
  for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + with.size()))
    s.replace(pos, what.size(), with);
}

// {protocols} and the per-protocol defaults, {schedulers} and their grains,
// from the registries.
std::string filled_help(const char* help) {
  std::string s = help;
  std::string protocols, steals, victims;
  for (const ProtocolTraits* t : all_protocols()) {
    const bool first = protocols.empty();
    protocols += (first ? "" : " | ") + std::string(t->name) + " (" + std::string(t->summary) + ")";
    steals += (first ? "" : ", ") + std::string(t->name) + " " + to_string(t->default_steal);
    victims += (first ? "" : ", ") + std::string(t->name) + " " + to_string(t->default_victim);
  }
  std::string scheds, grains;
  for (const SchedulerEntry* e : schedulers()) {
    scheds += (scheds.empty() ? "" : " | ") + std::string(e->name) + " (" + std::string(e->summary) + ")";
    if (e->has_forms) grains += (grains.empty() ? "" : ", ") + std::string(e->name) + " " + std::to_string(e->default_grain);
  }
  replace(s, "{schedulers}", scheds);
  replace(s, "{scheduler grains}", grains);
  replace(s, "{protocols}", protocols);
  replace(s, "{protocol steals}", steals);
  replace(s, "{protocol victims}", victims);
  return s;
}

}  // namespace

std::span<const OptionSpec> option_specs() { return kOptions; }

const OptionSpec* find_option(std::string_view name) {
  for (const OptionSpec& o : kOptions)
    if (name == o.name || (name.size() == 1 && o.letter == name[0])) return &o;
  return nullptr;
}

cxxopts::Options make_options() {
  cxxopts::Options o("uts", "Unbalanced Tree Search on per-thread deques (OpenMP)");
  o.custom_help("[options]   e.g.  uts -t 1 -a 3 -d 10 -b 4 -r 19   or   uts --preset T1L");
  for (const OptionSpec& spec : kOptions) {
    const std::string name(spec.name);
    const bool short_only = name.size() == 1;
    const std::string names = short_only ? name : spec.letter ? std::string(1, spec.letter) + "," + name : name;
    std::shared_ptr<const cxxopts::Value> value;
    if (spec.implicit) {
      value = cxxopts::value<std::vector<std::string>>()->implicit_value(spec.implicit);
    } else if (spec.arg && spec.fallback) {
      std::string fallback = spec.fallback;
      replace(fallback, "{default protocol}", std::string(default_protocol().name));
      value = cxxopts::value<std::string>()->default_value(fallback);
    } else if (spec.arg) {
      value = cxxopts::value<std::string>();
    } else {
      value = cxxopts::value<bool>();
    }
    o.add_option(spec.group, cxxopts::Option(names, filled_help(spec.help), value, spec.arg ? spec.arg : ""));
  }
  return o;
}

std::string label(const std::string& name) {
  const OptionSpec* spec = find_option(name);
  if (name.size() == 1 || (spec && std::string(spec->name).size() == 1)) return "-" + name;
  if (spec && spec->letter) return std::string("-") + spec->letter + "/--" + name;
  return "--" + name;
}

}  // namespace uts::cli
