// The batch job a run belongs to and the OpenMP runtime's environment, read
// from the process environment once, as the program starts: every record
// carries them (docs/output.md, section 4a), so a result on a cluster can be
// traced to its Slurm job and to the OMP_* settings it ran under.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace uts {

// The job, when the process runs inside one. Strings went through
// printable() (a job name may hold any byte); a field the batch system did
// not set (or set to something that is not a number, where one is expected)
// is empty.
struct BatchJob {
  std::string system;  // "slurm", "pbs", "lsf" or "flux"
  std::string job_id;
  // Slurm only: the others record the system and the job id alone.
  std::optional<std::string> job_name, step_id, node_list, cpu_bind, partition;
  std::optional<std::int64_t> nodes, tasks, cpus_per_task;
};

struct RunEnvironment {
  std::optional<BatchJob> batch;  // none outside a batch job
  // Every OMP_*, GOMP_* and KMP_* variable, sorted by name, name and value
  // through printable(); empty when none is set.
  std::vector<std::pair<std::string, std::string>> runtime_env;
};

// From "NAME=VALUE" entries (environ's form; an entry without '=' is
// skipped). Slurm wins when several systems' variables are set (a Slurm job
// started from inside another system's job is the innermost one).
RunEnvironment run_environment_of(const std::vector<std::string>& env);

// This process's environment as main() found it: read at the first call,
// which main() makes first thing, so nothing uts or its libraries set later
// is mistaken for the user's settings.
const RunEnvironment& start_environment();

// The renderings every record shares (tree search and pool).
std::string batch_json(const RunEnvironment& e);        // an object, or null
std::string runtime_env_json(const RunEnvironment& e);  // an object, {} when none
std::string runtime_env_list(const RunEnvironment& e);  // "NAME=VALUE;NAME=VALUE" (CSV)
// -v: "Batch: ..." and "Environment: ..." lines, each only when it has
// something to say.
std::string batch_text(const RunEnvironment& e);

}  // namespace uts
