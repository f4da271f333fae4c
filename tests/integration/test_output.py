#!/usr/bin/env python3
"""Output contract (spec section 4): text lines, JSON, CSV, --output, --verify,
--max-nodes, informational flags.

usage: test_output.py UTS_BINARY
"""
import csv
import io
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uts_check import Tally, run_uts  # noqa: E402

T1 = ["-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"]


def main():
    binary = sys.argv[1]
    tally = Tally()

    p = run_uts(binary, T1 + ["--threads", "2", "-v"])
    tally.check(p.returncode == 0 and re.search(
        r"^Tree size = 4130071, tree depth = 10, num leaves = 3305118 \(80\.03%\)$", p.stdout, re.M) is not None,
        "text: the reference's tree size line")
    tally.check(re.search(r"^Wallclock time = [0-9.]+ sec, performance = [0-9]+ nodes/sec "
                          r"\([0-9]+ nodes/sec per PE\)$", p.stdout, re.M) is not None,
                "text: the reference's wallclock line")
    tally.check(len(re.findall(r"^\s+[01] +\d+ ", p.stdout, re.M)) == 2, "text -v: one row per thread")

    p = run_uts(binary, T1 + ["--threads", "3", "--format", "json"])
    rec = json.loads(p.stdout)
    tally.check(p.returncode == 0 and rec["status"] == "complete" and rec["results"]["size"] == 4130071,
                "json: one object with results")
    keys = {"nodes", "steal_attempts", "steals", "nodes_stolen", "deques_examined", "shares", "reclaims",
            "idle_seconds"}
    tally.check(len(rec["threads"]) == 3 and all(keys <= set(t) for t in rec["threads"]),
                "json: per-thread statistics")
    tally.check(sum(t["nodes"] for t in rec["threads"]) == rec["results"]["size"],
                "json: per-thread nodes sum to the tree size")
    agg = rec["aggregates"]
    tally.check({"steal_success_rate", "nodes_per_steal", "node_share_variance",
                 "node_share_relative_variance"} <= set(agg), "json: aggregates")
    tally.check({"cpu_model", "openmp_runtime", "compiler", "sha_ni"} <= set(rec["machine"]),
                "json: machine and build facts")
    tally.check(rec["parameters"]["tree"] == "geometric" and rec["engine"]["threads"] == 3,
                "json: parameters and engine")

    p = run_uts(binary, T1 + ["--sequential", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    tally.check(p.returncode == 0 and len(rows) == 1 and rows[0]["size"] == "4130071"
                and rows[0]["engine"] == "sequential", "csv: header and one row")

    with tempfile.TemporaryDirectory() as tmp:
        out_csv = os.path.join(tmp, "runs.csv")
        for _ in range(2):
            run_uts(binary, ["-t", "3", "-d", "4", "-b", "3", "--format", "csv", "--output", out_csv])
        with open(out_csv) as f:
            rows = list(csv.DictReader(f))
        tally.check(len(rows) == 2 and all(r["size"] == "121" for r in rows),
                    "--output appends csv rows under one header")
        out_json = os.path.join(tmp, "runs.jsonl")
        for _ in range(2):
            run_uts(binary, ["-t", "3", "-d", "4", "-b", "3", "--output", out_json])
        with open(out_json) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        tally.check(len(recs) == 2 and recs[1]["results"]["leaves"] == 81, "--output appends json records")

    p = run_uts(binary, ["--preset", "T1", "--verify", "--threads", "2"])
    tally.check(p.returncode == 0 and "Verify: OK" in p.stdout, "--verify passes on T1")
    p = run_uts(binary, ["--preset", "T1", "--verify", "--expect-size", "4130072"])
    tally.check(p.returncode == 1 and "MISMATCH" in p.stdout, "--verify mismatch exits 1")

    for engine in (["--sequential"], ["--threads", "4"]):
        p = run_uts(binary, ["--preset", "T1L", "--max-nodes", "100000", "--format", "json"] + engine)
        rec = json.loads(p.stdout)
        size = rec["results"]["size"]
        tally.check(p.returncode == 0 and rec["status"] == "max-nodes" and 100000 <= size < 10 ** 7,
                    "--max-nodes stops early and says so %s" % engine, "size=%d" % size)

    p = run_uts(binary, ["--list-presets"])
    tally.check(p.returncode == 0 and all(n in p.stdout for n in ["T1 ", "T1L", "T3XXL", "T5"]),
                "--list-presets lists the presets")
    p = run_uts(binary, ["--version"])
    tally.check(p.returncode == 0 and p.stdout.startswith("uts "), "--version")
    p = run_uts(binary, ["--help"])
    tally.check(p.returncode == 0 and "--steal" in p.stdout and "-t, --tree" in p.stdout, "--help")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
