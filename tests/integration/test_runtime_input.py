#!/usr/bin/env python3
"""Bad input that reaches uts through its runtime, not its command line:
memory the input asks for and the OpenMP environment. Each ends as the
contract says: one `uts:` line on stderr, no other output there, and the
documented exit status (docs/output.md, section 6).

  out of memory  under an address-space limit (RLIMIT_AS), an allocation
                 sized by the input fails: exit 3, one line
                 "uts: out of memory: ...", never libstdc++'s "terminate
                 called" and SIGABRT; for each family it can trigger: the
                 --trace buffers (one thread, several at once), the nodes
                 waiting to be expanded (sequential and parallel), the
                 pool's items, the threads' stacks (--threads 1000)
  OMP_*          a value the OpenMP runtime calls invalid (OMP_NUM_THREADS
                 0, -1, abc, 3,abc, 1, ; OMP_PROC_BIND, OMP_PLACES,
                 OMP_THREAD_LIMIT, OMP_DYNAMIC, OMP_WAIT_POLICY,
                 OMP_STACKSIZE): exit 2, exactly one line naming the
                 variable, no runtime warning and no blank line (with
                 stderr closed: exit 2 all the same); a control
                 character in the value does not start a second line; a valid
                 nested list (2,3) runs, and the record says where the threads
                 came from; --help still answers; under mpirun (a build with
                 MPI) the line is printed once

usage: test_runtime_input.py UTS_BINARY
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally

SMALL = ["-t", "1", "-a", "3", "-d", "6", "-b", "4", "-r", "19", "--no-progress"]
# A root with 2^31 children, nearly all of them with a child: they wait in
# the deque (or the sequential stack) by the billion.
WIDE_ROOT = ["-t", "0", "-b", "2147483647", "-q", "0.999", "-m", "1", "--no-progress"]
LIMIT = 2 << 30  # bytes of address space: far below what the cases ask for, far above what uts needs


def limited(limit):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run(binary, args, env=None, limit=None, timeout=120):
    try:
        return subprocess.run([binary] + args, capture_output=True, text=True, env=env, timeout=timeout,
                              preexec_fn=limited(limit) if limit else None)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(args, -1, e.stdout or "", "timed out after %ss" % timeout)


def one_line(stderr, needle):
    lines = stderr.splitlines()
    return len(lines) == 1 and lines[0].startswith("uts: ") and needle in lines[0]


def out_of_memory(binary, tally, tmp):
    # An AddressSanitizer build reserves terabytes of shadow address space
    # at start-up, so it cannot start under the limit at all (scripts/test
    # --asan runs this file too): there the cases are skipped, and said so.
    probe = run(binary, ["--version"], limit=LIMIT, timeout=60)
    if probe.returncode != 0:
        print("skip  out of memory: this build cannot start under a %d GiB address-space limit (%s)"
              % (LIMIT >> 30, (probe.stderr.strip().splitlines() or ["exit %d" % probe.returncode])[0][:120]))
        return
    trace = os.path.join(tmp, "t.json")
    cases = [
        ("--trace-events 1e8, one thread", SMALL + ["--threads", "1", "--trace", trace, "--trace-events", "100000000"],
         "--trace-events"),
        ("--trace-events 3e7, four threads", SMALL + ["--threads", "4", "--trace", trace, "--trace-events", "30000000"],
         "--trace-events"),
        ("2^31 nodes waiting, sequential", WIDE_ROOT + ["--sequential"], "out of memory"),
        ("2^31 nodes waiting, 2 threads", WIDE_ROOT + ["--threads", "2"], "out of memory"),
        ("pool, --fill 1e9", ["--workload", "pool", "--threads", "2", "--fill", "1000000000", "--trials", "1"],
         "out of memory"),
        # Their stacks do not fit: libgomp would print its own message and exit 1.
        ("--threads 1000", SMALL + ["--threads", "1000"], "--threads 1000"),
        ("pool, --threads 1000", ["--workload", "pool", "--threads", "1000"], "--threads 1000"),
    ]
    for what, args, needle in cases:
        proc = run(binary, args, limit=LIMIT, timeout=300)
        tally.check(proc.returncode == 3 and one_line(proc.stderr, "uts: out of memory: ") and
                    one_line(proc.stderr, needle) and "terminate called" not in proc.stderr,
                    "out of memory (%s): exit 3, one line" % what,
                    "rc=%s stderr=%r" % (proc.returncode, proc.stderr[-400:]))


BAD_OMP = [
    ("OMP_NUM_THREADS", "0"), ("OMP_NUM_THREADS", "-1"), ("OMP_NUM_THREADS", "abc"),
    ("OMP_NUM_THREADS", "3,abc"), ("OMP_NUM_THREADS", "1,"),
    ("OMP_PROC_BIND", "bogus"), ("OMP_PLACES", "bogus"), ("OMP_THREAD_LIMIT", "0"), ("OMP_DYNAMIC", "maybe"),
    ("OMP_WAIT_POLICY", "bogus"), ("OMP_STACKSIZE", "abc"),
]


def omp_environment(binary, tally):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_"))}
    for name, value in BAD_OMP:
        proc = run(binary, SMALL, env=dict(base, **{name: value}), timeout=60)
        tally.check(proc.returncode == 2 and one_line(proc.stderr, name) and proc.stdout == "",
                    "%s=%s: exit 2, one uts line naming it, nothing from the runtime" % (name, value),
                    "rc=%s stderr=%r" % (proc.returncode, proc.stderr[-400:]))
    proc = run(binary, SMALL, env=dict(base, OMP_PROC_BIND="x\nuts: fake"), timeout=60)
    tally.check(proc.returncode == 2 and one_line(proc.stderr, "OMP_PROC_BIND"),
                "OMP_PROC_BIND with a newline in it: one line", "rc=%s stderr=%r" % (proc.returncode, proc.stderr))
    # With stderr closed nobody reads the line, but the value is refused all
    # the same: the exit status must not depend on whether fd 2 is open.
    proc = subprocess.run([binary] + SMALL, stdout=subprocess.PIPE, text=True, timeout=60,
                          env=dict(base, OMP_PROC_BIND="bogus"), preexec_fn=lambda: os.close(2))
    tally.check(proc.returncode == 2 and proc.stdout == "",
                "OMP_PROC_BIND=bogus with stderr closed: still refused, exit 2, nothing on stdout",
                "rc=%s out=%r" % (proc.returncode, proc.stdout[:300]))
    proc = run(binary, SMALL + ["--format", "json"], env=dict(base, OMP_NUM_THREADS="2,3"), timeout=60)
    try:
        rec = json.loads(proc.stdout)
        ok = rec["engine"]["threads"] == 2 and rec["engine"]["threads_from"] == "OMP_NUM_THREADS"
    except (ValueError, KeyError, TypeError):
        ok = False
    tally.check(proc.returncode == 0 and ok and proc.stderr == "",
                "OMP_NUM_THREADS=2,3 (a nested list): 2 threads, threads_from OMP_NUM_THREADS, stderr empty",
                "rc=%s out=%r err=%r" % (proc.returncode, proc.stdout[:300], proc.stderr))
    proc = run(binary, ["--help"], env=dict(base, OMP_PROC_BIND="bogus"), timeout=60)
    tally.check(proc.returncode == 0 and proc.stdout != "" and proc.stderr == "",
                "OMP_PROC_BIND=bogus: --help still answers, and nothing on stderr",
                "rc=%s err=%r" % (proc.returncode, proc.stderr))
    # OMP_DISPLAY_ENV's listing is what the user asked for, not a complaint.
    proc = run(binary, SMALL, env=dict(base, OMP_DISPLAY_ENV="true"), timeout=60)
    tally.check(proc.returncode == 0 and "OPENMP DISPLAY ENVIRONMENT" in proc.stderr,
                "OMP_DISPLAY_ENV=true: the runtime's listing still reaches stderr, the run runs",
                "rc=%s err=%r" % (proc.returncode, proc.stderr[-300:]))

    version = run(binary, ["--version"], timeout=60).stdout
    if "with MPI" not in version or "without MPI" in version or shutil.which("mpirun") is None:
        print("skip  OMP_* under mpirun: uts built without MPI or no mpirun")
        return
    env = dict(base, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_PROC_BIND="bogus")
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "-np", "2", binary] + SMALL
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    ours = [l for l in proc.stderr.splitlines() if l.startswith("uts:")]
    tally.check(len(ours) == 1 and "OMP_PROC_BIND" in ours[0] and "libgomp" not in proc.stderr and
                proc.stdout == "" and proc.returncode != 0,
                "OMP_PROC_BIND=bogus under mpirun -np 2: one uts line (rank 0's), no runtime warning",
                "rc=%s err=%r" % (proc.returncode, proc.stderr[-600:]))


def main():
    binary = sys.argv[1]
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        out_of_memory(binary, tally, tmp)
    omp_environment(binary, tally)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
