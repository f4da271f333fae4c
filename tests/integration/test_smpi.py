#!/usr/bin/env python3
"""uts-smpi under SimGrid's SMPI: the MPI layer, unchanged, run by
the simulator on a modelled cluster (configs/smpi/).

  exactness  ranks {2, 7, 64, 256} on T1, T3 and the small trees, each run
             checked against uts --sequential (size, depth, leaves,
             checksum) and its per-rank statistics balanced as in the MPI
             matrix (test_mpi.balance_problems); the runs rotate through
             --rank-steal {lifeline, random} x --rank-termination {tree,
             ring}, both platforms, and timed and modelled computation
             (--model-rate); at 256 ranks every fourth tree, modelled,
             one run per mode (each run costs 6-17 s of simulation; every
             tree, half of them timed, costs about 150 s more:
             UTS_TEST_EXTENDED=1, scripts/test --extended)
  bad input  exits 2 with one line under smpirun, whatever the rank count
             (a bad option, --threads 2, --bind, --model-rate without
             smpi/simulate-computation:no, and the reverse)
  calibration  T1L at 2 ranks: the simulated time within 25% of a real
             mpirun -np 2 run's (1 thread per rank, medians of 3), timed
             (the simulator on one CPU) and modelled at the rate of a real
             1-thread run; measured again (up to 3 rounds) while a ratio
             is out of bounds, since a shared VM's vCPUs can be slow for a
             while. The tighter
             figures are a benchmark (scripts/scale-study --calibrate),
             not a test.

  study      scripts/scale-study on T1 at 4 and 16 ranks, two modes, and
             the weak series' smallest point (W12 at 16 ranks, 66 M nodes,
             8-15 s of simulation, in each of the two modes): its CSV (the series and rate_source
             columns), JSON (the table's rates and their source, the extra
             --uts-args) and four figures; efficiencies in (0, 1.05],
             every figure of a point filled (a value stuck at zero fails),
             the privatisation check identical; --rate's two forms parse;
             bad usage, a bad --rate among it, exits 2 with one line; the
             weak-tree CSV (configs/smpi/weak-trees.csv) matches uts on
             W12 (W13 too, about 10 s more, under UTS_TEST_EXTENDED=1)

usage: test_smpi.py UTS_SMPI UTS REFERENCE_CSV PLATFORM_DIR [--part exactness|bad-input|calibration|study|all]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

from small_trees import SMALL_TREES
from test_mpi import ENV, MPIRUN, balance_problems
from uts_check import Tally, results_of, run_json, until

RANKS = (2, 7, 64, 256)
MODES = (("lifeline", "tree"), ("random", "ring"), ("lifeline", "ring"), ("random", "tree"))


# A modelled rank's rate in the exactness runs: any rate is exact.
MODEL_RATE = 50000000
MODELLED = ["--cfg=smpi/simulate-computation:no"]


def smpirun(platform, ranks, binary, args, timeout=600, cfg=(), cpu=None):
    """cpu: run the simulator on that CPU alone."""
    cmd = ["smpirun", "-np", str(ranks), "-platform", platform] + list(cfg) + [binary] + args
    pin = None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu}))
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, preexec_fn=pin)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, -1, e.stdout or "", "HANG: timed out after %s s" % timeout)


def uts_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("uts:")]


def part_exactness(smpi, platforms, trees, expected, tally):
    k = 0
    extended = os.environ.get("UTS_TEST_EXTENDED") == "1"
    for ranks in RANKS:
        for i, (name, targs) in enumerate(trees.items()):
            if ranks == 256 and not extended and i % 4 != 0:
                continue
            steal, term = MODES[k % len(MODES)]
            platform = platforms[k % len(platforms)]
            modelled = (k // 2) % 2 == 1  # not in step with the platforms
            if ranks == 256 and not extended:
                modelled = True
            k += 1
            args = targs + ["--rank-steal", steal, "--rank-termination", term, "--format", "json"]
            if modelled:
                args += ["--model-rate", str(MODEL_RATE)]
            t0 = time.time()
            p = smpirun(platform, ranks, smpi, args, cfg=MODELLED if modelled else ())
            label = "smpirun -np %d -platform %s %s%s %s (%.1f s)" % (
                ranks, os.path.basename(platform), " ".join(MODELLED) + " " if modelled else "", smpi,
                " ".join(args), time.time() - t0)
            if p.returncode != 0:
                tally.check(False, label, "exit %d: %s" % (p.returncode, p.stderr.strip()[-600:]))
                continue
            rec = json.loads(p.stdout)
            got = results_of(rec)
            bad = balance_problems(rec, ranks, 1, rank_steal=steal, rank_termination=term)
            if rec["status"] != "complete":
                bad.append("status " + rec["status"])
            if rec["engine"]["ranks"] != ranks:
                bad.append("engine.ranks %s" % rec["engine"]["ranks"])
            if rec["engine"].get("model_rate") != (MODEL_RATE if modelled else None):
                bad.append("engine.model_rate %s" % rec["engine"].get("model_rate"))
            tally.check(got == expected[name] and not bad, label,
                        "got %s, want %s; %s" % (got, expected[name], "; ".join(bad)))


def part_bad_input(smpi, platform, tally):
    cases = [(["--preset", "T1", "--no-such-option"], "an unknown option"),
             (["--preset", "T1", "--threads", "2"], "one thread per simulated rank"),
             (["--preset", "T1", "--bind", "core"], "simulated host"),
             (["--preset", "T1", "--rank-w", "4", "--rank-steal", "random"], "rank-w"),
             (["--preset", "T1", "--model-rate", "1000000"], "--model-rate, computation timed"),
             (["--preset", "T1", "--model-rate", "0"], "--model-rate 0")]
    cfg_cases = [(["--preset", "T1"], "simulate-computation:no without --model-rate")]
    for ranks in (1, 4, 64):
        for args, what, cfg in [c + ((),) for c in cases] + [c + (MODELLED,) for c in cfg_cases]:
            p = smpirun(platform, ranks, smpi, args, timeout=120, cfg=cfg)
            lines = uts_lines(p.stderr)
            tally.check(p.returncode == 2 and len(lines) == 1,
                        "bad input (%s) at %d simulated ranks: exit 2, one line" % (what, ranks),
                        "exit %d, lines %s" % (p.returncode, lines))


def calibration_round(smpi, uts, platform, tree, cpu):
    """One measurement: (timed, modelled, real) medians of 3 and the modelled
    rate, or a string saying which run failed."""
    # The modelled rate: one real rank's (1 thread), the median of 3.
    rates = [run_json(uts, tree + ["--threads", "1"])["timing"]["nodes_per_sec"] for _ in range(3)]
    rate = int(statistics.median(rates))
    sim, model, real = [], [], []
    for _ in range(3):
        for out, extra, cfg, pin in ((sim, [], (), cpu), (model, ["--model-rate", str(rate)], MODELLED, None)):
            p = smpirun(platform, 2, smpi, tree + extra + ["--format", "json"], cfg=cfg, cpu=pin)
            if p.returncode != 0:
                return "smpirun -np 2 %s: %s" % (" ".join(extra), p.stderr.strip()[-400:])
            out.append(json.loads(p.stdout)["timing"]["seconds"])
        q = subprocess.run(MPIRUN + ["-np", "2", uts, "--threads", "1"] + tree + ["--format", "json"],
                           capture_output=True, text=True, env=ENV, timeout=300)
        if q.returncode != 0:
            return "mpirun -np 2: " + q.stderr.strip()[-400:]
        real.append(json.loads(q.stdout)["timing"]["seconds"])
    return statistics.median(sim), statistics.median(model), statistics.median(real), rate


def part_calibration(smpi, uts, platform, tree, tally, tries=3):
    # The timed simulation times both ranks' computation on the one core it
    # runs on; the two vCPUs of a shared VM can differ in speed (2 threads
    # reach 1.66-1.86x one thread here), and unpinned the timed ratio was
    # 1.06, 1.13 and 1.29 in three runs in a row, as the simulator landed on
    # one core or the other. It runs on the first CPU of this process's set.
    # Pinned, the other vCPU can still be slow for a while (a CI-like run,
    # 2026-11-28: 1-thread rate 59 M nodes/s, half the usual, real 2-rank
    # time 0.818 s against 0.49 s timed): the whole measurement is made
    # again, up to `tries` rounds, until both ratios are in bounds. A
    # simulator that is off by more than 25% fails every round.
    cpu = min(os.sched_getaffinity(0))
    rounds = 0

    def one_round():
        nonlocal rounds
        rounds += 1
        got = calibration_round(smpi, uts, platform, tree, cpu)
        if not isinstance(got, str):
            s, m, r, rate = got
            print("calibration, T1L at 2 ranks (medians of 3), round %d: real %.3f s; simulated, timed on CPU %d "
                  "%.3f s (ratio %.3f), modelled at %d nodes/s %.3f s (ratio %.3f)"
                  % (rounds, r, cpu, s, s / r, rate, m, m / r), flush=True)
        return got

    def settled(got):  # a failed run ends the retries too
        return isinstance(got, str) or (abs(got[0] / got[2] - 1) <= 0.25 and abs(got[1] / got[2] - 1) <= 0.25)
    got = until(one_round, settled, "calibration, both ratios within 25%", tries=tries)
    if isinstance(got, str):
        tally.check(False, "calibration: " + got.split(":")[0], got)
        return
    s, m, r, _ = got
    tally.check(abs(s / r - 1) <= 0.25, "calibration: simulated (timed) 2-rank time within 25%% of the real one (%.3f)" % (s / r))
    tally.check(abs(m / r - 1) <= 0.25,
                "calibration: simulated (modelled) 2-rank time within 25%% of the real one (%.3f)" % (m / r))


def part_weak_csv(uts, tally):
    """The committed weak trees are the trees uts builds from their
    parameters: the study checks every weak point against this CSV."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "configs", "smpi", "weak-trees.csv"), newline="") as f:
        rows = {r["name"]: r for r in csv.DictReader(x for x in f if not x.startswith("#"))}
    names = ["W12"] + (["W13"] if os.environ.get("UTS_TEST_EXTENDED") == "1" else [])
    for name in names:
        r = rows.get(name)
        if r is None:
            tally.check(False, "weak trees: %s in the CSV" % name)
            continue
        got = results_of(run_json(uts, r["parameters"].split() + ["--threads", "2", "--no-progress"]))
        want = (int(r["size"]), int(r["depth"]), int(r["leaves"]), int(r["checksum"], 16))
        tally.check(got == want, "weak trees: %s in the CSV is the tree uts builds from %s" % (name, r["parameters"]),
                    "uts %s, CSV %s" % (got, want))


def part_rate_option(script, tally):
    """--rate: one value (190e6, 190M) or TREE=R,...; anything else exits 2 with one line."""
    sys.path.insert(0, os.path.join(os.path.dirname(script)))
    from utstools.commands.scale_study import rate_option
    for text, want in (("190e6", 190e6), ("190M", 190e6), ("190000000", 190e6), ("1.5G", 1.5e9),
                       ("T1XXL=190M,T3L=230M", {"T1XXL": 190e6, "T3L": 230e6})):
        try:
            got = rate_option(text)
        except Exception as e:  # noqa: BLE001 (any failure is the check's detail)
            got = e
        tally.check(got == want, "scale-study: --rate %s parses" % text, "got %r" % (got,))
    for bad in ("abc", "0", "-5", "nan", "inf", "190X", "T1=", "=190M", "T1=190M,junk"):
        q = subprocess.run([script, "--rate=" + bad], capture_output=True, text=True, timeout=120)
        lines = [x for x in q.stderr.splitlines() if x.strip()]
        tally.check(q.returncode == 2 and len(lines) == 1, "scale-study: --rate %s exits 2 with one line" % bad,
                    "exit %d: %s" % (q.returncode, lines))


def part_study(smpi, uts, tally):
    import shutil
    import tempfile
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = os.path.join(root, "scripts", "scale-study")
    build = os.path.dirname(os.path.abspath(smpi))
    tmp = tempfile.mkdtemp(prefix="uts-scale-study-")
    try:
        out = os.path.join(tmp, "set")
        # Run by its shebang (/usr/bin/python3, with Debian's matplotlib), as a user would.
        part_rate_option(script, tally)
        part_weak_csv(uts, tally)
        # --uts-args with the default poll interval: passed through and
        # recorded, the figures the same as without.
        p = subprocess.run([script, "--build", build, "--trees", "T1", "--platforms", "fat-tree-ib",
                            "--modes", "lifeline/tree,random/ring", "--ranks", "4,16", "--weak", "16",
                            "--uts-args", "--rank-poll 256", "--jobs", "2", "--out", out],
                           capture_output=True, text=True, timeout=600)
        tally.check(p.returncode == 0, "scale-study: a small study runs", p.stderr.strip()[-600:])
        if p.returncode != 0:
            return
        with open(os.path.join(out, "scale-study.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "scale-study.json")) as f:
            doc = json.load(f)
        tally.check(sorted((r["series"], r["tree"], r["mode"], int(r["ranks"])) for r in rows)
                    == [("strong", "T1", "lifeline/tree", 4), ("strong", "T1", "lifeline/tree", 16),
                        ("strong", "T1", "random/ring", 4), ("strong", "T1", "random/ring", 16),
                        ("weak", "W12", "lifeline/tree", 16), ("weak", "W12", "random/ring", 16)],
                    "scale-study: a row per mode and rank count, and the weak point in each mode", str(rows))
        with open(os.path.join(out, "scale-study.csv")) as f:
            header = next(csv.reader(f))
        tally.check(header[-2:] == ["series", "rate_source"] and all(r["rate_source"] == "table" for r in rows)
                    and all(int(r["model_rate"]) == 190000000 for r in rows),
                    "scale-study: series and rate_source appended last; the table's 190 M nodes/s", str(header))
        tally.check(doc.get("rate_sources") == {"T1": "table", "W12": "table"}
                    and doc.get("uts_args") == ["--rank-poll", "256"]
                    and abs((doc.get("t1_model_ratio") or {}).get("T1/fat-tree-ib", 0) - 1) < 0.01,
                    "scale-study: the JSON records the rate sources, --uts-args, nodes / rate = T(1)",
                    str({k: doc.get(k) for k in ("rate_sources", "uts_args", "t1_model_ratio")}))
        bad = []
        for r in rows:
            e = float(r["efficiency"])
            if not 0 < e <= 1.05:
                bad.append("efficiency %s" % e)
            for k in ("sim_seconds", "global_steals", "messages_per_steal", "idle_fraction", "ramp_up_s",
                      "termination_latency_s", "work_share", "wall_s", "maxrss_mb", "model_rate", "efficiency_seq"):
                if not (r.get(k) not in (None, "") and float(r[k]) > 0):
                    bad.append("%s %s ranks: %s = %r" % (r["mode"], r["ranks"], k, r.get(k)))
            if int(r["nodes"]) != {"T1": 4130071, "W12": 66106929}[r["tree"]]:
                bad.append("nodes %s" % r["nodes"])
        tally.check(not bad, "scale-study: every figure of every point filled and in range", "; ".join(bad))
        chk = doc.get("privatization_check") or {}
        tally.check(chk.get("same") is True and doc.get("simgrid") and len(doc.get("platform_sha256", {})) == 2,
                    "scale-study: the privatisation check identical; SimGrid version and platform hashes recorded",
                    str(chk))
        figs = [f for f in ("efficiency.png", "latency.png", "breakdown.png", "weak.png")
                if os.path.exists(os.path.join(out, f)) and os.path.getsize(os.path.join(out, f)) > 0]
        tally.check(len(figs) == 4, "scale-study: four figures", str(figs))
        for args, what in ((["--platforms", "bogus"], "an unknown platform"), (["--out", out], "an existing --out"),
                           (["--calibrate", "--ranks", "4"], "--calibrate with --ranks"),
                           (["--weak", "32"], "a weak point the series lacks"),
                           (["--rate", "190M", "--measure-rate"], "--rate with --measure-rate"),
                           (["--trees", "T2"], "a tree without a table rate")):
            q = subprocess.run([script, "--build", build] + args, capture_output=True, text=True,
                               timeout=120)
            lines = [x for x in q.stderr.splitlines() if x.strip()]
            tally.check(q.returncode == 2 and len(lines) == 1, "scale-study: %s exits 2 with one line" % what,
                        "exit %d: %s" % (q.returncode, lines))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("smpi")
    ap.add_argument("uts")
    ap.add_argument("csv")
    ap.add_argument("platforms")
    ap.add_argument("--part", default="all", choices=["exactness", "bad-input", "calibration", "study", "all"])
    a = ap.parse_args()
    with open(a.csv) as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    platforms = [os.path.join(a.platforms, p) for p in ("fat-tree-ib.xml", "ethernet.xml")]
    tally = Tally()
    t0 = time.time()
    if a.part in ("exactness", "all"):
        trees = {"T1": rows["T1"]["args"].split(), "T3": rows["T3"]["args"].split()}
        trees.update({n: x.split() for n, x, _ in SMALL_TREES})
        expected = {name: results_of(run_json(a.uts, targs + ["--sequential"])) for name, targs in trees.items()}
        part_exactness(a.smpi, platforms, trees, expected, tally)
    if a.part in ("bad-input", "all"):
        part_bad_input(a.smpi, platforms[0], tally)
    if a.part in ("calibration", "all"):
        part_calibration(a.smpi, a.uts, platforms[0], rows["T1L"]["args"].split(), tally)
    if a.part in ("study", "all"):
        part_study(a.smpi, a.uts, tally)
    print("%s: %.0f s" % (a.part, time.time() - t0))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
