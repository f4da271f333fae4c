#!/usr/bin/python3
"""The Slurm job scripts (scripts/slurm/, docs/slurm.md) on a real Slurm:
a single-host cluster started here in a temporary folder (munged with its
own key and socket, slurmctld and slurmd on free ports), the sweep, hybrid
and study scripts submitted with sbatch --wait, every result exact, every
record carrying the job (batch.system, batch.job_id) and the OMP_* variables
the script set (runtime_env), the threads pinned; bad input (no binary, an
unknown tree, a binary without MPI, outside a job) one line and exit 2.
Every daemon and job process is stopped, and the folder removed, on the way
out, also on failure or a signal.

Exit 77 (skip) when slurm-wlm or munge is not installed, or when, not being
root, this user cannot start slurmd.

usage: test_slurm.py SOURCE_ROOT UTS_BINARY [--keep]
  --keep  leave the folder (logs, slurm.conf, job output) for a look
"""
import csv
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from uts_check import Tally

PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "srun", "sinfo", "scontrol", "squeue", "scancel")
SCRIPTS = ("sweep.sbatch", "hybrid.sbatch", "study.sbatch")
# Every process started here (daemons, slurmstepd, the jobs) inherits this
# variable: on the way out, whatever still carries it is stopped.
MARK = "UTS_SLURM_TEST_DIR"


class Skip(Exception):
    pass


class NotStarted(Exception):
    pass


def clean_env(**extra):
    """This process's environment without the variables of a Slurm job it
    may itself run in (they would make the scripts think they are in one)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_"))}
    env.update(extra)
    return env


def free_ports(n):
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no %s)" % path


class SingleHostSlurm:
    """munged, slurmctld and slurmd for this host alone, under self.dir."""

    def __init__(self, top):
        self.dir = top
        self.procs = []
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.node = socket.gethostname().split(".")[0]
        self.conf = os.path.join(top, "slurm.conf")
        self.env = clean_env(SLURM_CONF=self.conf, **{MARK: top})
        self.task_plugin = None
        os.makedirs(self.path("log"))

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def spawn(self, name, cmd):
        log = open(self.path("log", name + ".out"), "w")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=self.env, cwd=self.dir)
        log.close()
        self.procs.append((name, p))
        return p

    def start_munge(self):
        # munged wants the socket's folder reachable by all (x) and the key
        # readable by its owner alone.
        mdir = self.path("munge")
        os.makedirs(mdir)
        os.chmod(self.dir, 0o755)
        os.chmod(mdir, 0o755)
        key = os.path.join(mdir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        self.socket = os.path.join(mdir, "munge.socket")
        p = self.spawn("munged", ["munged", "--foreground", "--key-file", key, "--socket", self.socket,
                                  "--pid-file", os.path.join(mdir, "munged.pid"),
                                  "--log-file", os.path.join(mdir, "munged.log"),
                                  "--seed-file", os.path.join(mdir, "munged.seed")])
        for _ in range(100):
            if os.path.exists(self.socket):
                return
            if p.poll() is not None:
                break
            time.sleep(0.1)
        raise Skip("munged does not start here: " + tail(self.path("log", "munged.out"), 3).strip())

    def node_line(self):
        # slurmd -C: this host's real sockets, cores and threads.
        out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, env=self.env).stdout
        first = out.splitlines()[0] if out else ""
        fields = [f for f in first.split() if f.split("=")[0] in
                  ("CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore")]
        if not fields:
            raise Skip("slurmd -C says nothing about this host")
        self.cpus = int([f for f in fields if f.startswith("CPUs=")][0].split("=")[1])
        return "NodeName=%s NodeAddr=127.0.0.1 %s State=UNKNOWN" % (self.node, " ".join(fields))

    def write_conf(self, task_plugin):
        ctld_port, d_port = free_ports(2)
        for d in ("state", "spool", "log"):
            os.makedirs(self.path(d), exist_ok=True)
        lines = [
            "ClusterName=utstest",
            "SlurmctldHost=localhost",
            "SlurmctldPort=%d" % ctld_port,
            "SlurmdPort=%d" % d_port,
            "SlurmUser=" + self.user,
            "SlurmdUser=" + self.user,
            "AuthType=auth/munge",
            "CredType=cred/munge",
            "AuthInfo=socket=" + self.socket,
            "StateSaveLocation=" + self.path("state"),
            "SlurmdSpoolDir=" + self.path("spool"),
            "SlurmctldPidFile=" + self.path("slurmctld.pid"),
            "SlurmdPidFile=" + self.path("slurmd.pid"),
            "SlurmctldLogFile=" + self.path("log", "slurmctld.log"),
            "SlurmdLogFile=" + self.path("log", "slurmd.log"),
            # No cgroups to set up: processes tracked by parent id.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=" + task_plugin,
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "SchedulerType=sched/builtin",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            "ReturnToService=2",
            # sbatch --wait polls every 2 s while MinJobAge/3 is below that
            # (longer, growing waits otherwise).
            "MinJobAge=5",
            "MailProg=/bin/true",
            self.node_line(),
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def node_state(self):
        p = subprocess.run(["sinfo", "-h", "-n", self.node, "-o", "%t"], capture_output=True, text=True,
                           env=self.env, timeout=30)
        return p.stdout.strip()

    def start(self):
        self.start_munge()
        # task/affinity makes srun --cpu-bind real; task/none where it
        # cannot start (the jobs then run unpinned, and the test says so).
        for plugin in ("task/affinity", "task/none"):
            self.write_conf(plugin)
            ctld = self.spawn("slurmctld", ["slurmctld", "-D", "-c", "-f", self.conf])
            slurmd = self.spawn("slurmd", ["slurmd", "-D", "-f", self.conf])
            deadline = time.time() + 40
            state = ""
            while time.time() < deadline and ctld.poll() is None and slurmd.poll() is None:
                state = self.node_state()
                if state == "idle":
                    self.task_plugin = plugin
                    return
                time.sleep(0.3)
            slurmd_died = slurmd.poll() is not None
            why = "slurmctld: %s\nslurmd: %s\nnode state: %r" % (
                tail(self.path("log", "slurmctld.out"), 5), tail(self.path("log", "slurmd.out"), 5), state)
            self.stop_daemons(("slurmd", "slurmctld"))
            if not slurmd_died:
                break
        if os.getuid() != 0:
            raise Skip("this user cannot start a single-host Slurm (not root):\n" + why)
        raise NotStarted("the single-host Slurm did not start:\n" + why)

    def stop_daemons(self, names):
        for name, p in self.procs:
            if name in names and p.poll() is None:
                p.terminate()
        for name, p in self.procs:
            if name in names:
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = [(n, p) for n, p in self.procs if n not in names]

    def stop(self):
        try:
            jobs = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True,
                                  env=self.env, timeout=20).stdout.split()
            if jobs:
                subprocess.run(["scancel"] + jobs, env=self.env, timeout=20)
                deadline = time.time() + 15
                while time.time() < deadline and subprocess.run(
                        ["squeue", "-h"], capture_output=True, text=True, env=self.env,
                        timeout=20).stdout.strip():
                    time.sleep(0.3)
        except (OSError, subprocess.SubprocessError):
            pass
        self.stop_daemons(("slurmd", "slurmctld", "munged"))
        kill_marked(self.dir)


def kill_marked(top):
    """Stop every process whose environment carries MARK=top: slurmstepd
    and job processes the daemons left (they leave their own parents)."""
    me = os.getpid()
    needle = ("\0%s=%s\0" % (MARK, top)).encode()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        left = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == me:
                continue
            try:
                with open("/proc/%s/environ" % pid, "rb") as f:
                    if needle in b"\0" + f.read() + b"\0":
                        os.kill(int(pid), sig)
                        left.append(int(pid))
            except OSError:
                pass
        if not left:
            return
        time.sleep(1)


def references(root):
    with open(os.path.join(root, "tests", "data", "reference-trees.csv")) as f:
        return {r["name"]: r for r in csv.DictReader(f)}


def exact(results, ref):
    return all(str(results.get(k)) == ref[k] for k in ("size", "depth", "leaves") if ref[k])


def records(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        return [{"unreadable": str(e)}]


def check_batch(tally, what, rec, job_id, tasks, cpus, pinned):
    batch = rec.get("batch") or {}
    env = rec.get("runtime_env") or {}
    tally.check(batch.get("system") == "slurm" and batch.get("job_id") == job_id,
                "%s: batch.system slurm, batch.job_id %s" % (what, job_id), "batch: %r" % (rec.get("batch"),))
    tally.check(batch.get("tasks") == tasks and batch.get("cpus_per_task") == cpus
                and (not pinned or "mask_cpu" in (batch.get("cpu_bind") or "")),
                "%s: batch.tasks %d, batch.cpus_per_task %d%s" % (
                    what, tasks, cpus, ", batch.cpu_bind the mask srun applied" if pinned else ""),
                "batch: %r" % (rec.get("batch"),))
    tally.check(env.get("OMP_PLACES") == "cores" and env.get("OMP_PROC_BIND") == "close",
                "%s: runtime_env has OMP_PLACES=cores OMP_PROC_BIND=close" % what, "runtime_env: %r" % (env,))


def one_line_exit_2(tally, label, p, err, needle):
    lines = err.strip().splitlines()
    tally.check(p == 2 and len(lines) == 1 and needle in err,
                "%s: one line and exit 2" % label, "exit %s, stderr %r" % (p, err))


def check_outside(tally, here, binary, mpi, tmp):
    """Bad input and a valid call outside a job: no Slurm needed."""
    scripts = os.path.join(here, "scripts", "slurm")
    not_exec = os.path.join(tmp, "not-executable")
    with open(not_exec, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(not_exec, 0o644)
    cases = []
    for s in SCRIPTS:
        cases += [(s, {"UTS": os.path.join(tmp, "no-such-uts")}, "no such file"),
                  (s, {"UTS": "no-such-uts-on-path"}, "no such program on PATH"),
                  (s, {"UTS": not_exec}, "not an executable file"),
                  (s, {"UTS": binary, "TREE": "NoSuchTree"}, "unknown tree 'NoSuchTree'")]
        if s != "hybrid.sbatch" or mpi:
            cases.append((s, {"UTS": binary}, "sbatch"))
    if not mpi:
        cases.append(("hybrid.sbatch", {"UTS": binary}, "built without MPI"))
    for script, extra, needle in cases:
        p = subprocess.run([os.path.join(scripts, script)], capture_output=True, text=True,
                           env=clean_env(**extra), cwd=tmp, timeout=60)
        label = "%s %s outside a job" % (script, " ".join("%s=%s" % kv for kv in extra.items()))
        one_line_exit_2(tally, label, p.returncode, p.stderr + p.stdout, needle)
    if shutil.which("shellcheck"):
        files = [os.path.join("scripts", "slurm", s) for s in SCRIPTS + ("common.sh",)]
        p = subprocess.run(["shellcheck", "-x"] + files,
                           capture_output=True, text=True, cwd=here, timeout=120)
        tally.check(p.returncode == 0, "the job scripts are shellcheck-clean", p.stdout[-2000:])
    else:
        print("note  shellcheck not installed: the scripts' lint not checked")


def submit(cluster, work, script_path, env, options, args=()):
    """sbatch --wait in the background; returns the process (its first line
    of stdout is the job id, --parsable)."""
    return subprocess.Popen(["sbatch", "--wait", "--parsable"] + options + [script_path] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(cluster.env, **env), cwd=work)


def finish(p, timeout=300):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out.strip(), err + " (timed out)"
    return p.returncode, out.strip().split(";")[0], err


def run_jobs(tally, here, binary, mpi, cluster, refs):
    work = cluster.path("work")
    os.makedirs(work)
    scripts = os.path.join(here, "scripts", "slurm")
    cpus = min(2, cluster.cpus)
    jobs = {
        "sweep": submit(cluster, work, os.path.join(scripts, "sweep.sbatch"), {"UTS": binary, "TREE": "T1"},
                        ["--cpus-per-task=%d" % cpus]),
        "study": submit(cluster, work, os.path.join(scripts, "study.sbatch"), {"UTS": binary, "TREE": "T1"},
                        ["--cpus-per-task=%d" % cpus],
                        ["--threads", "1..all", "--victim", "random", "--reps", "1", "--warmup", "0",
                         "--sequential", "no"]),
        "bad tree": submit(cluster, work, os.path.join(scripts, "sweep.sbatch"),
                           {"UTS": binary, "TREE": "NoSuchTree"},
                           ["--cpus-per-task=1", "-o", "bad.out", "-e", "bad.err"]),
    }
    if mpi and cluster.cpus >= 2:
        jobs["hybrid"] = submit(cluster, work, os.path.join(scripts, "hybrid.sbatch"), {"UTS": binary, "TREE": "T3"},
                                ["--nodes=1", "--ntasks-per-node=2", "--cpus-per-task=1"])
    else:
        print("note  hybrid job not run: %s" % ("the binary has no MPI" if not mpi else "one CPU"))
    done = {name: finish(p) for name, p in jobs.items()}
    for name, (rc, job_id, err) in done.items():
        out_name = "bad.out" if name == "bad tree" else "uts-%s-%s.out" % (name, job_id)
        tally.check(rc == (2 if name == "bad tree" else 0) and job_id.isdigit(),
                    "%s job %s: sbatch --wait exit %s" % (name, job_id, rc),
                    "stderr %r; job output:\n%s" % (err, tail(os.path.join(work, out_name))))

    rc, job_id, _ = done["sweep"]
    recs = records(os.path.join(work, "uts-sweep-%s.jsonl" % job_id))
    counts = [1, 2] if cpus == 2 else [1]
    tally.check([(r.get("engine") or {}).get("threads") for r in recs] == counts,
                "sweep: one record per thread count %s" % counts, "%d records" % len(recs))
    for r in recs:
        t = (r.get("engine") or {}).get("threads")
        what = "sweep %d thread%s" % (t or 0, "" if t == 1 else "s")
        tally.check(r.get("verified") is True and exact(r.get("results") or {}, refs["T1"]),
                    "%s: T1 exact (size, depth, leaves) and verified" % what, "results %r" % (r.get("results"),))
        check_batch(tally, what, r, job_id, 1, cpus, cluster.task_plugin == "task/affinity")
        tally.check((r.get("runtime_env") or {}).get("OMP_NUM_THREADS") == str(t),
                    "%s: runtime_env OMP_NUM_THREADS=%s" % (what, t))
        if cluster.task_plugin == "task/affinity":
            placement = r.get("placement") or {}
            bound = [th.get("bound_to") for th in placement.get("threads") or []]
            tally.check(placement.get("bind") == "omp" and len(bound) == t and None not in bound
                        and len(set(bound)) == t,
                        "%s: each thread pinned to its own place (OMP_PLACES=cores)" % what,
                        "placement %r" % (placement,))

    if "hybrid" in done:
        rc, job_id, _ = done["hybrid"]
        recs = records(os.path.join(work, "uts-hybrid-%s.jsonl" % job_id))
        tally.check(len(recs) == 1, "hybrid: one record (rank 0's)", "%d records" % len(recs))
        for r in recs[:1]:
            engine = r.get("engine") or {}
            tally.check(engine.get("ranks") == 2 and engine.get("threads") == 1 and engine.get("mpi") is True,
                        "hybrid: 2 MPI ranks x 1 thread (MPI_LAUNCH %s)" % os.environ.get("MPI_LAUNCH", "pmix"),
                        "engine %r" % (engine,))
            tally.check(r.get("verified") is True and exact(r.get("results") or {}, refs["T3"]),
                        "hybrid: T3 exact and verified", "results %r" % (r.get("results"),))
            if cluster.task_plugin == "task/affinity":
                placement = r.get("placement") or {}
                bound = [th.get("bound_to") for th in placement.get("threads") or []]
                tally.check(len(bound) == 2 and None not in bound and len(set(bound)) == 2,
                            "hybrid: each rank pinned to its own core (--cpu-bind=cores)",
                            "placement %r" % (placement,))
            check_batch(tally, "hybrid", r, job_id, 2, 1, cluster.task_plugin == "task/affinity")

    rc, job_id, _ = done["study"]
    out = os.path.join(work, "uts-study-%s" % job_id)
    try:
        with open(os.path.join(out, "runs.csv")) as f:
            rows = list(csv.DictReader(f))
    except OSError:
        rows = []
    tally.check(len(rows) == cpus and all(r["tree"] == "T1" and exact(r, refs["T1"]) for r in rows),
                "study: %d runs of T1, every one exact" % cpus, "%d rows" % len(rows))
    tally.check("JobId=%s " % job_id in tail(os.path.join(out, "slurm-job.txt"), 1000),
                "study: slurm-job.txt is scontrol show job %s" % job_id)
    try:
        with open(os.path.join(out, "machine.json")) as f:
            machine = json.load(f)
    except (OSError, ValueError):
        machine = {}
    batch = machine.get("batch") or {}
    tally.check(batch.get("system") == "slurm" and batch.get("job_id") == job_id,
                "study: machine.json batch.job_id %s" % job_id, "batch %r" % (machine.get("batch"),))

    with open(os.path.join(work, "bad.err")) as f:
        err = f.read()
    one_line_exit_2(tally, "sweep in a job, TREE=NoSuchTree", done["bad tree"][0], err, "unknown tree 'NoSuchTree'")


def main():
    args = [a for a in sys.argv[1:] if a != "--keep"]
    keep = "--keep" in sys.argv[1:]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    here, binary = os.path.abspath(args[0]), os.path.abspath(args[1])
    missing = [p for p in PROGRAMS if not shutil.which(p)]
    tally = Tally()
    p = subprocess.run([binary, "--version"], capture_output=True, text=True)
    mpi = "with MPI" in p.stdout
    refs = references(here)

    # A signal (meson's timeout, Ctrl-C) unwinds through the finally below.
    def stop(signum, _frame):
        raise KeyboardInterrupt("signal %d" % signum)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)

    top = tempfile.mkdtemp(prefix="uts-slurm-")
    cluster = None
    started = time.time()
    try:
        check_outside(tally, here, binary, mpi, top)
        if missing:
            raise Skip("not installed: %s (apt-get install slurm-wlm munge; dnf install slurm slurm-slurmd "
                       "slurm-slurmctld munge)" % " ".join(missing))
        cluster = SingleHostSlurm(top)
        cluster.start()
        print("note  single-host Slurm up in %.1f s (%d CPUs, %s)" % (
            time.time() - started, cluster.cpus, cluster.task_plugin), flush=True)
        if cluster.task_plugin != "task/affinity":
            print("note  task/affinity does not start here: jobs run unpinned (TaskPlugin=task/none)")
        run_jobs(tally, here, binary, mpi, cluster, refs)
    except NotStarted as e:
        tally.check(False, "the single-host Slurm starts as root", str(e))
    except Skip as e:
        print("SKIP: %s" % e)
        return 1 if tally.failed else 77
    except KeyboardInterrupt as e:
        print("interrupted (%s): stopping the daemons" % e)
        return 1
    finally:
        if cluster:
            cluster.stop()
        kill_marked(top)
        if keep:
            print("kept %s" % top)
        else:
            shutil.rmtree(top, ignore_errors=True)
    print("%d passed, %d failed (%.1f s)" % (tally.passed, tally.failed, time.time() - started))
    return 0 if tally.failed == 0 and tally.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
