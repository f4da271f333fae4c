#!/usr/bin/env python3
"""scripts/study schedulers and scripts/bench-schedulers on a tiny tree
(3280 nodes): every scheduler of `uts --list-schedulers` in each form it
takes, every run exact, the node cost and efficiency recomputed from
runs.csv, every column of every file documented, the figures drawn and
redrawn by plot-results; a second binary with no runtime of its own adds
nothing (said); bad input exits 2 with one line.

usage: PYTHONPATH=REPO_ROOT/scripts test_schedulers_study.py REPO_ROOT UTS_BINARY (meson test sets PYTHONPATH)
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from uts_check import Tally

TINY = """description = balanced ternary tree, depth 7
tree = balanced
b0 = 3
depth = 7
expect-size = 3280
expect-depth = 7
expect-leaves = 2187
"""
FIGURES = ["sched_efficiency", "sched_throughput", "sched_memory"]
SVG_ONLY = dict(os.environ, UTS_FIGURE_FORMATS="svg")


def read(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def close(a, b, rel=1e-4):
    return abs(float(a) - float(b)) <= rel * max(abs(float(a)), abs(float(b)), 1e-12)


def section(text, title):
    """The text of a docs section, from its heading to the next one of its level."""
    start = text.index(title)
    level = text[:start].rsplit("\n", 1)[-1] + title.split(" ")[0]
    end = text.find("\n" + level.split(" ")[0] + " ", start + len(title))
    return text[start:end if end > 0 else len(text)]


def one_line_exit_2(tally, proc, what, prog):
    lines = proc.stderr.strip().splitlines()
    tally.check(proc.returncode == 2 and len(lines) == 1 and lines[0].startswith(prog + ":"),
                "%s: exit 2, one %s: line (rc %d: %s)" % (what, prog, proc.returncode, proc.stderr.strip()[:200]))


def check_study(tally, root, binary, presets, tmp, names):
    study = os.path.join(root, "scripts", "study")
    out = os.path.join(tmp, "study")
    proc = subprocess.run([study, "schedulers", "--trees", "tiny", "--granularity", "1,2", "--threads", "1,2",
                           "--reps", "1", "--warmup", "0", "--uts", binary, "--uts-clang", "none",
                           "--also-binary", "again=" + binary, "--preset-dir", presets, "--out", out],
                          capture_output=True, text=True, timeout=600, env=SVG_ONLY)
    tally.check(proc.returncode == 0, "study schedulers exits 0 (rc %d: %s)" % (proc.returncode, proc.stderr[-500:]))
    if proc.returncode != 0:
        return
    tally.check("binary again" in proc.stderr and "adds no scheduler with a runtime of its own" in proc.stderr,
                "a second binary with the same runtimes adds no cell, and the study says so")
    cols, runs = read(os.path.join(out, "runs.csv"))
    scols, summary = read(os.path.join(out, "summary.csv"))
    ccols, costs = read(os.path.join(out, "node_cost.csv"))
    tcols, thresholds = read(os.path.join(out, "thresholds.csv"))
    machine = json.load(open(os.path.join(out, "machine.json")))

    parallel = [r for r in runs if r["engine"] == "parallel"]
    tally.check({r["scheduler"] for r in parallel} == set(names),
                "every scheduler of uts --list-schedulers ran (%s)" % ", ".join(names))
    forms = {(r["scheduler"], r["form"]) for r in parallel}
    tally.check(("uts", "") in forms and all((n, f) in forms for n in names if n != "uts"
                                             for f in ("literature", "tuned")),
                "uts without a form, every other scheduler in both forms")
    curves = {(r["scheduler"], r["form"], r["runtime"]) for r in parallel}
    tally.check(len(runs) == 2 * (1 + 2 * len(curves)) and len(parallel) == 2 * 2 * len(curves),
                "runs.csv: per -g one --sequential run and every curve at 1 and 2 threads (%d runs)" % len(runs))
    tally.check(all(r["size"] == "3280" and r["depth"] == "7" and r["leaves"] == "2187"
                    and r["checksum"] == runs[0]["checksum"] for r in runs),
                "every run exact: size, depth, leaves and checksum equal to the preset's and to each other")
    tally.check(all(r["runtime"] and int(r["peak_rss_bytes"]) > 0 and r["granularity"] in ("1", "2") for r in runs),
                "every run names its runtime, its -g and a non-zero peak memory")
    tally.check(all(sum(int(x) for x in r["thread_nodes"].split(";")) == 3280 for r in runs),
                "every run's per-thread nodes add up to the tree")

    seq = {r["granularity"]: float(r["seconds"]) for r in runs if r["engine"] == "sequential"}
    tally.check(len(costs) == 2 and all(close(c["ns_per_node"], seq[c["granularity"]] * 1e9 / 3280) for c in costs),
                "node_cost.csv: ns per node = the --sequential time / size, per -g")
    by_cell = {r["cell"]: r for r in runs}
    ok = True
    for s in summary:
        if s["engine"] != "parallel":
            continue
        t = float(by_cell[s["cell"]]["seconds"])
        base1 = next(r for r in parallel if r["granularity"] == s["granularity"] and r["threads"] == "1"
                     and (r["scheduler"], r["form"], r["runtime"], r["binary"])
                     == (s["scheduler"], s["form"], s["runtime"], s["binary"]))
        ok &= close(s["speedup_vs_seq"], seq[s["granularity"]] / t)
        ok &= close(s["efficiency_vs_seq"], float(s["speedup_vs_seq"]) / int(s["pus_used"]))
        ok &= close(s["speedup_vs_1thread"], float(base1["seconds"]) / t)
        ok &= close(s["node_cost_ns"], seq[s["granularity"]] * 1e9 / 3280)
        ok &= float(s["peak_rss_bytes_median"]) > 0
    tally.check(ok, "summary.csv: speedup and efficiency vs --sequential (same -g), self-relative speedup, "
                "node cost and peak memory recomputed from runs.csv")
    tally.check(len(thresholds) == len(curves) and all(t["threads"] == "2" and t["verdict"] for t in thresholds),
                "thresholds.csv: a row per curve at the largest thread count, each with a verdict")
    tally.check(machine["study"] == "schedulers" and [b["label"] for b in machine["binaries"]] == ["main", "again"]
                and machine["binaries"][1]["schedulers"] == []
                and {s["runtime"] for b in machine["binaries"] for s in b["schedulers"]}
                == {c[2] for c in curves},
                "machine.json: the study, each binary with the schedulers and runtimes it ran")

    docs = open(os.path.join(root, "docs", "studies.md"), encoding="utf-8").read()
    text = section(docs, "## 9. The schedulers study")
    missing = [c for c in cols + scols + ccols + tcols if "`%s`" % c not in text and c not in
               ("cell", "warmup", "rep", "order", "time_utc", "bind", "smt", "oversubscribed", "pus_available",
                "pus_used", "placement", "hosts", "pinning", "placement_source", "speedup_ci_method")
               and not c.startswith("seconds_")]
    tally.check(not missing, "docs/studies.md section 9 names every column (missing: %s)" % ", ".join(missing))

    def drawn():
        return [f for f in FIGURES if not (os.path.isfile(os.path.join(out, f + ".svg"))
                                           and os.path.getsize(os.path.join(out, f + ".svg")) > 1000)]
    tally.check(not drawn() and sorted(machine["figures"]) == sorted(f + ".svg" for f in FIGURES),
                "the three figures drawn (missing: %s)" % drawn())
    for f in FIGURES:
        os.remove(os.path.join(out, f + ".svg"))
    proc = subprocess.run([os.path.join(root, "scripts", "plot-results"), out], capture_output=True, text=True,
                          timeout=300, env=SVG_ONLY)
    tally.check(proc.returncode == 0 and not drawn(), "plot-results redraws them (rc %d: %s)"
                % (proc.returncode, proc.stderr[-300:]))

    # --resume on the finished study: the same runs planned, none run again;
    # another second binary is another study, refused.
    base = [study, "schedulers", "--trees", "tiny", "--granularity", "1,2", "--threads", "1,2", "--reps", "1",
            "--warmup", "0", "--uts", binary, "--uts-clang", "none", "--preset-dir", presets, "--out", out, "--resume"]
    proc = subprocess.run(base + ["--also-binary", "again=" + binary], capture_output=True, text=True, timeout=300,
                          env=SVG_ONLY)
    tally.check(proc.returncode == 0 and "%d of %d runs already in runs.csv; 0 to run" % (len(runs), len(runs))
                in proc.stderr and len(read(os.path.join(out, "runs.csv"))[1]) == len(runs),
                "--resume on a finished study runs nothing again (rc %d: %s)" % (proc.returncode, proc.stderr[-300:]))
    proc = subprocess.run(base, capture_output=True, text=True, timeout=300)
    one_line_exit_2(tally, proc, "--resume without the study's second binary", "study")

    for what, extra in (("an unknown scheduler", ["--schedulers", "uts,nosuch"]),
                        ("--granularity 0", ["--granularity", "0"]),
                        ("--also-binary without LABEL=", ["--also-binary", binary]),
                        ("an unknown form", ["--forms", "fast"]),
                        ("an unknown tree", ["--trees", "tiny,nosuch"])):
        proc = subprocess.run([study, "schedulers", "--trees", "tiny", "--threads", "1", "--uts", binary,
                               "--uts-clang", "none", "--preset-dir", presets, "--out",
                               os.path.join(tmp, "bad")] + extra, capture_output=True, text=True, timeout=120)
        one_line_exit_2(tally, proc, "study schedulers with " + what, "study")
        tally.check(not os.path.exists(os.path.join(tmp, "bad", "runs.csv")), "%s: no run made" % what)


def check_bench(tally, root, binary, presets, tmp, names):
    bench = os.path.join(root, "scripts", "bench-schedulers")
    out = os.path.join(tmp, "bench")
    env = dict(os.environ, UTS_PRESET_DIR=presets)
    proc = subprocess.run([bench, "--build", os.path.dirname(binary), "--uts-clang", "none", "--trees", "tiny",
                           "--reps", "2", "--warmup", "0", "--order-seed", "3", "--out", out],
                          capture_output=True, text=True, timeout=600, env=env)
    tally.check(proc.returncode == 0, "bench-schedulers exits 0 (rc %d: %s)" % (proc.returncode, proc.stderr[-500:]))
    if proc.returncode != 0:
        return
    cols, rows = read(os.path.join(out, "bench-schedulers.csv"))
    bcols, best = read(os.path.join(out, "bench-schedulers-best.csv"))
    doc = json.load(open(os.path.join(out, "bench-schedulers.json")))
    foreign = [n for n in names if n != "uts"]
    tally.check(len(rows) == 1 + 2 * len(foreign) and {r["scheduler"] for r in rows} == set(names),
                "bench-schedulers.csv: uts and every foreign scheduler in both forms")
    tally.check(all(r["uts_over_config_ratio"] for r in rows if r["scheduler"] != "uts")
                and all(close(r["uts_over_config_ratio"],
                              float(r["time_s_median"]) / float(rows[0]["time_s_median"]))
                        for r in rows if r["scheduler"] != "uts"),
                "each foreign row: ratio = its median time / uts's (= uts's nodes/s / its)")
    tally.check(len(best) == len(foreign) + 1 and best[-1]["scheduler"] == "best"
                and all(b["uts_faster"] in ("true", "false") and b["uts_over_best_ci_low"] for b in best),
                "bench-schedulers-best.csv: a row per foreign scheduler and the best of all, each with a CI")
    tally.check(len(doc["runs"]) == 2 * len(rows) and all(r["size"] == 3280 for r in doc["runs"])
                and doc["order_seed"] == 3, "the JSON: every run exact, the order seed")
    helptext = subprocess.run([bench, "--help"], capture_output=True, text=True).stdout
    missing = [c for c in cols + bcols if c not in helptext and not c.startswith(("time_s_", "uts_over_"))]
    tally.check(not missing, "bench-schedulers --help documents every column (missing: %s)" % missing)
    for extra in (["--threads", "0"], ["--also-binary", "x"], ["--trees", "nosuch"]):
        proc = subprocess.run([bench, "--build", os.path.dirname(binary), "--uts-clang", "none", "--reps", "1"]
                              + extra, capture_output=True, text=True, timeout=120, env=env)
        one_line_exit_2(tally, proc, "bench-schedulers " + " ".join(extra), "bench-schedulers")


def main():
    root, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tally = Tally()
    names = subprocess.run([binary, "--list-schedulers"], capture_output=True, text=True).stdout.split()
    with tempfile.TemporaryDirectory() as tmp:
        presets = os.path.join(tmp, "presets")
        os.makedirs(presets)
        with open(os.path.join(presets, "tiny.conf"), "w") as f:
            f.write(TINY)
        check_study(tally, root, binary, presets, tmp, names)
        check_bench(tally, root, binary, presets, tmp, names)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
