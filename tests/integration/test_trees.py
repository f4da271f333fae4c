#!/usr/bin/env python3
"""Exactness of uts against the reference.

usage: test_trees.py UTS_BINARY REFERENCE_CSV SUITE [extra uts args...]
  SUITE small   : small trees of every type/shape/convention vs reference_uts.py
  SUITE samples : the ~4M-node sample trees (T1 T3 from the CSV; T2 T4 T5 presets)
  SUITE long    : T1L and T3L from the CSV
Extra arguments (e.g. --sequential, --threads 4 --steal one) go to every run.
"""
import csv
import sys

import reference_uts
from small_trees import SMALL_TREES
from uts_check import Tally, hash_path, results_of, run_json


def csv_trees(path, names):
    with open(path) as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    for name in names:
        r = rows[name]
        yield name, r["args"].split(), int(r["size"]), int(r["depth"]), int(r["leaves"])


def main():
    binary, ref_csv, suite = sys.argv[1], sys.argv[2], sys.argv[3]
    extra = sys.argv[4:]
    tally = Tally()
    engine = [a for a in extra if a not in ("--verify",)]
    print("child ids hashed by: %s (%s)" % (hash_path(binary, engine), " ".join(extra) or "default engine"))
    if suite == "small":
        for name, args, ref_params in SMALL_TREES:
            params = dict(reference_uts.DEFAULTS)
            params.update(ref_params)
            expected = reference_uts.traverse(params)
            got = results_of(run_json(binary, args.split() + extra))
            tally.check(got == expected, "%s (%s)" % (name, args), "got %s expected %s" % (got, expected))
    elif suite in ("samples", "long"):
        names = ["T1", "T3"] if suite == "samples" else ["T1L", "T3L"]
        for name, args, size, depth, leaves in csv_trees(ref_csv, names):
            got = results_of(run_json(binary, args + extra))[:3]
            tally.check(got == (size, depth, leaves), "%s from the CSV" % name,
                        "got %s expected %s" % (got, (size, depth, leaves)))
        if suite == "samples":
            for name in ["T2", "T4", "T5"]:
                rec = run_json(binary, ["--preset", name, "--verify"] + extra)
                tally.check(rec["verified"] is True, "%s preset --verify" % name)
    else:
        print("unknown suite " + suite)
        return 2
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
