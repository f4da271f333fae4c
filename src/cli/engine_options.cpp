// The engine section of the command line: threads, protocol, steal,
// victim, init, --bind, the reference's parallel flags and the MPI ranks'
// options.
#include <cxxopts.hpp>

#include <cctype>
#include <cstdlib>
#include <limits>
#include <string>

#include "cli/convert.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"
#include "schedulers/registry.hpp"
#include "steal/registry.hpp"

namespace uts::cli {

namespace {

// The reference reads -i, -I and -x as C ints; any int >= 0 is accepted.
constexpr std::int64_t kMaxReferenceInt = std::numeric_limits<int>::max();

// -c K: the reference's chunk size, here --steal chunk:K.
StealPolicy chunk_of(const cxxopts::ParseResult& r) {
  const std::int64_t k = int_in_range(r, "chunk", 1, 999999999);  // parse_steal's range
  return StealPolicy{StealAmount::chunk, static_cast<std::uint32_t>(k)};
}

bool runtime_binds() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  if (bind && *bind) {
    std::string v = bind;
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
    v = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    return v != "false";
  }
  return places && *places;
}

}  // namespace

void check_protocol_steal(const ProtocolTraits& p, const StealPolicy& steal, const std::string& given) {
  if (!p.accepts(steal.amount))
    throw UsageError("--protocol " + std::string(p.name) + " and " + given + " do not go together: " +
                     std::string(p.amount_rule));
}

void fill_engine(const cxxopts::ParseResult& r, EngineSettings& e, int default_threads) {
  e.sequential = flag_on(r, "sequential");
  e.threads = r.count("threads") ? threads_of(r, "threads") : default_threads;
  // -T and -c come only from the command line (files turn chunk into steal),
  // where check_spellings_agree has made sure they agree with --threads and
  // --steal; so they win over any file's value.
  if (r.count("T")) e.threads = threads_of(r, "T");
  const std::string scheduler_name = value_of<std::string>(r, "scheduler");
  const SchedulerEntry* scheduler = find_scheduler(scheduler_name);
  // A scheduler this build left out is named as such, not as unknown.
  if (!scheduler && unbuilt_scheduler(scheduler_name)) throw UsageError(unbuilt_scheduler(scheduler_name));
  if (!scheduler) throw UsageError("--scheduler: '" + scheduler_name + "' is not one of this build's: " + scheduler_names());
  e.scheduler.name = std::string(scheduler->name);
  if (r.count("scheduler-form")) {
    const std::string form = value_of<std::string>(r, "scheduler-form");
    if (form == "literature") e.scheduler.form = SchedulerForm::literature;
    else if (form == "tuned") e.scheduler.form = SchedulerForm::tuned;
    else throw UsageError("--scheduler-form: '" + form + "' is not literature or tuned");
  }
  e.scheduler.grain = scheduler->default_grain;
  if (r.count("task-grain")) e.scheduler.grain = static_cast<std::uint32_t>(int_in_range(r, "task-grain", 1, 1000000000));
  const std::string name = value_of<std::string>(r, "protocol");
  const ProtocolTraits* protocol = name.empty() ? nullptr : find_protocol(name);
  if (!protocol) throw UsageError("--protocol: '" + name + "' is not " + protocol_names());
  e.protocol = std::string(protocol->name);
  e.steal = protocol->default_steal;
  std::string steal_given;  // how the user spelled it, for messages
  if (r.count("steal")) {
    steal_given = "--steal " + value_of<std::string>(r, "steal");
    if (auto v = parse_steal(value_of<std::string>(r, "steal"))) e.steal = *v;
    else throw UsageError("--steal: '" + value_of<std::string>(r, "steal") + "' is not half, one or chunk:K with K >= 1");
  }
  if (r.count("chunk")) {
    e.steal = chunk_of(r);
    steal_given = "-c " + std::to_string(e.steal.chunk);
  }
  if (!steal_given.empty()) check_protocol_steal(*protocol, e.steal, steal_given);
  if (r.count("stealing")) {
    const std::string stealing = value_of<std::string>(r, "stealing");
    if (stealing == "0") e.stealing = false;
    else if (stealing == "1") e.stealing = true;
    else throw UsageError("-s/--stealing: '" + stealing + "' is not 0 (work stealing off) or 1 (on)");
  }
  if (r.count("barrier-interval"))
    e.reference.barrier_interval = int_in_range(r, "barrier-interval", 0, kMaxReferenceInt);
  if (r.count("poll-interval")) {
    if (protocol->polls)
      e.poll_interval = static_cast<std::uint32_t>(int_in_range(r, "poll-interval", 1, kMaxReferenceInt));
    else
      e.reference.poll_interval = int_in_range(r, "poll-interval", 0, kMaxReferenceInt);
  }
  if (r.count("debug")) e.reference.debug_level = int_in_range(r, "debug", 0, kMaxReferenceInt);
  e.victim = protocol->default_victim;
  if (r.count("victim")) {
    const std::string victim = value_of<std::string>(r, "victim");
    if (auto v = parse_victim(victim)) e.victim = *v;
    else throw UsageError("--victim: '" + victim + "' is not random, linear, tree or hier");
  }
  const std::string init = value_of<std::string>(r, "init");
  if (auto v = parse_init(init)) e.init = *v;
  else throw UsageError("--init: '" + init + "' is not root or balanced");
  const std::string sha1_path = value_of<std::string>(r, "sha1");
  if (auto v = sha1::parse_path(sha1_path)) e.sha1 = *v;
  else throw UsageError("--sha1: '" + sha1_path + "' is not auto, avx512, shani or cryptopp");
  // Without --bind: the OpenMP runtime binds when it was asked to
  // (OMP_PROC_BIND other than false, or OMP_PLACES alone, which turns binding
  // on); recorded as "omp". Read from the environment, not the runtime: the
  // runtime is not started before the environment is checked (threads.cpp).
  // A scheduler whose threads are not OpenMP's is not bound by those
  // variables (recorded as none, not omp).
  e.bind.policy = scheduler->openmp_threads && runtime_binds() ? BindPolicy::omp : BindPolicy::none;
  if (r.count("bind")) {
    const std::string bind = value_of<std::string>(r, "bind");
    if (auto v = parse_bind(bind)) e.bind.policy = *v;
    else throw UsageError("--bind: '" + bind + "' is not compact, scatter, numa or none");
  }
  e.bind.smt = flag_on(r, "smt");
  if (r.count("rank-chunk")) e.ranks.chunk = static_cast<std::uint32_t>(int_in_range(r, "rank-chunk", 1, 1000000));
  if (r.count("rank-poll")) e.ranks.poll = static_cast<std::uint32_t>(int_in_range(r, "rank-poll", 1, 1000000));
  e.ranks.poll_max = std::max<std::uint32_t>(4096, e.ranks.poll);
  // Its order against --rank-poll is checked once every source is merged
  // (options.cpp): a file line alone still sees the default --rank-poll.
  if (r.count("rank-poll-max")) e.ranks.poll_max = static_cast<std::uint32_t>(int_in_range(r, "rank-poll-max", 1, 16777216));
  if (r.count("rank-split")) {
    const std::string v = value_of<std::string>(r, "rank-split");
    if (auto m = parse_rank_split(v)) e.ranks.split = *m;
    else throw UsageError("--rank-split: '" + v + "' is not levels or shallowest");
  }
  if (r.count("rank-steal")) {
    const std::string v = value_of<std::string>(r, "rank-steal");
    if (auto m = parse_rank_steal(v)) e.ranks.steal = *m;
    else throw UsageError("--rank-steal: '" + v + "' is not random or lifeline");
  }
  if (r.count("model-rate")) e.ranks.model_rate = static_cast<double>(int_in_range(r, "model-rate", 1, 100000000000));
  if (r.count("rank-w")) e.ranks.w = static_cast<std::uint32_t>(int_in_range(r, "rank-w", 0, 1000000));
  if (r.count("rank-l")) e.ranks.l = static_cast<std::uint32_t>(int_in_range(r, "rank-l", 2, 1024));
  if (r.count("rank-termination")) {
    const std::string v = value_of<std::string>(r, "rank-termination");
    if (auto m = parse_rank_termination(v)) e.ranks.termination = *m;
    else throw UsageError("--rank-termination: '" + v + "' is not ring or tree");
  }
}

void check_spellings_agree(const cxxopts::ParseResult& cl) {
  if (cl.count("chunk") && cl.count("steal")) {
    const StealPolicy chunk = chunk_of(cl);
    const std::string steal = value_of<std::string>(cl, "steal");
    const auto policy = parse_steal(steal);
    if (policy && !(*policy == chunk))
      throw UsageError("-c/--chunk " + std::to_string(chunk.chunk) + " and --steal " + steal +
                       " disagree (-c K means --steal chunk:K)");
  }
  if (cl.count("T") && cl.count("threads")) {
    const int t = threads_of(cl, "T");
    const int threads = threads_of(cl, "threads");
    if (t != threads)
      throw UsageError("-T " + std::to_string(t) + " and --threads " + std::to_string(threads) +
                       " disagree (-T N means --threads N)");
  }
}

}  // namespace uts::cli
