// The batch job and the OpenMP environment of a run (batch.hpp): read from
// the environment list, and rendered for the records.
#include "report/batch.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string_view>

#include "base/printable.hpp"
#include "report/text_util.hpp"

extern char** environ;

namespace uts {

namespace {

using Env = std::map<std::string, std::string, std::less<>>;

// The first of `names` that is set (Slurm sets some under two names, the
// older one kept for old scripts).
std::optional<std::string> first_of(const Env& env, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    const auto it = env.find(n);
    if (it != env.end()) return printable(it->second);
  }
  return std::nullopt;
}

// A count: decimal digits and nothing else; anything else (empty, a sign,
// "2(x3)") is not a count and leaves the field empty rather than guessed.
std::optional<std::int64_t> count_of(const Env& env, std::initializer_list<std::string_view> names) {
  const auto text = first_of(env, names);
  if (!text || text->empty() || text->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

// A job id: set and not empty (`SLURM_JOB_ID= uts ...` is how one runs
// outside the job from inside it).
std::optional<std::string> job_id_of(const Env& env, std::initializer_list<std::string_view> names) {
  auto id = first_of(env, names);
  return id && !id->empty() ? id : std::nullopt;
}

bool runtime_name(std::string_view name) {
  return name.starts_with("OMP_") || name.starts_with("GOMP_") || name.starts_with("KMP_");
}

std::string json_or_null(const std::optional<std::string>& v) { return v ? fmt::json_string(*v) : "null"; }
std::string json_or_null(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "null"; }

std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

RunEnvironment run_environment_of(const std::vector<std::string>& entries) {
  Env env;
  for (const std::string& e : entries) {
    const auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    env.emplace(e.substr(0, eq), e.substr(eq + 1));  // the first of a name wins, as for getenv
  }
  RunEnvironment out;
  if (const auto slurm = job_id_of(env, {"SLURM_JOB_ID", "SLURM_JOBID"})) {
    BatchJob j;
    j.system = "slurm";
    j.job_id = *slurm;
    j.job_name = first_of(env, {"SLURM_JOB_NAME"});
    j.step_id = first_of(env, {"SLURM_STEP_ID", "SLURM_STEPID"});
    j.nodes = count_of(env, {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"});
    j.node_list = first_of(env, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
    j.tasks = count_of(env, {"SLURM_NTASKS", "SLURM_NPROCS"});
    j.cpus_per_task = count_of(env, {"SLURM_CPUS_PER_TASK"});
    j.cpu_bind = first_of(env, {"SLURM_CPU_BIND"});
    j.partition = first_of(env, {"SLURM_JOB_PARTITION"});
    out.batch = std::move(j);
  } else {
    // Other systems: which one, and the job; their other variables differ
    // too much from Slurm's to be mapped onto the same fields.
    static constexpr std::pair<std::string_view, std::string_view> kOthers[] = {
        {"PBS_JOBID", "pbs"}, {"LSB_JOBID", "lsf"}, {"FLUX_JOB_ID", "flux"}};
    for (const auto& [name, system] : kOthers) {
      if (const auto id = job_id_of(env, {name})) {
        out.batch = BatchJob{std::string(system), *id, {}, {}, {}, {}, {}, {}, {}, {}};
        break;
      }
    }
  }
  for (const auto& [name, value] : env)  // the map keeps names sorted
    if (runtime_name(name)) out.runtime_env.emplace_back(printable(name), printable(value));
  return out;
}

const RunEnvironment& start_environment() {
  static const RunEnvironment read = [] {
    std::vector<std::string> entries;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) entries.emplace_back(*e);
    return run_environment_of(entries);
  }();
  return read;
}

std::string batch_json(const RunEnvironment& e) {
  if (!e.batch) return "null";
  const BatchJob& j = *e.batch;
  std::ostringstream s;
  s << "{\"system\":" << fmt::json_string(j.system) << ",\"job_id\":" << fmt::json_string(j.job_id)
    << ",\"job_name\":" << json_or_null(j.job_name) << ",\"step_id\":" << json_or_null(j.step_id)
    << ",\"nodes\":" << json_or_null(j.nodes) << ",\"node_list\":" << json_or_null(j.node_list)
    << ",\"tasks\":" << json_or_null(j.tasks) << ",\"cpus_per_task\":" << json_or_null(j.cpus_per_task)
    << ",\"cpu_bind\":" << json_or_null(j.cpu_bind) << ",\"partition\":" << json_or_null(j.partition) << "}";
  return s.str();
}

std::string runtime_env_json(const RunEnvironment& e) {
  std::string out = "{";
  for (std::size_t i = 0; i < e.runtime_env.size(); ++i) {
    if (i) out += ',';
    out += fmt::json_string(e.runtime_env[i].first) + ":" + fmt::json_string(e.runtime_env[i].second);
  }
  return out + "}";
}

std::string runtime_env_list(const RunEnvironment& e) {
  std::string out;
  for (const auto& [name, value] : e.runtime_env) {
    if (!out.empty()) out += ';';
    out += name + "=" + value;
  }
  return out;
}

std::string batch_text(const RunEnvironment& e) {
  std::ostringstream s;
  if (e.batch) {
    const BatchJob& j = *e.batch;
    const char* shown = j.system == "slurm" ? "Slurm" : j.system == "pbs" ? "PBS" : j.system == "lsf" ? "LSF" : "Flux";
    s << "Batch: " << shown << " job " << j.job_id;
    if (j.job_name) s << " \"" << *j.job_name << "\"";
    if (j.step_id) s << " (step " << *j.step_id << ")";
    if (j.partition) s << " in partition " << *j.partition;
    if (j.nodes) s << ", " << plural(*j.nodes, "node", "nodes");
    if (j.node_list) s << (j.nodes ? " (" : ", nodes ") << *j.node_list << (j.nodes ? ")" : "");
    if (j.tasks) s << ", " << plural(*j.tasks, "task", "tasks");
    if (j.cpus_per_task) s << ", " << plural(*j.cpus_per_task, "CPU", "CPUs") << " per task";
    if (j.cpu_bind) s << ", cpu-bind " << *j.cpu_bind;
    s << "\n";
  }
  if (!e.runtime_env.empty()) {
    s << "Environment:";
    for (const auto& [name, value] : e.runtime_env) s << " " << name << "=" << value;
    s << "\n";
  }
  return s.str();
}

}  // namespace uts
