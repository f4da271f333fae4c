#!/usr/bin/env python3
"""scripts/study hierarchy --quick (configs/studies/hierarchy.conf's
[quick] section: T1, 4 threads in 2 virtual domains, random vs hier,
delays 0 and 10 µs, plus the --sequential cell): its runs and summary
(remote steals for hier, local + remote = steals, each domain's nodes),
machine.json with study = hierarchy, the locality figures and the
speedups against --sequential; a failing binary makes it exit 1.

usage: test_hierarchy_study.py SOURCE_ROOT UTS_BINARY
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from uts_check import Tally

FIGURES = ("hier_time", "hier_remote_steals", "hier_nodes_per_remote_steal", "hier_domain_share",
           "speedup_sequential", "efficiency_sequential", "nodes_per_sec")

FAKE = """#!/bin/sh
case " $* " in *" --preset "*) echo broken >&2; exit 3;; esac
exec %s "$@"
"""


def main():
    root, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    study = os.path.join(root, "scripts", "study")
    tally = Tally()
    # Figures as SVG only (docs/studies.md section 6): PNG doubles the
    # drawing, and test_scaling_study and test_pool_study check it.
    os.environ["UTS_FIGURE_FORMATS"] = "svg"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "h")
        p = subprocess.run([study, "hierarchy", "--quick", "--out", out, "--uts", binary], capture_output=True,
                           text=True, timeout=300)
        # 2 victims x 2 delays + 1 sequential = 5 cells, x (1 warm-up + 2 reps) = 15 runs
        tally.check(p.returncode == 0 and "[run 15/15]" in p.stderr, "quick hierarchy study runs", p.stderr[-1500:])
        if p.returncode != 0:
            return tally.finish()
        with open(os.path.join(out, "machine.json")) as f:
            m = json.load(f)
        tally.check(m["schema"] == 1 and m["study"] == "hierarchy" and m["config"]["name"] == "hierarchy"
                    and m["config"]["quick"] is True and m["definition"]["remote_delay"] == [0, 10000],
                    "machine.json: study hierarchy, hierarchy.conf's [quick] section")
        with open(os.path.join(out, "summary.csv")) as f:
            rows = list(csv.DictReader(f))
        par = [r for r in rows if r["engine"] == "parallel"]
        tally.check({(r["victim"], r["remote_delay_ns"]) for r in par} ==
                    {("random", "0"), ("random", "10000"), ("hier", "0"), ("hier", "10000")}
                    and all(r["seconds_n"] == "2" for r in rows),
                    "summary: one cell per victim and delay, n = 2 (the warm-up left out)")
        tally.check(all(float(r["remote_steals_median"]) > 0 for r in par if r["victim"] == "hier"),
                    "hier cells have remote steals")
        tally.check(all(r["speedup_vs_seq"] != "" and r["speedup_vs_1pe"] == "" for r in par),
                    "speedups against --sequential (no 1-thread cell with 2 domains)")
        with open(os.path.join(out, "runs.csv")) as f:
            runs = [r for r in csv.DictReader(f) if r["engine"] == "parallel"]
        tally.check(all(int(r["local_steals"]) + int(r["remote_steals"]) == int(r["steals"])
                        and sum(int(x) for x in r["domain_nodes"].split(";")) == int(r["size"]) for r in runs),
                    "runs: local + remote = steals; the domains' nodes sum to the tree")
        for name in FIGURES:
            path = os.path.join(out, "%s.svg" % name)
            tally.check(os.path.exists(path) and os.path.getsize(path) > 1000, "figure %s.svg" % name)
        fake = os.path.join(tmp, "fake")
        with open(fake, "w") as f:
            f.write(FAKE % binary)
        os.chmod(fake, 0o755)
        p = subprocess.run([study, "hierarchy", "--quick", "--out", os.path.join(tmp, "f"), "--uts", fake],
                           capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 1 and "exited 3" in p.stderr, "a failing run makes the study exit 1",
                    "rc=%d %s" % (p.returncode, p.stderr[-300:]))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
