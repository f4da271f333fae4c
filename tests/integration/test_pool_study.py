#!/usr/bin/env python3
"""scripts/study pool --quick: well-formed runs.csv and summary.csv (every
configuration, every trial, items conserved, the warm-up runs flagged and
left out of the summary, medians and CIs recomputed), machine.json (schema
1, study pool), the segment-size traces and every figure as non-empty PNG
and SVG; a run that reports conserved=false or exits non-zero stops the
study with exit status 1; a bad study file exits 2; --resume drops a run
whose trial rows were cut short and runs it again.

usage: PYTHONPATH=SOURCE_ROOT/scripts test_pool_study.py SOURCE_ROOT UTS_BINARY (meson test sets PYTHONPATH)
"""
import csv
import json
import os
import stat
import statistics
import subprocess
import sys
import tempfile

from uts_check import Tally

# A study of a few runs, for the failure cases (they stop before any plot).
TINY = """description = tiny
threads = 4
ops = 400
fill = 20
trials = 1
steal = half
seed = 1
searches = linear
mixes = 50
producers = 2
arrangements = contiguous
trace_producers = 2
trace_searches = linear
remote_delays = 0
delay_model = mix 50
"""

# Wraps the real uts: MODE=lie flips the first trial's conserved to false in
# the JSON of every producer/consumer run (exit status kept 0); MODE=crash
# makes those runs exit 3.
WRAPPER = """#!/usr/bin/env python3
import json, subprocess, sys
real, mode = %r, %r
args = sys.argv[1:]
if "--producers" not in args:
    sys.exit(subprocess.run([real] + args).returncode)
if mode == "crash":
    sys.stderr.write("simulated crash\\n")
    sys.exit(3)
p = subprocess.run([real] + args, capture_output=True, text=True)
rec = json.loads(p.stdout)
rec["trials"][0]["conserved"] = False
rec["results"]["conserved"] = False
print(json.dumps(rec))
"""

FIGURES = ("pool_mix_time", "pool_producers_time", "pool_trace", "pool_elements_per_steal",
         "pool_segments_per_steal", "pool_remote_delay")


def read_csv(path):
    with open(path) as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def main():
    root, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    study = os.path.join(root, "scripts", "study")
    from utstools import study_pool  # PYTHONPATH=scripts (tests/meson.build)
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        p = subprocess.run([study, "pool", "--quick", "--out", out, "--uts", binary], capture_output=True, text=True,
                           timeout=300)
        tally.check(p.returncode == 0, "study pool --quick succeeds", p.stderr[-2000:])
        tally.check("[run 1/" in p.stderr and "pool study" in p.stderr, "progress and the closing line",
                    p.stderr[-500:])

        with open(os.path.join(out, "machine.json")) as f:
            m = json.load(f)
        tally.check(m["schema"] == 1 and m["study"] == "pool" and m["config"]["name"] == "pool"
                    and m["definition"]["bind"] == "none" and m["definition"]["warmup"] == 1,
                    "machine.json: schema 1, study pool, its definition")
        s = m["definition"]
        configs = (len(s["searches"]) * len(s["mixes"])
                   + len(s["searches"]) * len(s["producers"]) * len(s["arrangements"]))
        delay_only = [d for d in s["remote_delays"] if d != 0]
        configs += len(s["searches"]) * len(delay_only)  # the delay model's 0 ns runs are producer runs
        tally.check(s["trials"] == 2 and s["delay_model"]["producers"] in s["producers"]
                    and s["trace_producers"] in s["producers"],
                    "--quick reads the [quick] keys", str(s))

        cols, all_runs = read_csv(os.path.join(out, "runs.csv"))
        tally.check(cols == study_pool.RUN_COLUMNS, "runs.csv: the pool columns", str(cols))
        runs = [r for r in all_runs if r["warmup"] == "0"]
        tally.check(len(runs) == configs * s["trials"] and len(all_runs) == 2 * len(runs),
                    "runs.csv: one row per trial of every configuration, as many again for the warm-up runs",
                    "%d rows, %d configurations" % (len(all_runs), configs))
        tally.check(all(r["conserved"] == "true" and r["lost"] == "0" and r["duplicated"] == "0" for r in runs),
                    "runs.csv: every trial conserved its items")
        tally.check(all(int(r["initial"]) + int(r["added"]) - int(r["removed"]) == int(r["remaining"])
                        and int(r["added"]) + int(r["removed"]) + int(r["aborted"]) == int(r["ops"]) for r in runs),
                    "runs.csv: items and operations add up")
        tally.check({r["victim"] for r in runs} == set(s["searches"])
                    and {r["mix"] for r in runs if r["model"] == "random"} == {str(x) for x in s["mixes"]}
                    and {r["arrangement"] for r in runs if r["model"] == "producer-consumer"} == {"contiguous",
                                                                                                 "spread"}
                    and {int(r["remote_delay_ns"]) for r in runs} == set(s["remote_delays"]),
                    "runs.csv covers the searches, mixes, arrangements and delays")

        cols, summary = read_csv(os.path.join(out, "summary.csv"))
        tally.check(cols == study_pool.SUMMARY_COLUMNS, "summary.csv header", str(cols))
        tally.check(len(summary) == configs and all(r["trials"] == str(s["trials"]) for r in summary),
                    "summary.csv: one row per configuration, its measured trials only", "%d rows" % len(summary))

        def ordered(r, name):
            if r[name + "_median"] == "":
                return r[name + "_min"] == r[name + "_max"] == ""
            lo = r[name + "_ci_low"] or r[name + "_median"]
            hi = r[name + "_ci_high"] or r[name + "_median"]
            return (float(r[name + "_min"]) <= float(lo) * (1 + 1e-5) + 1e-12
                    and float(lo) <= float(r[name + "_median"]) * (1 + 1e-5) + 1e-12
                    and float(r[name + "_median"]) <= float(hi) * (1 + 1e-5) + 1e-12
                    and float(hi) <= float(r[name + "_max"]) * (1 + 1e-5) + 1e-12)

        tally.check(all(ordered(r, n) for r in summary for n in ("add_us", "remove_us", "segments_per_steal",
                                                                  "elements_per_steal", "aborted")),
                    "summary.csv: min <= CI low <= median <= CI high <= max")
        ok = True
        for r in summary:
            trials = [t for t in runs if t["cell"] == r["cell"] and int(t["removed"]) > 0]
            if trials:
                want = statistics.median(float(t["mean_remove_us"]) for t in trials)
                ok &= abs(float(r["remove_us_median"]) - want) <= 1e-5 * want + 1e-12 \
                    and r["remove_us_n"] == str(len(trials))
        tally.check(ok, "summary.csv: remove time median over the measured trials that removed")
        stole = [r for r in summary if int(r["trials_with_steals"]) > 0]
        tally.check(stole and all(float(r["segments_per_steal_median"]) >= 1 and float(r["elements_per_steal_median"])
                                  >= 1 for r in stole), "summary.csv: steals measured where trials stole")
        mix0 = [r for r in summary if r["model"] == "random" and r["mix"] == "0"]
        tally.check(mix0 and all(r["add_us_median"] == "" and float(r["aborted_median"]) > 0 for r in mix0),
                    "summary.csv: mix 0 has no add time and aborts removes")

        traces = ["trace-%s-%s-%d.csv" % (v, a, s["trace_producers"]) for v in s["trace_searches"]
                  for a in ("contiguous", "spread")]
        ok = True
        for name in traces:
            path = os.path.join(out, name)
            if not os.path.isfile(path):
                ok = False
                continue
            tcols, trows = read_csv(path)
            ok &= tcols == ["trial", "seconds", "thread", "size"] and len(trows) > 0
        tally.check(ok, "segment-size traces written", ", ".join(traces))

        missing = []
        for name in FIGURES:
            for ext in ("png", "svg"):
                path = os.path.join(out, "%s.%s" % (name, ext))
                if not os.path.isfile(path) or os.path.getsize(path) < 1000:
                    missing.append(os.path.basename(path))
                    continue
                with open(path, "rb") as f:
                    head = f.read(8)
                if ext == "png" and head != b"\x89PNG\r\n\x1a\n":
                    missing.append(os.path.basename(path))
        tally.check(not missing, "every plot written as non-empty PNG and SVG", ", ".join(missing))

        with open(os.path.join(out, "pool_mix_time.svg")) as f:
            svg = f.read()
        tally.check("µs" in svg and "(us" not in svg and "95% bootstrap" in svg and "Machine:" in svg,
                    "figures: µs, the caption with the statistic and the machine line")

        # From here on the figures are SVG only (docs/studies.md section 6):
        # the default PNG + SVG was checked above, and PNG doubles the drawing.
        os.environ["UTS_FIGURE_FORMATS"] = "svg"
        # --resume after a run's trial rows were cut short: that run is dropped and run again.
        with open(os.path.join(out, "runs.csv")) as f:
            lines = f.readlines()
        with open(os.path.join(out, "runs.csv"), "w") as f:
            f.writelines(lines[:1 + 3 * s["trials"] + 1])
            f.write(lines[1 + 3 * s["trials"] + 1][:20])
        p = subprocess.run([study, "pool", "--quick", "--out", out, "--uts", binary, "--resume"],
                           capture_output=True, text=True, timeout=300)
        _, again = read_csv(os.path.join(out, "runs.csv"))
        keys = [(r["cell"], r["warmup"], r["rep"], r["trial"]) for r in again]
        tally.check(p.returncode == 0 and "3 of %d runs already" % (len(all_runs) // s["trials"]) in p.stderr
                    and "torn last line and 1 incomplete run" in p.stderr
                    and len(again) == len(all_runs) and len(set(keys)) == len(keys),
                    "--resume: the cut-short run dropped and run again; every trial row once", p.stderr[-800:])

        # Failures: a broken conservation report and a failed run stop the study with 1.
        tiny = os.path.join(tmp, "tiny.conf")
        with open(tiny, "w") as f:
            f.write(TINY)
        for mode, expect in (("lie", "NOT CONSERVED"), ("crash", "exited 3")):
            wrapper = os.path.join(tmp, "uts-" + mode)
            with open(wrapper, "w") as f:
                f.write(WRAPPER % (binary, mode))
            os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
            p = subprocess.run([study, "pool", "--config", tiny, "--out", os.path.join(tmp, mode), "--uts", wrapper],
                               capture_output=True, text=True, timeout=120)
            tally.check(p.returncode == 1 and expect in p.stderr,
                        "a run that %s stops the study with exit 1" % ("reports conserved=false" if mode == "lie"
                                                                      else "exits non-zero"),
                        "rc=%d %s" % (p.returncode, p.stderr[-500:]))
        p = subprocess.run([study, "pool", "--config", tiny, "--out", os.path.join(tmp, "ok"), "--uts", binary],
                           capture_output=True, text=True, timeout=120)
        tally.check(p.returncode == 0, "the tiny study itself succeeds", p.stderr[-500:])

        with open(tiny, "w") as f:
            f.write(TINY.replace("producers = 2", "producers = 9"))
        p = subprocess.run([study, "pool", "--config", tiny, "--out", os.path.join(tmp, "bad"), "--uts", binary],
                           capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and "producers 9" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
                    "a bad study file: one line, exit 2", p.stderr)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
