// The CPU signature in every record (machine.cpu_signature): read from the
// first processor's block of /proc/cpuinfo, whatever the padding of its
// field names, and "unknown" where the kernel prints no family or model;
// the batch job and the OMP_*, GOMP_*, KMP_* variables, from an environment.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "report/batch.hpp"
#include "report/machine.hpp"

using namespace uts;

namespace {
std::string signature(const std::string& text) {
  std::istringstream in(text);
  return cpu_signature_of(in);
}
}  // namespace

TEST_CASE("cpu_signature_of: vendor, family, model and stepping of the first processor") {
  const std::string zen5 =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
      "model name\t: AMD EPYC\nstepping\t: 1\nflags\t\t: fpu sha_ni\n\n"
      "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\nstepping\t: 8\n\n";
  CHECK(signature(zen5) == "AuthenticAMD family 26 model 2 stepping 1");
  // "model name" is not "model", in either order.
  CHECK(signature("model name\t: X\ncpu family\t: 25\nmodel\t\t: 17\n") == "family 25 model 17");
  CHECK(signature("cpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC 9654\n") == "family 25 model 17");
  // The second processor's fields never fill in the first's.
  CHECK(signature("processor\t: 0\ncpu family\t: 6\n\nprocessor\t: 1\nmodel\t\t: 85\n") == "unknown");
}

TEST_CASE("cpu_signature_of: unknown without a family and a model") {
  // An arm64 kernel's fields.
  CHECK(signature("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n") ==
        "unknown");
  CHECK(signature("") == "unknown");
  CHECK(signature("cpu family\t: 6\n") == "unknown");
  CHECK(signature("cpu family\t:\nmodel\t\t: 3\n") == "unknown");
}

// The batch job and the OpenMP environment every record carries
// (report/batch.hpp): a pure function of the environment list.
namespace {
RunEnvironment env_of(std::vector<std::string> entries) { return run_environment_of(entries); }
}  // namespace

TEST_CASE("run_environment_of: outside a batch job, no batch; runtime_env empty, not absent") {
  const RunEnvironment e = env_of({"PATH=/usr/bin", "HOME=/root", "OMPI_COMM_WORLD_RANK=0", "MY_OMP_X=1"});
  CHECK_FALSE(e.batch.has_value());
  CHECK(e.runtime_env.empty());  // OMPI_ and a name that only contains OMP_ are not the runtime's
  CHECK(batch_json(e) == "null");
  CHECK(runtime_env_json(e) == "{}");
  CHECK(runtime_env_list(e).empty());
  CHECK(batch_text(e).empty());
}

TEST_CASE("run_environment_of: a Slurm job step, numbers parsed") {
  const RunEnvironment e =
      env_of({"SLURM_JOB_ID=12", "SLURM_JOB_NAME=sweep", "SLURM_STEP_ID=0", "SLURM_JOB_NUM_NODES=1",
              "SLURM_JOB_NODELIST=node[1-2]", "SLURM_NTASKS=2", "SLURM_CPUS_PER_TASK=1",
              "SLURM_CPU_BIND=quiet,mask_cpu:0x1", "SLURM_JOB_PARTITION=debug", "OMP_NUM_THREADS=2"});
  REQUIRE(e.batch.has_value());
  const BatchJob& j = *e.batch;
  CHECK(j.system == "slurm");
  CHECK(j.job_id == "12");
  CHECK(j.job_name == std::optional<std::string>("sweep"));
  CHECK(j.step_id == std::optional<std::string>("0"));
  CHECK(j.nodes == std::optional<std::int64_t>(1));
  CHECK(j.tasks == std::optional<std::int64_t>(2));
  CHECK(j.cpus_per_task == std::optional<std::int64_t>(1));
  CHECK(j.cpu_bind == std::optional<std::string>("quiet,mask_cpu:0x1"));
  CHECK(batch_json(e) ==
        "{\"system\":\"slurm\",\"job_id\":\"12\",\"job_name\":\"sweep\",\"step_id\":\"0\",\"nodes\":1,"
        "\"node_list\":\"node[1-2]\",\"tasks\":2,\"cpus_per_task\":1,\"cpu_bind\":\"quiet,mask_cpu:0x1\","
        "\"partition\":\"debug\"}");
  CHECK(batch_text(e) ==
        "Batch: Slurm job 12 \"sweep\" (step 0) in partition debug, 1 node (node[1-2]), 2 tasks, 1 CPU per task, "
        "cpu-bind quiet,mask_cpu:0x1\nEnvironment: OMP_NUM_THREADS=2\n");
}

TEST_CASE("run_environment_of: Slurm fields not set, or not numbers, are null") {
  // sbatch without --cpus-per-task, outside any srun step; a count Slurm
  // writes in its compressed form is not a count.
  const RunEnvironment e = env_of({"SLURM_JOB_ID=7", "SLURM_NNODES=3", "SLURM_NTASKS=2(x3)", "SLURM_CPUS_PER_TASK=-1"});
  REQUIRE(e.batch.has_value());
  CHECK(e.batch->nodes == std::optional<std::int64_t>(3));  // the older name, when the newer is absent
  CHECK_FALSE(e.batch->tasks.has_value());
  CHECK_FALSE(e.batch->cpus_per_task.has_value());
  CHECK_FALSE(e.batch->step_id.has_value());
  CHECK_FALSE(e.batch->cpu_bind.has_value());
  CHECK(batch_json(e) ==
        "{\"system\":\"slurm\",\"job_id\":\"7\",\"job_name\":null,\"step_id\":null,\"nodes\":3,\"node_list\":null,"
        "\"tasks\":null,\"cpus_per_task\":null,\"cpu_bind\":null,\"partition\":null}");
  CHECK(batch_text(e) == "Batch: Slurm job 7, 3 nodes\n");
  CHECK_FALSE(env_of({"SLURM_CPUS_PER_TASK=4", "SLURM_NTASKS=2"}).batch.has_value());  // no job id: no job
  CHECK_FALSE(env_of({"SLURM_JOB_ID=", "PBS_JOBID="}).batch.has_value());     // empty: no job either
}

TEST_CASE("run_environment_of: other batch systems give their name and job id") {
  CHECK(env_of({"PBS_JOBID=42.server"}).batch->system == "pbs");
  CHECK(env_of({"PBS_JOBID=42.server"}).batch->job_id == "42.server");
  CHECK(env_of({"LSB_JOBID=9"}).batch->system == "lsf");
  CHECK(env_of({"FLUX_JOB_ID=f3x"}).batch->system == "flux");
  CHECK(batch_text(env_of({"LSB_JOBID=9"})) == "Batch: LSF job 9\n");
  // Slurm inside another system's job: the Slurm job is the run's.
  CHECK(env_of({"PBS_JOBID=1", "SLURM_JOB_ID=2"}).batch->system == "slurm");
}

TEST_CASE("run_environment_of: runtime_env sorted, control characters escaped, JSON well formed") {
  const RunEnvironment e = env_of({"OMP_PLACES=cores", "KMP_AFFINITY=compact", "GOMP_SPINCOUNT=0", "OMP_NOTE=a\nb\"c",
                                   "OMP_PLACES=threads", "NOEQUALS", "OMP_EMPTY="});
  REQUIRE(e.runtime_env.size() == 5);
  CHECK(e.runtime_env[0].first == "GOMP_SPINCOUNT");
  CHECK(e.runtime_env[1].first == "KMP_AFFINITY");
  CHECK(e.runtime_env[2].first == "OMP_EMPTY");
  CHECK(e.runtime_env[3] == std::pair<std::string, std::string>("OMP_NOTE", "a\\nb\"c"));
  CHECK(e.runtime_env[4].second == "cores");  // the first of a name, as getenv finds it
  CHECK(runtime_env_json(e) ==
        "{\"GOMP_SPINCOUNT\":\"0\",\"KMP_AFFINITY\":\"compact\",\"OMP_EMPTY\":\"\",\"OMP_NOTE\":\"a\\\\nb\\\"c\","
        "\"OMP_PLACES\":\"cores\"}");
  CHECK(runtime_env_list(e) == "GOMP_SPINCOUNT=0;KMP_AFFINITY=compact;OMP_EMPTY=;OMP_NOTE=a\\nb\"c;OMP_PLACES=cores");
  // A job name is the user's text too: one line stays one line.
  CHECK(batch_text(env_of({"SLURM_JOB_ID=3", "SLURM_JOB_NAME=x\ruts: fake"})) == "Batch: Slurm job 3 \"x\\ruts: fake\"\n");
}
