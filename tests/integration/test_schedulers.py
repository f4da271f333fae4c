#!/usr/bin/env python3
"""Every scheduler this build registers (`uts --list-schedulers`), in each
of its forms, against the same contract as the engine (docs/schedulers.md).
A new scheduler is picked up here without a new line.

  small     the small trees of every type (small_trees.py) vs reference_uts.py,
            at 1, 2, 3, 7 and 16 threads; -g 3 and --sha1 cryptopp on one
  samples   T1 and T3 vs the reference CSV, T2 T4 T5 --verify, at 1, 2, 3,
            7 and 16 threads
  stops     --max-nodes: status max-nodes and a size in [N, N + 12,400 x P)
            (docs/output.md section 8), the tuned form at small grains too; SIGINT mid-run: exit 130, the JSON
            record interrupted and partial; the record names the scheduler,
            its form, grain and the runtime that ran
  bad       combinations that do not apply exit 2 with one `uts:` line
  tsan      (a ThreadSanitizer build, scripts/test --tsan) omp-task in both
            forms on small trees at 2, 3 and 8 threads under libarcher:
            exact, exit 0, and no ThreadSanitizer report
  deep      the literature form of every scheduler on T3L --verify at 2
            threads with no stack setting in the environment (not in the
            default suites: a minute each here)

The literature form recurses once per tree level inside the runtime
(docs/schedulers.md): the stop tests keep to trees a few hundred levels deep.

usage: test_schedulers.py UTS_BINARY REFERENCE_CSV SUITE
"""
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time

import reference_uts
from small_trees import SMALL_TREES
from uts_check import Tally, results_of, run_json, run_uts

THREADS = [1, 2, 3, 7, 16]
FORMS = ["literature", "tuned"]


def foreign_schedulers(binary):
    p = run_uts(binary, ["--list-schedulers"], timeout=60)
    names = p.stdout.split()
    if p.returncode != 0 or "uts" not in names:
        raise AssertionError("--list-schedulers: rc=%s out=%r" % (p.returncode, p.stdout))
    return [n for n in names if n != "uts"]


def shapes(binary):
    """(label, arguments) of every foreign scheduler and form."""
    for s in foreign_schedulers(binary):
        for f in FORMS:
            yield "%s %s" % (s, f), ["--scheduler", s, "--scheduler-form", f]


def small(binary, tally):
    cases = []
    for name, args, ref_params in SMALL_TREES:
        params = dict(reference_uts.DEFAULTS)
        params.update(ref_params)
        cases.append((name, args.split(), reference_uts.traverse(params)))
    for label, sched in shapes(binary):
        for t in THREADS:
            for name, args, expected in cases:
                got = results_of(run_json(binary, args + sched + ["--threads", str(t)]))
                tally.check(got == expected, "%s, %d threads: %s" % (label, t, name),
                            "got %s expected %s" % (got, expected))
        # The same tree through -g 3 and through the portable hash path.
        name, args, expected = cases[0]
        for extra in (["-g", "3"], ["--sha1", "cryptopp"]):
            got = results_of(run_json(binary, args + sched + ["--threads", "3"] + extra))
            tally.check(got == expected, "%s, 3 threads, %s: %s" % (label, " ".join(extra), name))


def samples(binary, ref_csv, tally):
    with open(ref_csv) as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    for label, sched in shapes(binary):
        for t in THREADS:
            for name in ("T1", "T3"):
                r = rows[name]
                got = results_of(run_json(binary, r["args"].split() + sched + ["--threads", str(t)]))[:3]
                want = (int(r["size"]), int(r["depth"]), int(r["leaves"]))
                tally.check(got == want, "%s, %d threads: %s from the CSV" % (label, t, name),
                            "got %s expected %s" % (got, want))
            for name in ("T2", "T4", "T5"):
                rec = run_json(binary, ["--preset", name, "--verify"] + sched + ["--threads", str(t)])
                tally.check(rec["verified"] is True, "%s, %d threads: %s --verify" % (label, t, name))


def stops(binary, tally):
    # The engine's own loop and the baseline create no tasks: null, not 0.
    for extra in (["--threads", "1"], ["--sequential"]):
        rec = run_json(binary, ["--preset", "T1"] + extra)
        tally.check(rec["aggregates"]["tasks"] is None and all(t["tasks"] is None for t in rec["threads"]),
                    "uts %s: tasks null" % " ".join(extra), json.dumps(rec["aggregates"]))
    trees = {"T3 (binomial)": ["--preset", "T3"], "T1L (geometric)": ["--preset", "T1L"],
             "a root with 2^31 children": ["-t", "0", "-b", "2147483647", "-q", "0", "-m", "1"]}
    for label, sched in shapes(binary):
        for t in (1, 2, 8):
            for what, tree in trees.items():
                for n in (1000, 100000):
                    p = run_uts(binary, tree + sched + ["--threads", str(t), "--max-nodes", str(n), "--format", "json",
                                                        "--no-progress"], timeout=120)
                    try:
                        rec = json.loads(p.stdout)
                        size, status = rec["results"]["size"], rec["status"]
                    except ValueError:
                        size, status = -1, None
                    tally.check(p.returncode == 0 and status == "max-nodes" and n <= size < n + 12400 * t,
                                "%s, %d threads, %s, --max-nodes %d: stopped at %d" % (label, t, what, n, size),
                                "rc=%s status=%s err=%r" % (p.returncode, status, p.stderr[-300:]))
        # Small grains: many tasks, which libomp runs inline once its queue is
        # full; each must see the stop another raised, not run a poll
        # interval more (T1L at 1 thread stopped 25% past 100000 so).
        if sched[3] == "tuned":
            for t in (1, 2):
                for grain in ("64", "4096"):
                    n = 100000
                    p = run_uts(binary, ["--preset", "T1L"] + sched + ["--task-grain", grain, "--threads", str(t),
                                "--max-nodes", str(n), "--format", "json", "--no-progress"], timeout=120)
                    try:
                        size = json.loads(p.stdout)["results"]["size"]
                    except ValueError:
                        size = -1
                    tally.check(p.returncode == 0 and n <= size < n + 12400 * t,
                                "%s --task-grain %s, %d threads, T1L, --max-nodes %d: stopped at %d"
                                % (label, grain, t, n, size), "rc=%s err=%r" % (p.returncode, p.stderr[-300:]))
        # SIGINT mid-run on a tree that outlives the test.
        proc = subprocess.Popen([binary, "--preset", "T1XL", "--no-progress", "--threads", "2", "--format", "json"] + sched,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        dt = time.monotonic() - sent
        try:
            rec = json.loads(out)
            marked = (rec["status"] == "interrupted" and rec["stop_signal"] == "SIGINT"
                      and 0 < rec["results"]["size"] < rec["expected"]["size"] and rec["verified"] is None)
        except (ValueError, KeyError):
            marked = False
        tally.check(proc.returncode == 130 and marked and err == "" and dt < 2.0,
                    "%s: SIGINT mid-run: exit 130, interrupted, partial, %.2f s" % (label, dt),
                    "rc=%s out=%r err=%r" % (proc.returncode, out[-300:], err[-300:]))
        # The record names who ran it.
        rec = run_json(binary, ["--preset", "T1", "--threads", "2", "--verify"] + sched)
        e = rec["engine"]
        form = sched[3]
        tally.check(e["scheduler"] == sched[1] and e["scheduler_form"] == form
                    and (e["task_grain"] is None) == (form == "literature")
                    and e["scheduler_runtime"] not in ("", "uts", None) and e["protocol"] is None
                    and rec["aggregates"]["steals"] is None and rec["verified"] is True,
                    "%s: the record names scheduler, form, grain, runtime (%s); protocol and steals null"
                    % (label, e["scheduler_runtime"]), json.dumps(e))
        # Tasks created: every thread's, summed; a literature task is an inner
        # node (at most one task per inner node), a tuned one a hand-off.
        tasks = rec["aggregates"]["tasks"]
        inner = rec["results"]["size"] - rec["results"]["leaves"]
        tally.check(isinstance(tasks, int) and 0 < tasks <= inner
                    and sum(t["tasks"] for t in rec["threads"]) == tasks
                    and (form == "tuned" or tasks * 2 > inner),
                    "%s: tasks created counted per thread and summed (%s of %d inner nodes)" % (label, tasks, inner),
                    json.dumps(rec["aggregates"]))
        # -v: what the runtime measures, per thread, and one line naming what
        # it does not; never the engine's steal and phase columns as zeros.
        p = run_uts(binary, ["--preset", "T1", "--threads", "2", "-v"] + sched, timeout=120)
        lines = p.stdout.splitlines()
        rows = [l.split() for l in lines if re.match(r"^ +[01] +[0-9]+ ", l)]
        tally.check(p.returncode == 0 and "thread        nodes   share  time(s)     work        tasks" in lines
                    and len(rows) == 2 and all(int(r[1]) > 0 and float(r[3]) > 0 for r in rows)
                    and any(l.startswith("Not measured by " + e["scheduler_runtime"] + ": steals") for l in lines)
                    and not any(l.startswith("Steal success rate") or " search " in l for l in lines),
                    "%s: -v gives nodes and times per thread and names what is not measured" % label,
                    p.stdout[-1500:])


def bad(binary, tally):
    def refused(args, what):
        p = run_uts(binary, ["--preset", "T1"] + args, timeout=60)
        lines = p.stderr.strip().splitlines()
        tally.check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("uts:") and p.stdout == "",
                    "%s exits 2 with one line" % what, "rc=%s err=%r" % (p.returncode, p.stderr))
    refused(["--scheduler", "no-such"], "--scheduler no-such")
    refused(["--scheduler-form", "tuned"], "--scheduler-form with --scheduler uts")
    refused(["--task-grain", "64"], "--task-grain with --scheduler uts")
    refused(["--sequential", "--scheduler", "uts"], "--scheduler with --sequential")
    for s in foreign_schedulers(binary):
        base = ["--scheduler", s]
        for extra in (["--protocol", "split"], ["--steal", "one"], ["-c", "4"], ["-s", "0"], ["--victim", "tree"],
                      ["--domains", "2"], ["--steal-local", "one"], ["--remote-delay", "10"], ["--init", "balanced"],
                      ["-I", "4"], ["--scheduler-form", "literature", "--task-grain", "64"],
                      ["--scheduler-form", "bogus"], ["--task-grain", "0"], ["--task-grain", "x"],
                      ["--rank-steal", "random"], ["--trace", "/nonexistent/never-written.json"]):
            refused(base + extra, "--scheduler %s %s" % (s, " ".join(extra)))
        # --counters: read on every thread, or refused in one line; never
        # accepted and dropped (an empty counters object).
        p = run_uts(binary, ["--preset", "T1", "--threads", "2", "--format", "json", "--counters", "task-clock"] + base,
                    timeout=120)
        if p.returncode == 0:
            c = json.loads(p.stdout)["counters"]
            tally.check(c["names"] == ["task-clock"] and len(c["per_thread"]) == 2 or bool(c["unavailable"]),
                        "--scheduler %s --counters task-clock: read per thread (or said unavailable)" % s,
                        json.dumps(c))
        else:
            lines = p.stderr.strip().splitlines()
            tally.check(p.returncode == 2 and len(lines) == 1 and "--counters" in lines[0],
                        "--scheduler %s --counters task-clock: refused in one line" % s, p.stderr)
        # OMP_THREAD_LIMIT and OMP_PROC_BIND concern OpenMP's threads only:
        # an OpenMP scheduler refuses more threads than the limit; another
        # runtime runs them, unbound by OpenMP's variables.
        runtime = run_json(binary, ["--preset", "T1", "--threads", "1", "--max-nodes", "1000"] + base)[
            "engine"]["scheduler_runtime"]
        openmp = runtime.startswith(("libgomp", "libomp"))
        env = dict(os.environ, OMP_THREAD_LIMIT="1", OMP_PROC_BIND="true")
        p = subprocess.run([binary, "--preset", "T1", "--threads", "2", "--format", "json"] + base, env=env,
                           capture_output=True, text=True, timeout=120)
        if openmp:
            tally.check(p.returncode == 2 and "OMP_THREAD_LIMIT" in p.stderr and len(p.stderr.splitlines()) == 1,
                        "--scheduler %s (%s) under OMP_THREAD_LIMIT=1: refused in one line" % (s, runtime), p.stderr)
        else:
            rec = json.loads(p.stdout) if p.returncode == 0 else {}
            tally.check(p.returncode == 0 and len(rec["threads"]) == 2 and rec["placement"]["bind"] == "none"
                        and all(t["bound_to"] is None for t in rec["placement"]["threads"]) and p.stderr == "",
                        "--scheduler %s (%s) under OMP_THREAD_LIMIT=1 OMP_PROC_BIND=true: 2 threads, recorded "
                        "unbound, none pinned to OpenMP's first place (OpenMP's variables are not its)" % (s, runtime),
                        "rc=%s err=%r" % (p.returncode, p.stderr))


def tsan(binary, tally):
    tool = os.environ.get("OMP_TOOL_LIBRARIES", "")
    tally.check("archer" in tool, "libarcher is the OpenMP tool (OMP_TOOL_LIBRARIES=%r)" % tool)
    cases = []
    for name, args, ref_params in SMALL_TREES[:4]:
        params = dict(reference_uts.DEFAULTS)
        params.update(ref_params)
        cases.append((name, args.split(), reference_uts.traverse(params)))
    for f in FORMS:
        sched = ["--scheduler", "omp-task", "--scheduler-form", f]
        extra = [[]] if f == "literature" else [[], ["--task-grain", "1"], ["--task-grain", "64"]]
        for t in (2, 3, 8):
            for grain in extra:
                for name, args, expected in cases:
                    p = run_uts(binary, args + sched + grain + ["--threads", str(t), "--format", "json", "--no-progress"],
                                timeout=600)
                    try:
                        got = results_of(json.loads(p.stdout))
                    except ValueError:
                        got = None
                    reported = "ThreadSanitizer" in p.stderr
                    tally.check(p.returncode == 0 and not reported and got == expected,
                                "omp-task %s %s, %d threads: %s, exact, no ThreadSanitizer report"
                                % (f, " ".join(grain), t, name),
                                "rc=%s got %s expected %s\n%s" % (p.returncode, got, expected, p.stderr[-4000:]))


def chain(binary, tally):
    """A chain 50,000 levels deep (T3L is 17,844) cut by --max-nodes: the
    literature form recurses once a level, with no stack setting in the
    environment; milliseconds a run. (Its 256 MiB stacks end near 95,000
    levels under libomp at one thread: docs/schedulers.md, Limits.)"""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_STACKSIZE", "GOMP_STACKSIZE", "KMP_STACKSIZE")}
    for s in foreign_schedulers(binary):
        for t in (1, 2):
            cmd = [binary, "-t", "0", "-b", "1", "-q", "1", "-m", "1", "--max-nodes", "50000", "--threads", str(t),
                   "--format", "json", "--no-progress", "--scheduler", s, "--scheduler-form", "literature"]
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
            try:
                rec = json.loads(p.stdout)
                ok = rec["status"] == "max-nodes" and rec["results"]["depth"] >= 49999
            except (ValueError, KeyError):
                ok = False
            tally.check(p.returncode == 0 and ok, "%s literature, %d threads: a 50,000-deep chain, no stack "
                        "setting: stops at --max-nodes, no overflow" % (s, t),
                        "rc=%s out=%r err=%r" % (p.returncode, p.stdout[-300:], p.stderr[-300:]))


def deep(binary, tally):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_STACKSIZE", "GOMP_STACKSIZE", "KMP_STACKSIZE")}
    for s in foreign_schedulers(binary):
        cmd = [binary, "--preset", "T3L", "--verify", "--threads", "2", "--no-progress", "--scheduler", s,
               "--scheduler-form", "literature"]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
        tally.check(p.returncode == 0 and "Verify: OK" in p.stdout, "%s literature: T3L --verify at 2 threads" % s,
                    "rc=%s out=%r err=%r" % (p.returncode, p.stdout[-300:], p.stderr[-300:]))


def main():
    binary, ref_csv, suite = sys.argv[1], sys.argv[2], sys.argv[3]
    tally = Tally()
    print("schedulers: uts " + " ".join(foreign_schedulers(binary)))
    if suite == "small":
        small(binary, tally)
    elif suite == "samples":
        samples(binary, ref_csv, tally)
    elif suite == "stops":
        stops(binary, tally)
    elif suite == "bad":
        bad(binary, tally)
    elif suite == "tsan":
        tsan(binary, tally)
    elif suite == "deep":
        deep(binary, tally)
    elif suite == "chain":
        chain(binary, tally)
    else:
        print("unknown suite " + suite)
        return 2
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
