#!/usr/bin/env python3
"""The exactness matrix: every thread count x steal x victim x init policy on
T1, T3 and small trees of every type must give the sequential run's size,
depth, leaves and checksum, per-thread nodes must sum to the size, and every
node shared must have been stolen or reclaimed. Thread counts go well past
this machine's cores.

usage: test_matrix.py UTS_BINARY REFERENCE_CSV [--reps N] [--threads 1,2,...]
"""
import argparse
import csv
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from small_trees import SMALL_TREES  # noqa: E402
from uts_check import Tally, results_of, run_json  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("csv")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--threads", default="1,2,3,4,8,16")
    ap.add_argument("--trees", default="T1,T3,small")
    args = ap.parse_args()

    with open(args.csv) as f:
        rows = {r["name"]: r["args"].split() for r in csv.DictReader(f)}
    trees = []
    for name in args.trees.split(","):
        if name == "small":
            trees += [(n, a.split()) for n, a, _ in SMALL_TREES]
        else:
            trees.append((name, rows[name]))

    tally = Tally()
    baseline = {name: results_of(run_json(binary_args[0], binary_args[1] + ["--sequential"]))
                for name, binary_args in ((n, (args.binary, a)) for n, a in trees)}
    threads = [int(t) for t in args.threads.split(",")]
    policies = list(itertools.product(["half", "one", "chunk:8"], ["random", "linear", "tree"], ["root", "balanced"]))
    for name, tree_args in trees:
        mismatches = []
        runs = 0
        for p, (steal, victim, init), rep in itertools.product(threads, policies, range(args.reps)):
            cfg = ["--threads", str(p), "--steal", steal, "--victim", victim, "--init", init]
            rec = run_json(args.binary, tree_args + cfg, timeout=300)
            runs += 1
            got = results_of(rec)
            per_thread = sum(t["nodes"] for t in rec["threads"])
            agg = rec["aggregates"]
            conserved = agg["nodes_shared"] == agg["nodes_stolen"] + agg["nodes_reclaimed"]
            if got != baseline[name] or per_thread != got[0] or len(rec["threads"]) != p or not conserved:
                mismatches.append("%s -> %s (per-thread sum %d; shared %d, stolen %d, reclaimed %d)" % (
                    " ".join(cfg), got, per_thread, agg["nodes_shared"], agg["nodes_stolen"], agg["nodes_reclaimed"]))
        tally.check(not mismatches, "%s: %d parallel runs match the sequential %s" % (name, runs, baseline[name]),
                    "; ".join(mismatches[:5]))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
