#!/usr/bin/python3
"""The tuned forms' --task-grain, measured: every foreign scheduler (and the
clang build's omp-task, libomp) at several grains against uts, on T1L and
T3L at 2 threads and -g 1, in rounds whose order is shuffled; each run's
record checked exact (--verify). Prints medians and the ratio of each grain
to the best grain of its scheduler, and writes grain.csv (one row per run).

usage: grain.py UTS [CLANG_UTS] [--reps N] [--grains 256,1024,...] [--trees T1L,T3L]
"""
import argparse
import csv
import json
import random
import statistics
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("uts")
ap.add_argument("clang_uts", nargs="?")
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--grains", default="256,1024,4096,16384,65536")
ap.add_argument("--trees", default="T1L,T3L")
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--seed", type=int, default=20261129)
a = ap.parse_args()

configs = []
for tree in a.trees.split(","):
    configs.append((tree, "uts", a.uts, "uts", None))
    for binary, label in ((a.uts, "gcc"), (a.clang_uts, "clang")):
        if not binary:
            continue
        scheds = subprocess.run([binary, "--list-schedulers"], capture_output=True, text=True,
                                check=True).stdout.split()
        for s in scheds:
            if s == "uts" or (label == "clang" and s != "omp-task"):
                continue  # the clang build adds only OpenMP under libomp
            for g in a.grains.split(","):
                configs.append((tree, "%s/%s" % (s, label), binary, s, int(g)))

rng = random.Random(a.seed)
rows = []
for rep in range(a.reps + 1):  # round 0: warm-up, not kept
    order = configs[:]
    rng.shuffle(order)
    for tree, name, binary, sched, grain in order:
        cmd = [binary, "--preset", tree, "--threads", str(a.threads), "--verify", "--format", "json",
               "--scheduler", sched]
        if grain:
            cmd += ["--scheduler-form", "tuned", "--task-grain", str(grain)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        rec = json.loads(p.stdout) if p.stdout.startswith("{") else None
        if p.returncode != 0 or not rec or rec.get("verified") is not True:
            sys.exit("grain.py: not exact or failed: %s\n%s" % (" ".join(cmd), p.stderr))
        if rep > 0:
            rows.append({"tree": tree, "scheduler": name, "grain": grain or "", "rep": rep,
                         "runtime": rec["engine"]["scheduler_runtime"],
                         "seconds": rec["timing"]["seconds"], "nodes_per_sec": rec["timing"]["nodes_per_sec"]})
with open("grain.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
print("%d threads, -g 1, %d rounds (+1 warm-up), M nodes/s medians; ratio = median / the best grain's median"
      % (a.threads, a.reps))
for tree in a.trees.split(","):
    by = {}
    for r in rows:
        if r["tree"] == tree:
            by.setdefault((r["scheduler"], r["grain"]), []).append(r["nodes_per_sec"] / 1e6)
    med = {k: statistics.median(v) for k, v in by.items()}
    print("\n" + tree)
    for sched in sorted({k[0] for k in med}):
        ks = sorted((k for k in med if k[0] == sched), key=lambda k: k[1] or 0)
        best = max(med[k] for k in ks)
        for k in ks:
            print("  %-18s grain %-6s %8.1f  %5.2f  (runs: %s)" % (sched, k[1] or "-", med[k], med[k] / best,
                                                                 " ".join("%.1f" % v for v in by[k])))
