#!/usr/bin/python3
"""The batch job and the OpenMP environment in every record (docs/output.md,
section 4a): a plain run given a fake Slurm job step and OMP_*, GOMP_*, KMP_*
variables records them in JSON, CSV (appended columns), -v text, --output
and the pool workload's records; outside a job batch is null, runtime_env
{} and the CSV columns empty; a value holding a newline stays on one line;
a count Slurm did not give as a number is null; the tree is the same. Under
mpirun (when this uts has MPI), the record holds rank 0's values.

With --study SOURCE_ROOT (a one-cell study, a few seconds), instead: a
study's machine.json has the job and the environment it was started with,
and a --resume in another job adds that job to its resumed entry.

usage: test_batch_env.py UTS_BINARY [--study SOURCE_ROOT]
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally

TREE = ["--preset", "T1", "-d", "6", "--threads", "2"]
NEW_CSV = ["batch_system", "batch_job_id", "batch_nodes", "batch_tasks", "batch_cpus_per_task", "batch_cpu_bind",
           "runtime_env"]
# Every variable that could make this test's own environment look like a job.
JOB_PREFIXES = ("OMP_", "GOMP_", "KMP_", "SLURM_", "PBS_", "LSB_", "FLUX_")
CLEAN = {k: v for k, v in os.environ.items() if not k.startswith(JOB_PREFIXES) and k != "SLURM_JOBID"}
SLURM = {"SLURM_JOB_ID": "4242", "SLURM_JOB_NAME": "uts sweep", "SLURM_STEP_ID": "0", "SLURM_JOB_NUM_NODES": "1",
         "SLURM_JOB_NODELIST": "node1", "SLURM_NTASKS": "1", "SLURM_CPUS_PER_TASK": "2",
         "SLURM_CPU_BIND": "quiet,mask_cpu:0x3", "SLURM_JOB_PARTITION": "debug"}
# Values both OpenMP runtimes accept (an invalid OMP_* value is refused,
# test_runtime_input.py); KMP_UTS_NOTE is read by neither, and holds a newline.
RUNTIME = {"OMP_WAIT_POLICY": "passive", "GOMP_SPINCOUNT": "1000", "KMP_UTS_NOTE": "line1\nline2"}
RUNTIME_SHOWN = {"GOMP_SPINCOUNT": "1000", "KMP_UTS_NOTE": "line1\\nline2", "OMP_WAIT_POLICY": "passive"}
BATCH = {"system": "slurm", "job_id": "4242", "job_name": "uts sweep", "step_id": "0", "nodes": 1,
         "node_list": "node1", "tasks": 1, "cpus_per_task": 2, "cpu_bind": "quiet,mask_cpu:0x3", "partition": "debug"}



def batch_cells(header, row):
    """The cells of `row` under the batch columns: NEW_CSV's names, which
    must follow each other in the header (columns appended later come
    after them)."""
    if NEW_CSV[0] not in header:
        return None
    k = header.index(NEW_CSV[0])
    if header[k:k + len(NEW_CSV)] != NEW_CSV:
        return None
    return row[k:k + len(NEW_CSV)]

def run(cmd, env, timeout=300):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, -1, "", "timed out after %ss" % timeout)


def uts(binary, args, extra):
    p = run([binary] + args, dict(CLEAN, **extra))
    if p.returncode != 0:
        raise AssertionError("uts %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def study(binary, root):
    tally = Tally()
    script = os.path.join(root, "scripts", "study")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "study")
        cmd = [sys.executable, script, "scaling", "--trees", "T1", "--threads", "1", "--victim", "random",
               "--reps", "1", "--warmup", "0", "--out", out, "--uts", binary]
        env = dict(CLEAN, PYTHONPATH=os.path.join(root, "scripts"), KMP_UTS_NOTE="study")
        p = run(cmd, dict(env, SLURM_JOB_ID="77", SLURM_JOB_NAME="study"), timeout=600)
        tally.check(p.returncode == 0, "a one-cell study in a Slurm job runs", p.stderr[-1500:])
        facts = {}
        if p.returncode == 0:
            with open(os.path.join(out, "machine.json")) as f:
                facts = json.load(f)
        batch = facts.get("batch") or {}
        tally.check(batch.get("system") == "slurm" and batch.get("job_id") == "77" and batch.get("job_name") == "study",
                    "machine.json: batch is the study's job", repr(facts.get("batch")))
        tally.check(facts.get("runtime_env") == {"KMP_UTS_NOTE": "study"},
                    "machine.json: runtime_env as the study was started", repr(facts.get("runtime_env")))
        p = run(cmd + ["--resume"], dict(env, SLURM_JOB_ID="78"), timeout=600)
        facts = {}
        if p.returncode == 0:
            with open(os.path.join(out, "machine.json")) as f:
                facts = json.load(f)
        resumed = facts.get("resumed") or [{}]
        tally.check(p.returncode == 0 and (facts.get("batch") or {}).get("job_id") == "77"
                    and (resumed[-1].get("batch") or {}).get("job_id") == "78",
                    "--resume in another job: the study keeps its first job, the resumed entry names the new one",
                    repr((facts.get("batch"), resumed)) + p.stderr[-800:])
    return tally.finish()


def main():
    binary = os.path.abspath(sys.argv[1])
    if len(sys.argv) == 4 and sys.argv[2] == "--study":
        return study(binary, sys.argv[3])
    tally = Tally()
    job = dict(SLURM, **RUNTIME)

    # --- Outside a job, nothing set --------------------------------------
    rec = json.loads(uts(binary, TREE + ["--format", "json"], {}))
    tally.check("batch" in rec and rec["batch"] is None, "outside a job: batch is null",
                repr(rec.get("batch", "absent")))
    tally.check(rec.get("runtime_env") == {}, "no OMP_*, GOMP_*, KMP_* set: runtime_env is {} (not null)",
                repr(rec.get("runtime_env", "absent")))
    rows = csv_rows(uts(binary, TREE + ["--format", "csv"], {}))
    tally.check(len(rows) == 2 and batch_cells(rows[0], rows[0]) == NEW_CSV,
                "CSV: the batch columns and runtime_env appended together, in order", repr(rows[0]))
    tally.check(len(rows) == 2 and batch_cells(rows[0], rows[1]) == [""] * len(NEW_CSV),
                "outside a job: the batch columns and runtime_env are empty", repr(rows[1]))
    text = uts(binary, TREE + ["-v"], {})
    tally.check("\nBatch: " not in text and "\nEnvironment: " not in text,
                "outside a job, nothing set: -v prints no Batch: or Environment: line")

    # --- A Slurm job step with OpenMP settings ---------------------------
    rec_job = json.loads(uts(binary, TREE + ["--format", "json"], job))
    tally.check(rec_job.get("batch") == BATCH, "in a Slurm step: batch has every field, counts as numbers",
                repr(rec_job.get("batch")))
    env_rec = rec_job.get("runtime_env") or {}
    tally.check(env_rec == RUNTIME_SHOWN and list(env_rec) == sorted(env_rec),
                "runtime_env: every OMP_*, GOMP_*, KMP_* variable, sorted, the newline escaped", repr(env_rec))
    tally.check(rec_job["results"] == rec["results"], "the tree is the same in and out of a job")
    rows = csv_rows(uts(binary, TREE + ["--format", "csv"], job))
    want = ["slurm", "4242", "1", "1", "2", "quiet,mask_cpu:0x3",
            "GOMP_SPINCOUNT=1000;KMP_UTS_NOTE=line1\\nline2;OMP_WAIT_POLICY=passive"]
    tally.check(len(rows) == 2 and batch_cells(rows[0], rows[1]) == want,
                "CSV: the job's fields and NAME=VALUE;... in the batch columns, one row", repr(rows[-1]))
    text = uts(binary, TREE + ["-v"], job)
    tally.check('Batch: Slurm job 4242 "uts sweep" (step 0) in partition debug, 1 node (node1), 1 task, '
                "2 CPUs per task, cpu-bind quiet,mask_cpu:0x3\n" in text, "-v: the Batch: line", text[-600:])
    tally.check("Environment: GOMP_SPINCOUNT=1000 KMP_UTS_NOTE=line1\\nline2 OMP_WAIT_POLICY=passive\n" in text
                and "\nline2" not in text, "-v: the Environment: line, the newline escaped", text[-600:])
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, name in (("json", "r.jsonl"), ("csv", "r.csv")):
            out = os.path.join(tmp, name)
            uts(binary, TREE + ["--format", fmt, "--output", out], job)
            with open(out) as f:
                saved = f.read()
            if fmt == "json":
                tally.check(json.loads(saved).get("batch") == BATCH, "--output (JSON Lines) carries the batch job")
            else:
                r = csv_rows(saved)
                tally.check(len(r) == 2 and dict(zip(r[0], r[1])).get("batch_job_id") == "4242",
                            "--output (CSV) carries the batch job")

    # Slurm without the optional variables, a count that is not one.
    rec = json.loads(uts(binary, TREE + ["--format", "json"], {"SLURM_JOB_ID": "7", "SLURM_CPUS_PER_TASK": "two"}))
    b = rec.get("batch") or {}
    tally.check(b.get("job_id") == "7" and b.get("system") == "slurm" and b.get("cpus_per_task") is None
                and b.get("step_id") is None and b.get("nodes") is None and len(b) == len(BATCH),
                "a bare SLURM_JOB_ID: the same keys, null where Slurm set nothing (or no number)", repr(b))
    rec = json.loads(uts(binary, TREE + ["--format", "json"], {"PBS_JOBID": "99.server"}))
    tally.check((rec.get("batch") or {}).get("system") == "pbs" and rec["batch"].get("job_id") == "99.server",
                "a PBS job: system pbs and its job id", repr(rec.get("batch")))

    # --- The pool workload ----------------------------------------------
    pool = ["--workload", "pool", "--threads", "2", "--ops", "2000", "--trials", "1"]
    prec = json.loads(uts(binary, pool + ["--format", "json"], job))
    tally.check(prec.get("batch") == BATCH and prec.get("runtime_env") == RUNTIME_SHOWN,
                "pool workload JSON: batch and runtime_env", repr((prec.get("batch"), prec.get("runtime_env"))))
    rows = csv_rows(uts(binary, pool + ["--format", "csv"], job))
    tally.check(len(rows) == 2 and batch_cells(rows[0], rows[0]) == NEW_CSV and batch_cells(rows[0], rows[1]) == want,
                "pool workload CSV: the same columns", repr(rows[-1]))
    text = uts(binary, pool + ["-v"], job)
    tally.check("\nBatch: Slurm job 4242 " in text and "\nEnvironment: GOMP_SPINCOUNT=1000 " in text,
                "pool workload -v: the Batch: and Environment: lines", text[-600:])
    prec = json.loads(uts(binary, pool + ["--format", "json"], {}))
    tally.check("batch" in prec and prec["batch"] is None and prec.get("runtime_env") == {},
                "pool workload outside a job: batch null, runtime_env {}")

    # --- Under mpirun: rank 0's values -----------------------------------
    version = run([binary, "--version"], CLEAN).stdout
    if shutil.which("mpirun") and "with MPI" in version:
        with tempfile.TemporaryDirectory() as tmp:
            wrapper = os.path.join(tmp, "uts-rank")
            with open(wrapper, "w") as f:
                # srun's way: each task its own binding.
                f.write('#!/bin/sh\nSLURM_CPU_BIND="rank${OMPI_COMM_WORLD_RANK}"\nexport SLURM_CPU_BIND\n'
                        'exec "%s" "$@"\n' % binary)
            os.chmod(wrapper, 0o755)
            env = dict(CLEAN, SLURM_JOB_ID="5", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            p = run(["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "-np", "2",
                     wrapper, "--preset", "T1", "-d", "4", "--threads", "1", "--format", "json"], env, timeout=180)
            try:
                b = json.loads(p.stdout).get("batch") or {}
            except ValueError:
                b = {}
            tally.check(p.returncode == 0 and b.get("job_id") == "5" and b.get("cpu_bind") == "rank0",
                        "2 MPI ranks: the record holds rank 0's batch values", "rc=%d %r %s" %
                        (p.returncode, b, p.stderr[-400:]))
    else:
        print("skip  under mpirun: %s" % ("no mpirun" if not shutil.which("mpirun") else "uts built without MPI"))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
