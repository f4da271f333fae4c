#!/usr/bin/env python3
"""scripts/hierarchy-study --quick: runs, writes its CSVs with remote steals
for hier, draws every plot; a failing binary makes it exit 1.

usage: test_hierarchy_study.py SOURCE_ROOT UTS_BINARY
"""
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uts_check import Tally  # noqa: E402


def main():
    root, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    script = os.path.join(root, "scripts", "hierarchy-study")
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "h")
        p = subprocess.run([script, "--quick", "--out", out, "--binary", binary], capture_output=True, text=True,
                           timeout=300)
        tally.check(p.returncode == 0 and "all exact" in p.stdout, "quick hierarchy study runs", p.stderr[-500:])
        rows = list(csv.DictReader(open(os.path.join(out, "summary.csv"))))
        tally.check({(r["victim"], r["remote_delay_ns"]) for r in rows} ==
                    {("random", "0"), ("random", "10000"), ("hier", "0"), ("hier", "10000")},
                    "summary: one row per victim and delay")
        tally.check(all(float(r["median_remote_steals"]) > 0 for r in rows if r["victim"] == "hier"),
                    "hier rows have remote steals")
        runs = list(csv.DictReader(open(os.path.join(out, "runs.csv"))))
        tally.check(all(int(r["local_steals"]) + int(r["remote_steals"]) == int(r["steals"]) for r in runs)
                    and all(abs(sum(float(x) for x in r["domain_node_shares"].split()) - 1) < 1e-3 for r in runs),
                    "runs: local + remote = steals; domain shares sum to 1")
        for name in ("hier_time", "hier_remote_steals", "hier_nodes_per_remote_steal", "hier_domain_share"):
            for ext in ("png", "svg"):
                path = os.path.join(out, "%s.%s" % (name, ext))
                tally.check(os.path.exists(path) and os.path.getsize(path) > 1000, "plot %s.%s" % (name, ext))
        # A binary that fails makes the study fail.
        fake = os.path.join(tmp, "fake")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho broken >&2\nexit 3\n")
        os.chmod(fake, 0o755)
        p = subprocess.run([script, "--quick", "--out", os.path.join(tmp, "f"), "--binary", fake],
                           capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 1, "a failing run makes the study exit 1", "rc=%d" % p.returncode)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
