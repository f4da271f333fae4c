#!/usr/bin/env python3
"""scripts/study's interface, common to every kind: --out refused when the
folder exists (exit 2, one line, nothing written); bad usage one line, exit
2; machine.json written before the first run, with one schema for scaling
and pool studies; a study interrupted (SIGINT) after its first runs
finished with --resume, which runs only the missing runs (each run once in
the final runs.csv, the finished rows untouched), and --resume refused for
a different study; a PATH without numactl (or lscpu, git, apt-get):
--bind numactl falls back to uts --bind compact and machine.json says so;
scripts/lib/setup.sh's uts_install without apt-get names the missing
packages and goes on; and scripts/plot-results on the committed result
sets in results/: the newest of each study kind redrawn (every one with
UTS_TEST_EXTENDED=1), and for a legacy set (two shapes, built here) exit 2
with one line (no traceback).

usage: test_study_frontend.py REPO_ROOT UTS_BINARY
"""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from uts_check import Tally, signal_on_line

TINY = """description = balanced ternary tree, depth 7
tree = balanced
b0 = 3
depth = 7
expect-size = 3280
expect-depth = 7
expect-leaves = 2187
"""

# Wraps the real uts: every run of the study (they name --preset) first
# notes whether machine.json already exists in the study folder with schema
# 1, then sleeps a little so that the study can be interrupted between runs.
WRAPPER = """#!/usr/bin/python3
import json, os, sys, time
real, out, log = %r, %r, %r
args = sys.argv[1:]
if "--preset" in args:
    try:
        with open(os.path.join(out, "machine.json")) as f:
            m = json.load(f)
        state = "yes" if m.get("schema") == 1 and m.get("study") == "scaling" else "bad"
    except (OSError, ValueError):
        state = "no"
    with open(log, "a") as f:
        f.write(state + "\\n")
    time.sleep(0.25)
os.execv(real, [real] + args)
"""

POOL = """description = tiny pool
threads = 2
ops = 200
fill = 10
trials = 2
steal = half
seed = 1
searches = linear
mixes = 50
producers = 1
arrangements = contiguous
trace_producers = 1
trace_searches = linear
remote_delays = 0
delay_model = mix 50
warmup = 0
"""


def read_runs(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def one_line(p):
    return len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def check_usage(tally, study, binary, presets, tmp):
    existing = os.path.join(tmp, "existing")
    os.makedirs(existing)
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--out", existing, "--uts", binary, "--preset-dir",
                        presets], capture_output=True, text=True, timeout=60)
    tally.check(p.returncode == 2 and one_line(p) and "exists" in p.stderr and os.listdir(existing) == [],
                "--out DIR that exists: one line, exit 2, nothing written", p.stderr)
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--out", existing, "--resume", "--uts", binary],
                       capture_output=True, text=True, timeout=60)
    tally.check(p.returncode == 2 and one_line(p) and "machine.json" in p.stderr,
                "--resume on a folder without a study: one line, exit 2", p.stderr)
    for args in ([], ["bogus"], ["scaling"], ["scaling", "--out", os.path.join(tmp, "u"), "--bind", "bogus"],
                 ["pool", "--out", os.path.join(tmp, "u"), "--config", "no-such-study"],
                 ["scaling", "--out", os.path.join(tmp, "u"), "--uts", os.path.join(tmp, "no-such-uts")]):
        p = subprocess.run([study] + args, capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and one_line(p) and not os.path.exists(os.path.join(tmp, "u")),
                    "bad usage %s: one line, exit 2" % " ".join(args[:1] + args[3:4]), p.stderr)
    # A figure format nobody draws: refused by every script that draws, at its
    # start (before any run), one line, exit 2.
    scripts = os.path.dirname(study)
    bad_formats = dict(os.environ, UTS_FIGURE_FORMATS="png,jpeg")
    for cmd in ([study, "scaling", "--trees", "tiny", "--out", os.path.join(tmp, "u"), "--uts", binary,
                 "--preset-dir", presets],
                [os.path.join(scripts, "plot-results"), existing],
                [os.path.join(scripts, "plot-trace"), os.path.join(tmp, "no-such.json"), "--out", os.path.join(tmp, "u")],
                [os.path.join(scripts, "scale-study"), "--quick", "--out", os.path.join(tmp, "u")]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=bad_formats)
        tally.check(p.returncode == 2 and one_line(p) and "UTS_FIGURE_FORMATS" in p.stderr
                    and not os.path.exists(os.path.join(tmp, "u")),
                    "UTS_FIGURE_FORMATS=png,jpeg: %s exits 2 with one line, nothing written"
                    % os.path.basename(cmd[0]), p.stderr)


def check_resume(tally, study, binary, presets, tmp):
    out = os.path.join(tmp, "resume")
    log = os.path.join(tmp, "wrapper.log")
    wrapper = os.path.join(tmp, "uts-slow")
    with open(wrapper, "w") as f:
        f.write(WRAPPER % (binary, out, log))
    os.chmod(wrapper, 0o755)
    # 2 thread counts + 1 sequential cell = 3 cells, x (1 warm-up + 3 reps) = 12 runs
    cmd = [study, "scaling", "--trees", "tiny", "--threads", "1,2", "--victim", "random", "--reps", "3",
           "--warmup", "1", "--out", out, "--uts", wrapper, "--preset-dir", presets]
    rc, rest = signal_on_line(cmd, "[run 5/12]", signal.SIGINT, timeout=60)
    runs = read_runs(os.path.join(out, "runs.csv"))
    with open(os.path.join(out, "machine.json")) as f:
        m = json.load(f)
    # Runs 1-4 finished before run 5 began; run 5 (0.25 s or more) may finish before the signal lands
    # on a loaded machine, and so on.
    tally.check(rc == 130 and "--resume" in rest and 4 <= len(runs) < 12 and m["finished_utc"] is None
                and not os.path.exists(os.path.join(out, "summary.csv")),
                "SIGINT after the 4th run: exit 130, the finished runs kept, machine.json unfinished",
                "rc=%s rows=%d %s" % (rc, len(runs), rest[-300:]))
    with open(log) as f:
        states = f.read().split()
    tally.check(states and all(s == "yes" for s in states),
                "machine.json (schema 1, study scaling) exists before every run, the first included", str(states))
    with open(os.path.join(out, "runs.csv")) as f:
        before = f.read()
    k = len(runs)
    p = subprocess.run(cmd + ["--reps", "2"], capture_output=True, text=True, timeout=60)
    tally.check(p.returncode == 2 and "exists" in p.stderr, "the same --out without --resume: exit 2", p.stderr)
    p = subprocess.run(cmd[:-4] + ["--reps", "2", "--resume"] + cmd[-4:], capture_output=True, text=True,
                       timeout=60)
    tally.check(p.returncode == 2 and one_line(p) and "differs" in p.stderr and "reps" in p.stderr,
                "--resume with another definition (reps): one line, exit 2", p.stderr)
    p = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=120)
    ran = [line for line in p.stderr.splitlines() if line.startswith("[run ")]
    final = read_runs(os.path.join(out, "runs.csv"))
    keys = [(r["cell"], r["warmup"], r["rep"]) for r in final]
    with open(os.path.join(out, "runs.csv")) as f:
        after = f.read()
    with open(os.path.join(out, "machine.json")) as f:
        m = json.load(f)
    tally.check(p.returncode == 0 and "%d of 12 runs already in runs.csv" % k in p.stderr and len(ran) == 12 - k,
                "--resume runs only the %d missing runs" % (12 - k), p.stderr[-800:])
    tally.check(len(final) == 12 and len(set(keys)) == 12 and after.startswith(before)
                and sorted(int(r["order"]) for r in final) == list(range(1, 13)),
                "the final runs.csv has each run exactly once, the rows written before untouched")
    tally.check(m["finished_utc"] and len(m["resumed"]) == 1 and os.path.exists(os.path.join(out, "summary.csv"))
                and os.path.exists(os.path.join(out, "speedup.svg")),
                "machine.json notes the resume and the finish; summary and figures written")
    # A torn last line (a study killed while writing) is dropped and that run made again.
    with open(os.path.join(out, "runs.csv"), "w") as f:
        f.write(after[:after.index("\n", len(after) // 2) + 40])
    p = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=120)
    final = read_runs(os.path.join(out, "runs.csv"))
    tally.check(p.returncode == 0 and "torn last line" in p.stderr and len(final) == 12
                and len({(r["cell"], r["warmup"], r["rep"]) for r in final}) == 12,
                "--resume after a torn last line: that run again, each run once", p.stderr[-500:])
    return m


def check_no_numactl(tally, study, binary, presets, tmp, scaling_machine):
    empty = os.path.join(tmp, "emptybin")
    os.makedirs(empty)
    out = os.path.join(tmp, "nonuma")
    env = dict(os.environ, PATH=empty)
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--threads", "1,2", "--victim", "random", "--reps", "1",
                        "--warmup", "0", "--bind", "numactl", "--out", out, "--uts", binary, "--preset-dir", presets],
                       capture_output=True, text=True, timeout=120, env=env)
    tally.check(p.returncode == 0 and "fallback: no numactl (apt-get install numactl)" in p.stderr,
                "a PATH without numactl: the study runs and says how to get it (it installs nothing)",
                p.stderr[-1500:])
    if p.returncode != 0:
        return
    with open(os.path.join(out, "machine.json")) as f:
        m = json.load(f)
    missing = {f["missing"].split(" ")[0]: f["instead"] for f in m["fallbacks"]}
    tally.check("--bind compact" in missing.get("numactl", "") and "lscpu" in missing
                and m["machine"]["lscpu"] is None and m["scripts_commit"] is None,
                "machine.json fallbacks: numactl -> uts --bind compact, no lscpu, no git", json.dumps(m["fallbacks"]))
    runs = read_runs(os.path.join(out, "runs.csv"))
    has_bind = "--bind" in subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    want = "uts --bind compact" if has_bind else "OMP_PLACES=cores OMP_PROC_BIND=close"
    tally.check(all(r["pinning"] == want for r in runs) and all(r["bind"] == ("compact" if has_bind else "")
                                                               for r in runs),
                "runs.csv: pinned with %s, no numactl" % want, str([(r["pinning"], r["bind"]) for r in runs]))
    # One schema for every kind: a pool study's machine.json has the scaling study's keys.
    pool_conf = os.path.join(tmp, "pool.conf")
    with open(pool_conf, "w") as f:
        f.write(POOL)
    pout = os.path.join(tmp, "pool")
    p = subprocess.run([study, "pool", "--config", pool_conf, "--out", pout, "--uts", binary], capture_output=True,
                       text=True, timeout=120)
    with open(os.path.join(pout, "machine.json")) as f:
        pm = json.load(f)
    tally.check(p.returncode == 0 and pm["schema"] == scaling_machine["schema"] == 1 and pm["study"] == "pool"
                and set(pm) - {"mpirun"} == set(scaling_machine) - {"mpirun"}
                and set(pm["machine"]) == set(scaling_machine["machine"]),
                "machine.json: one schema for scaling and pool studies",
                str(set(pm) ^ set(scaling_machine)) + p.stderr[-300:])


def check_setup_sh(tally, root, tmp):
    bare = os.path.join(tmp, "bare")
    os.makedirs(bare)
    for tool in ("dpkg-query", "grep"):
        if shutil.which(tool):
            os.symlink(shutil.which(tool), os.path.join(bare, tool))
    bash = shutil.which("bash") or "/bin/bash"
    script = 'source "%s/scripts/lib/setup.sh" && uts_install bash no-such-package-for-uts; echo "status $?"' % root
    p = subprocess.run([bash, "-c", script], capture_output=True, text=True, timeout=60, env=dict(os.environ,
                                                                                                 PATH=bare))
    if not os.path.exists(os.path.join(bare, "dpkg-query")):
        tally.check("no dpkg-query" in p.stderr and "status 0" in p.stdout,
                    "uts_install without dpkg-query says so and goes on", p.stderr)
        return
    tally.check("no apt-get" in p.stderr and "no-such-package-for-uts" in p.stderr and "bash" not in
                p.stderr.split("install")[-1] and "status 0" in p.stdout,
                "uts_install without apt-get names the missing packages (only those) and goes on (status 0)",
                p.stderr + p.stdout)


def check_plot_results(tally, root, tmp):
    plot = os.path.join(root, "scripts", "plot-results")

    def machine(folder):
        if "machine.json" not in os.listdir(folder):
            return {}
        with open(os.path.join(folder, "machine.json")) as f:
            m = json.load(f)
        return m if isinstance(m, dict) else {}
    # The committed study sets (schema 1); a set in another shape is not
    # read here: the legacy shapes are built below.
    sets = []
    for folder, dirs, files in os.walk(os.path.join(root, "results")):
        dirs.sort()
        if "machine.json" in files and machine(folder).get("schema") == 1:
            sets.append(folder)
    tally.check(len(sets) >= 1, "committed study result sets found in results/", str(sets))
    # Each redraw takes about 5 s of matplotlib (SVG only). CI redraws the newest set
    # of each study kind (sets are named by date); UTS_TEST_EXTENDED=1
    # (scripts/test --extended) redraws every one. Legacy sets are quick.
    newest = {}
    for folder in sets:
        m = machine(folder)
        if m.get("schema") == 1:
            newest[m.get("study")] = max(newest.get(m.get("study"), folder), folder)
    every = os.environ.get("UTS_TEST_EXTENDED") == "1"
    for folder in sets:
        name = os.path.relpath(folder, root)
        m = machine(folder)
        if m.get("schema") == 1 and not every and newest[m.get("study")] != folder:
            print("skip  plot-results %s: an older %s set (UTS_TEST_EXTENDED=1 redraws it)" % (name, m.get("study")))
            continue
        copy = os.path.join(tmp, "results", name.replace(os.sep, "_"))
        shutil.copytree(folder, copy)
        p = subprocess.run([plot, copy], capture_output=True, text=True, timeout=300)
        svgs = [f for f in os.listdir(copy) if f.endswith(".svg")]
        tally.check(p.returncode == 0 and svgs and "Traceback" not in p.stderr,
                    "plot-results %s: redrawn (%s study)" % (name, m.get("study")), p.stderr[-800:])
    # The two shapes of a result set written before scripts/study: a
    # machine.json without "schema", and a runs.csv without machine.json.
    for shape, files in (("machine.json without schema", {"machine.json": '{"config": {"name": "default"}}\n',
                                                           "runs.csv": "tree,threads,seconds\nT1L,1,1.0\n"}),
                         ("runs.csv without machine.json", {"runs.csv": "tree,threads,seconds\nT1L,1,1.0\n"})):
        legacy = os.path.join(tmp, "legacy-" + shape.split()[0].replace(".", "-"))
        os.makedirs(legacy)
        for name, text in files.items():
            with open(os.path.join(legacy, name), "w") as f:
                f.write(text)
        p = subprocess.run([plot, legacy], capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and one_line(p) and "legacy result set" in p.stderr,
                    "plot-results on a legacy set (%s): one line, exit 2" % shape, p.stderr[-800:])
    p = subprocess.run([plot, os.path.join(root, "results")], capture_output=True, text=True, timeout=60)
    tally.check(p.returncode == 2 and one_line(p) and "not a study folder" in p.stderr,
                "plot-results on a folder that holds no study: one line, exit 2", p.stderr)


def main():
    root, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    study = os.path.join(root, "scripts", "study")
    tally = Tally()
    # Figures as SVG only (docs/studies.md section 6): the front end is under
    # test here, and test_scaling_study checks the default PNG + SVG.
    os.environ["UTS_FIGURE_FORMATS"] = "svg"
    with tempfile.TemporaryDirectory() as tmp:
        presets = os.path.join(tmp, "presets")
        os.makedirs(presets)
        with open(os.path.join(presets, "tiny.conf"), "w") as f:
            f.write(TINY)
        check_usage(tally, study, binary, presets, tmp)
        scaling_machine = check_resume(tally, study, binary, presets, tmp)
        check_no_numactl(tally, study, binary, presets, tmp, scaling_machine)
        check_setup_sh(tally, root, tmp)
        check_plot_results(tally, root, tmp)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
