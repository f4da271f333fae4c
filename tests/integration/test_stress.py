#!/usr/bin/env python3
"""Randomized oversubscribed stress runs per protocol, and per other
scheduler (`uts --list-schedulers`) and form: random tree (T1, T3 or
a small tree), thread count (2 to 32 on this 2-core machine), valid steal
amount, victim policy (hier included), initial spread, virtual domains and
remote delay and, for `request`, poll interval; each run must be exact. The seed is printed, so a failure can be replayed with
--seed.

usage: test_stress.py UTS_BINARY REFERENCE_CSV [--runs N] [--seed S]
"""
import argparse
import csv
import random
import subprocess
import sys
import time

from small_trees import SMALL_TREES
from uts_check import Tally, results_of, run_json

STEALS = {"split": ["half", "one", "chunk:1", "chunk:3", "chunk:50"],
          "locked": ["chunk:1", "chunk:5", "chunk:20", "chunk:64"],
          "request": ["half", "one", "chunk:2", "chunk:20"],
          "chaselev": ["one"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("csv")
    ap.add_argument("--runs", type=int, default=25, help="runs per protocol")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    print("seed %d (replay with --seed %d)" % (seed, seed), flush=True)
    rng = random.Random(seed)
    with open(args.csv) as f:
        rows = {r["name"]: r["args"].split() for r in csv.DictReader(f)}
    trees = [("T1", rows["T1"]), ("T3", rows["T3"])] + [(n, a.split()) for n, a, _ in SMALL_TREES]
    expected = {}
    tally = Tally()
    for proto in STEALS:
        failures = []
        for _ in range(args.runs):
            name, tree_args = rng.choice(trees)
            if name not in expected:
                expected[name] = results_of(run_json(args.binary, tree_args + ["--sequential"]))
            cfg = ["--protocol", proto, "--threads", str(rng.choice([2, 3, 5, 8, 13, 16, 32])),
                   "--steal", rng.choice(STEALS[proto]), "--victim", rng.choice(["random", "linear", "tree", "hier"]),
                   "--init", rng.choice(["root", "balanced"])]
            if "hier" in cfg or rng.random() < 0.3:  # locality: virtual domains, sometimes a remote delay
                threads = int(cfg[3])
                cfg += ["--domains", str(rng.randint(1, min(threads, 4))),
                        "--remote-delay", str(rng.choice([0, 0, 500, 5000]))]
            if proto == "request":
                cfg += ["-I", str(rng.choice([1, 2, 16, 256]))]
            try:
                got = results_of(run_json(args.binary, tree_args + cfg, timeout=120))
            except AssertionError as e:
                got = str(e)
            if got != expected[name]:
                failures.append("%s %s -> %s (expected %s)" % (name, " ".join(cfg), got, expected[name]))
        tally.check(not failures, "%s: %d randomized oversubscribed runs exact" % (proto, args.runs),
                    "; ".join(failures[:3]))
    # Every other scheduler this build registers (docs/schedulers.md), each
    # form; the tuned form at a random grain, small ones included (many
    # tasks, many hand-offs).
    listed = subprocess.run([args.binary, "--list-schedulers"], capture_output=True, text=True, timeout=60)
    for sched in [n for n in listed.stdout.split() if n != "uts"]:
        for form in ("literature", "tuned"):
            failures = []
            for _ in range(args.runs):
                name, tree_args = rng.choice(trees)
                if name not in expected:
                    expected[name] = results_of(run_json(args.binary, tree_args + ["--sequential"]))
                cfg = ["--scheduler", sched, "--scheduler-form", form,
                       "--threads", str(rng.choice([2, 3, 5, 8, 13, 16, 32]))]
                if form == "tuned":
                    cfg += ["--task-grain", str(rng.choice([1, 7, 64, 1000, 4096, 100000]))]
                try:
                    got = results_of(run_json(args.binary, tree_args + cfg, timeout=120))
                except AssertionError as e:
                    got = str(e)
                if got != expected[name]:
                    failures.append("%s %s -> %s (expected %s)" % (name, " ".join(cfg), got, expected[name]))
            tally.check(not failures, "--scheduler %s, %s form: %d randomized oversubscribed runs exact"
                        % (sched, form, args.runs), "; ".join(failures[:3]))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
