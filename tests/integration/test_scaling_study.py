#!/usr/bin/env python3
"""scripts/scaling-study and scripts/plot-results on a tiny tree: well-formed
CSVs, machine facts and non-empty plots; an injected mismatch (a preset with a
wrong expected size) stops the study with exit status 1.

usage: test_scaling_study.py REPO_ROOT UTS_BINARY
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uts_check import Tally  # noqa: E402

# A balanced ternary tree of depth 7: (3^8 - 1) / 2 nodes, 3^7 leaves.
TINY = """description = balanced ternary tree, depth 7
tree = balanced
b0 = 3
depth = 7
expect-size = 3280
expect-depth = 7
expect-leaves = 2187
"""


def main():
    root, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    study = os.path.join(root, "scripts", "scaling-study")
    plot = os.path.join(root, "scripts", "plot-results")
    sys.path.insert(0, os.path.join(root, "scripts", "lib"))
    import study_data
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        presets = os.path.join(tmp, "presets")
        os.makedirs(presets)
        with open(os.path.join(presets, "tiny.conf"), "w") as f:
            f.write(TINY)
        with open(os.path.join(presets, "tinybad.conf"), "w") as f:
            f.write(TINY.replace("expect-size = 3280", "expect-size = 3281"))
        out = os.path.join(tmp, "out")

        def study_cmd(tree, folder):
            return [study, "--trees", tree, "--threads", "1,2", "--victim", "random,tree", "--reps", "1",
                    "--out", folder, "--uts", binary, "--preset-dir", presets]

        p = subprocess.run(study_cmd("tiny", out), capture_output=True, text=True, timeout=300)
        tally.check(p.returncode == 0, "study on a tiny tree succeeds", p.stderr[-2000:])
        tally.check("[run 4/4]" in p.stderr, "progress names the run and the total", p.stderr[-500:])

        with open(os.path.join(out, "runs.csv")) as f:
            reader = csv.DictReader(f)
            runs = list(reader)
            header = reader.fieldnames
        tally.check(header == study_data.RUN_COLUMNS, "runs.csv header", str(header))
        tally.check(len(runs) == 4 and all(r["size"] == "3280" for r in runs), "runs.csv: one exact row per run")
        tally.check({r["threads"] for r in runs} == {"1", "2"} and {r["victim"] for r in runs} == {"random", "tree"},
                    "runs.csv covers the requested cells")
        with open(os.path.join(out, "summary.csv")) as f:
            reader = csv.DictReader(f)
            summary = list(reader)
        tally.check(reader.fieldnames == study_data.SUMMARY_COLUMNS, "summary.csv header", str(reader.fieldnames))
        one = [r for r in summary if r["threads"] == "1"]
        tally.check(len(summary) == 4 and all(float(r["speedup"]) == 1.0 for r in one)
                    and all(float(r["efficiency"]) > 0 for r in summary), "summary.csv: speedup against 1 thread")
        with open(os.path.join(out, "machine.json")) as f:
            m = json.load(f)
        tally.check(all(k in m for k in ("lscpu", "numactl_hardware", "compiler", "openmp_runtime", "commit",
                                         "pinning")), "machine.json facts")
        plots = ["%s.%s" % (n, e) for n in ("speedup", "efficiency", "nodes_per_sec", "work_share", "steal_stats")
                 for e in ("png", "svg")]

        def plots_ok():
            for name in plots:
                path = os.path.join(out, name)
                if not os.path.isfile(path) or os.path.getsize(path) < 1000:
                    return False
                with open(path, "rb") as f:
                    head = f.read(8)
                if name.endswith(".png") and head != b"\x89PNG\r\n\x1a\n":
                    return False
            return True

        tally.check(plots_ok(), "all plots written as PNG and SVG")
        for name in plots:
            os.remove(os.path.join(out, name))
        p = subprocess.run([plot, out], capture_output=True, text=True, timeout=300)
        tally.check(p.returncode == 0 and plots_ok(), "plot-results redraws them from the CSVs", p.stderr[-1000:])

        bad = subprocess.run(study_cmd("tinybad", os.path.join(tmp, "bad")), capture_output=True, text=True,
                             timeout=300)
        tally.check(bad.returncode == 1 and "MISMATCH" in bad.stderr and "3281" in bad.stderr,
                    "a wrong expected value stops the study with exit 1", "rc=%d %s" % (bad.returncode,
                                                                                     bad.stderr[-500:]))
        p = subprocess.run([study, "--trees", "tiny", "--threads", "0", "--out", out, "--uts", binary],
                           capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2, "bad study definition exits 2", p.stderr)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
