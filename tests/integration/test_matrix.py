#!/usr/bin/env python3
"""The exactness matrix: every protocol x thread count x valid steal x victim
x init policy on T1, T3 and small trees of every type must give the
sequential run's size, depth, leaves and checksum, per-thread nodes must sum
to the size, and the protocol's conservation law must hold (every node
shared was stolen or reclaimed; every request was answered, refused or
withdrawn). Thread counts go well past this machine's cores.

usage: test_matrix.py UTS_BINARY REFERENCE_CSV [--reps N] [--threads 1,2,...]
                      [--trees T1,T3,small] [--protocols split,locked,request,chaselev]
                      [--victims random,linear,tree] [--inits root,balanced]
                      [--small pairs|full]
UTS_MATRIX_THREADS in the environment replaces the default thread counts
(1, 2, 3, 8; with UTS_TEST_EXTENDED=1, scripts/test --extended, 4 and 16
too; scripts/test's clang/libomp pass runs 3 and 16).
At one thread no node is stolen, so the steal amount and the victim policy
change nothing: each protocol runs there once per init policy.
T1 and T3 (4 million nodes each, where races have room) run the whole cross
product. The small trees run it with --small full (the default with
UTS_TEST_EXTENDED=1); by default they run a covering design instead: every
pair of values of any two of tree, thread count, protocol, steal amount,
victim and init, 65 runs in all instead of 2 210 (each a ~25 ms start
of uts on a tree of a few hundred nodes, so that is where the time went).
"""
import argparse
import csv
import itertools
import os
import sys

from small_trees import SMALL_TREES
from uts_check import Tally, covering_design, hash_path, results_of, run_json


def conservation(protocol, agg):
    """The protocol's bookkeeping law; returns what broke it, or ''."""
    if protocol in ("split", "locked"):
        if agg["nodes_shared"] != agg["nodes_stolen"] + agg["nodes_reclaimed"]:
            return "shared %d != stolen %d + reclaimed %d" % (
                agg["nodes_shared"], agg["nodes_stolen"], agg["nodes_reclaimed"])
    elif protocol == "request":
        if agg["nodes_shared"] != agg["nodes_stolen"]:
            return "sent %d != received %d" % (agg["nodes_shared"], agg["nodes_stolen"])
        if agg["requests_answered"] != agg["steals"]:
            return "answered %d != steals %d" % (agg["requests_answered"], agg["steals"])
        if agg["requests_sent"] != agg["requests_answered"] + agg["requests_refused"] + agg["requests_withdrawn"]:
            return "requests do not add up: %r" % ({k: v for k, v in agg.items() if k.startswith("requests")},)
    elif protocol == "chaselev":
        if agg["nodes_stolen"] != agg["steals"] or agg["shares"] is not None:
            return "chaselev: %d nodes in %d steals, shares %r" % (agg["nodes_stolen"], agg["steals"], agg["shares"])
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("csv")
    ap.add_argument("--reps", type=int, default=1)
    # The environment may narrow the thread counts (scripts/test's second,
    # clang + libomp pass); the command line wins.
    extended = os.environ.get("UTS_TEST_EXTENDED") == "1"
    ap.add_argument("--threads", default=os.environ.get("UTS_MATRIX_THREADS",
                                                        "1,2,3,4,8,16" if extended else "1,2,3,8"))
    ap.add_argument("--trees", default="T1,T3,small")
    ap.add_argument("--protocols", default="split,locked,request,chaselev")
    ap.add_argument("--victims", default="random,linear,tree")
    ap.add_argument("--inits", default="root,balanced")
    ap.add_argument("--small", choices=("pairs", "full"), default="full" if extended else "pairs")
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
    # Every run below hashes with --sha1 auto: say which kernel that is here
    # (avx512 where the CPU has it; the AVX-512-off suites cover the others).
    print("child ids hashed by: %s" % hash_path(args.binary))
    baseline = {name: results_of(run_json(binary_args[0], binary_args[1] + ["--sequential"]))
                for name, binary_args in ((n, (args.binary, a)) for n, a in trees)}
    threads = [int(t) for t in args.threads.split(",")]
    # Every steal amount each protocol can honour ("" = its own default).
    steals = {"split": ["half", "one", "chunk:8"], "locked": ["", "chunk:8"],
              "request": ["half", "one", "chunk:8"], "chaselev": ["one"]}
    policies = [(proto, steal, victim, init)
                for proto in args.protocols.split(",")
                for steal, victim, init in itertools.product(steals[proto], args.victims.split(","),
                                                             args.inits.split(","))]
    def cross_product():
        alone = set()  # (protocol, init) already run at one thread
        for p, (proto, steal, victim, init), rep in itertools.product(threads, policies, range(args.reps)):
            if p == 1:
                if (proto, init, rep) in alone:
                    continue
                alone.add((proto, init, rep))
            yield p, (proto, steal, victim, init)

    small_names = [n for n, _, _ in SMALL_TREES]
    pairs = {}  # small tree -> its rows of the covering design
    if args.small == "pairs":
        protos = args.protocols.split(",")
        axes = [("tree", tuple(n for n, _ in trees if n in small_names)), ("threads", tuple(threads)),
                ("protocol", tuple(protos)), ("steal", tuple(sorted({s for p in protos for s in steals[p]}))),
                ("victim", tuple(args.victims.split(","))), ("init", tuple(args.inits.split(",")))]

        def allowed(row):
            return "protocol" not in row or "steal" not in row or row["steal"] in steals[row["protocol"]]
        if axes[0][1]:
            groups = list(itertools.combinations([a for a, _ in axes], 2))
            for row in covering_design(axes, groups, allowed):
                for _ in range(args.reps):
                    pairs.setdefault(row["tree"], []).append(
                        (row["threads"], (row["protocol"], row["steal"], row["victim"], row["init"])))
        print("small trees: a covering design of %d runs (--small full: the cross product)"
              % sum(len(v) for v in pairs.values()))

    for name, tree_args in trees:
        mismatches = []
        runs = 0
        for p, (proto, steal, victim, init) in (pairs.get(name, []) if name in small_names and args.small == "pairs"
                                                 else cross_product()):
            cfg = ["--protocol", proto, "--threads", str(p), "--victim", victim, "--init", init]
            if steal:
                cfg += ["--steal", steal]
            rec = run_json(args.binary, tree_args + cfg, timeout=300)
            runs += 1
            got = results_of(rec)
            per_thread = sum(t["nodes"] for t in rec["threads"])
            law = conservation(proto, rec["aggregates"])
            if got != baseline[name] or per_thread != got[0] or len(rec["threads"]) != p or law:
                mismatches.append("%s -> %s (per-thread sum %d) %s" % (" ".join(cfg), got, per_thread, law))
        tally.check(not mismatches, "%s: %d parallel runs match the sequential %s" % (name, runs, baseline[name]),
                    "; ".join(mismatches[:5]))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
