"""Scale model: the MPI layer at 16 to 4,096 simulated ranks on SimGrid's SMPI.

Every point is one smpirun of build/uts-smpi (the project's MPI code,
unchanged) on a committed platform (configs/smpi/), one thread per
simulated rank, exact or the study stops (a preset by uts's --verify, a
weak-scaling tree against configs/smpi/weak-trees.csv: size, depth, leaves,
checksum). Computation is modelled (uts-smpi --model-rate, docs/smpi.md):
each node expanded costs 1/R seconds of simulated time. R, by default,
is the committed table of today's code on the fastest core measured (the
Zen 5 VM with AVX-512 hashing; docs/smpi.md): the T1 family (T1, T1L,
T1XL, T1XXL, W12-W16) 190 M nodes/s, T3L 230 M nodes/s; the same figure is
the sequential baseline of Eseq. --rate R sets it (one value, 190e6 or
190M, or TREE=R,...; trees not named keep the table's), --measure-rate
measures one real rank here instead (uts --threads 1, the first 400 M
nodes, median of --rate-reps; and --sequential for the baseline). The
JSON records each rate's source (rate_sources: table, option, measured).
A point's simulated time does not depend on this machine's load, and the
simulation is deterministic: a repeat gives the same figures to the
nanosecond (the study checks it once, below), so each point is run once
(n = 1) and has no error bar. With --timed SMPI times the real computation
instead (inflated at hundreds of ranks; docs/smpi.md), and figures vary.

Per point it records: simulated time; efficiency: strong series against
one simulated rank, E1 = T(1) / (P T(P)); weak series (a tree per rank
count) (nodes / rate) / (P T(P)), which for a modelled run is T(1) / (P
T(P)) with T(1) = nodes / rate (the study prints, for each strong tree,
nodes / rate over its simulated 1-rank T(1): 1.000 when the model holds);
against the sequential rate, Eseq = (nodes / sequential rate) / (P T(P));
global steals (answers with nodes plus lifeline pushes); messages per
successful steal; the idle fraction (1 - work time / (P T(P)), summed over
ranks); the ramp-up (the latest first arrival of nodes at a rank, --init
root: every rank but 0 starts empty) and how many ranks never received
any; the termination latency (last work anywhere to the last rank
knowing); where the rank-time goes (work, ramp-up = time before a rank's
first nodes, drain = time after its last work, the rest idle in between);
and the simulator's wall time and peak memory per point.

Study sets:
  default  T1XXL on the fat-tree, lifeline/tree (the default modes), 16-4,096
           (strong); the weak series on the fat-tree, lifeline/tree: T1XXL's
           family (-t 1 -a 3 -b 4 -r 19) with the depth raised so each rank
           keeps about 4.1 M nodes, W12 (-d 12) at 16 ranks, W13 at 64, W14
           at 256, W15 (= T1XXL) at 1,024, W16 at 4,096; T1L on the
           fat-tree, lifeline/tree, 16-4,096. Ethernet and the random modes:
           --full or by name.
  --quick  (a few minutes) T1L on the fat-tree, lifeline/tree 16-1,024 and
           random/ring 16-256 (and the weak series if --weak is given).
  --full   every tree x both platforms x all four modes x 16-4,096, and the
           weak series (many hours).
Or name them: --trees, --platforms, --modes, --ranks (then one series per
combination); --weak adds the weak series (--weak 16,64: only those
points), on --platforms and --modes if given, else the fat-tree,
lifeline/tree; --weak alone, or with only --platforms/--modes, runs the
weak series only.
--uts-args 'ARGS' appends ARGS to every simulated run (e.g. '--rank-poll
4096'; recorded in the JSON as uts_args).

--calibrate runs the calibration instead: simulated 1, 2
and 4 ranks (modelled at this machine's measured rate, and timed) against
real mpirun runs of the same trees on this machine (1 thread per rank,
--reps repetitions interleaved), the ratios of times and of steal and
message counts.

Output (--out DIR, created; nothing is overwritten): scale-study.txt (what
was printed), scale-study.csv (one row per point; columns below),
scale-study.json (points, provenance: command line, uts-smpi's first
record's build and machine, SimGrid's version, the platform files' SHA-256,
the rates and their sources, uts_args, the weak trees' rows), the platform
files copied, and figures (PNG + SVG): efficiency.png (E1 against ranks,
log-2 axis, one panel per tree, the published anchors and the goal, 0.90
at 1,024 and 0.80 at 4,096 ranks, drawn in; dashed, the same tree,
platform and mode curves of --baseline DIR, default
results/2026-11-24-smpi-scale, at that set's own rates; --baseline none
for none), weak.png (the weak series' efficiency, a 0.9 line),
latency.png (termination latency against ranks), breakdown.png (where
the rank-time goes, per tree of a strong series).

CSV columns: tree, platform, mode, ranks, nodes, sim_seconds, t1_seconds,
seq_rate, model_rate, efficiency, efficiency_seq, global_steals,
messages_per_steal, idle_fraction, ramp_up_s, unfed_ranks,
termination_latency_s, work_share, ramp_share, drain_share, between_share,
wall_s, maxrss_mb, series (strong or weak), rate_source (table, option or
measured; empty when timed). t1_seconds of a weak row is nodes / rate.

usage: scripts/scale-study [--quick | --full] [--trees T1L,...] [--platforms fat-tree-ib,ethernet]
                           [--modes lifeline/tree,...] [--ranks 16,...,4096] [--weak [16,...,4096]]
                           [--rate R | --rate TREE=R,... | --measure-rate [--rate-reps 3]]
                           [--uts-args 'ARGS'] [--baseline DIR|none] [--jobs 2] [--timed]
                           [--calibrate [--reps 3]] [--build build] [--out DIR]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time

from utstools import common, figure_formats
from utstools.common import ROOT, sha256_of, utc_iso

NAME = "scale-study"
PLATFORMS = ("fat-tree-ib", "ethernet")
MODES = ("lifeline/tree", "random/ring", "lifeline/ring", "random/tree")
RANKS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
MODELLED = ["--cfg=smpi/simulate-computation:no"]
RATE_NODES = 400000000  # nodes a rate measurement traverses at most (T1XXL: 4.2 G)
# Privatisation of globals off: every simulated rank shares the one copy of
# the code (dlopen privatisation copies it per rank: gigabytes at thousands
# of ranks, and cold caches; docs/smpi.md, "Computation: timed or
# modelled"). uts-smpi keeps its state in objects of each rank; the study
# checks that a point gives the same figures either way.
SHARED = ["--cfg=smpi/privatization:no"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV.pop("OMP_NUM_THREADS", None)
MPIRUN = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]
# New columns go at the end, so readers of older sets index them alike.
COLUMNS = ["tree", "platform", "mode", "ranks", "nodes", "sim_seconds", "t1_seconds", "seq_rate", "model_rate",
           "efficiency", "efficiency_seq", "global_steals", "messages_per_steal", "idle_fraction", "ramp_up_s",
           "unfed_ranks", "termination_latency_s", "work_share", "ramp_share", "drain_share", "between_share",
           "wall_s", "maxrss_mb", "series", "rate_source"]
# The default modelled rate (nodes/s of one rank), so the model describes
# today's code on the fastest core measured rather than whatever machine
# runs the simulator: the Zen 5 development VM with AVX-512 hashing,
# results/benchmarks/2026-11-28-visit-in-kernel.md (T1L: 176.3 M nodes/s
# on 1 thread, 178.7 with --sequential; T3L: 220.6 and 227.1). Rounded up,
# so the model is never kinder to the MPI layer than that core: a faster
# rank makes each message relatively dearer. The T1 family's trees
# (geometric, b0 4) hash at T1L's rate, the weak-scaling trees included.
# The same figure is the sequential baseline of Eseq.
T1_RATE, T3_RATE = 190e6, 230e6
RATE_TABLE = {"T1": T1_RATE, "T1L": T1_RATE, "T1XL": T1_RATE, "T1XXL": T1_RATE, "T3L": T3_RATE}
# The weak-scaling series: T1XXL's family (geometric, b0 4, seed 19) with
# the depth raised by one for each factor of 4 in ranks, so each rank keeps
# about T1XXL's 4.1 M nodes of 1,024 ranks. Sizes, leaves and checksums
# computed once with build/uts (configs/smpi/weak-trees.csv); every point is
# checked against them, since uts --verify knows only the presets.
WEAK_CSV = os.path.join(ROOT, "configs", "smpi", "weak-trees.csv")
WEAK = {16: "W12", 64: "W13", 256: "W14", 1024: "W15", 4096: "W16"}
RATE_TABLE.update({w: T1_RATE for w in WEAK.values()})
BASELINE = os.path.join(ROOT, "results", "2026-11-24-smpi-scale")


def fail(msg, code=1):
    """One line naming the tool; exit status 1 (a run failed) or 2 (bad usage)."""
    (common.usage_error if code == 2 else common.run_error)(NAME, msg)


def names(text, allowed=None, what="name"):
    out = [x.strip() for x in text.split(",") if x.strip()]
    if not out:
        raise argparse.ArgumentTypeError("no %s given" % what)
    for x in out:
        if allowed and x not in allowed:
            raise argparse.ArgumentTypeError("%r is not one of %s" % (x, ", ".join(allowed)))
    return out


def one_rate(text):
    """A rate in nodes/s: 190e6, 190000000, 190M (k, M, G suffixes)."""
    t = text.strip()
    mult = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}.get(t[-1:], 1.0)
    try:
        v = float(t[:-1] if mult != 1.0 else t) * mult
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a rate in nodes/s (190e6, 190M)" % text)
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError("%r: a rate is positive and finite" % text)
    return v


def rate_option(text):
    """--rate: one rate for every tree (a float), or TREE=RATE,... (a dict)."""
    if "=" not in text:
        return one_rate(text)
    out = {}
    for part in text.split(","):
        tree, sep, val = part.partition("=")
        if not sep or not tree.strip():
            raise argparse.ArgumentTypeError("%r is not TREE=RATE" % part)
        out[tree.strip()] = one_rate(val)
    return out


def weak_option(text):
    """--weak [RANKS]: the weak series, all its points or those rank counts."""
    got = rank_list(text)
    bad = [p for p in got if p not in WEAK]
    if bad:
        raise argparse.ArgumentTypeError("the weak series has %s ranks only" % ", ".join(map(str, WEAK)))
    return got


def weak_trees():
    """name -> CSV row (parameters, size, depth, leaves, checksum)."""
    try:
        with open(WEAK_CSV, newline="") as f:  # its opening lines (#) say what it is
            return {r["name"]: r for r in csv.DictReader(x for x in f if not x.startswith("#"))}
    except OSError as e:
        fail("%s: %s" % (WEAK_CSV, e), 2)


def rank_list(text):
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a list of rank counts" % text)
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError("rank counts of at least 1")
    return out


def run(cmd, env=None):
    """(returncode, stdout, stderr, wall seconds, peak RSS in MB of the command and its children)."""
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = [], []
    readers = [threading.Thread(target=lambda f, b: b.append(f.read()), args=(f, b)) for f, b in
               ((p.stdout, out), (p.stderr, err))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(p.pid, 0)  # its own rusage, with smpirun's reaped smpimain
    p.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join()
    return p.returncode, "".join(out), "".join(err), time.time() - t0, usage.ru_maxrss / 1024.0


def record(cmd, what, env=None, expect=None):
    """Run one point; its JSON record. Exact or the study stops: a preset by
    uts's --verify, a tree by parameters against expect (its CSV row)."""
    rc, out, err, wall, rss = run(cmd, env=env)
    if rc != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), rc, " ".join(err.strip().splitlines()[-3:])[-400:]))
    try:
        rec = json.loads(out)
    except ValueError:
        fail("%s printed no JSON record" % " ".join(cmd))
    if expect is not None and rec.get("status") == "complete":
        res = rec.get("results") or {}
        got = {"size": res.get("size"), "depth": res.get("depth"), "leaves": res.get("leaves"),
               "checksum": res.get("checksum")}
        want = {"size": int(expect["size"]), "depth": int(expect["depth"]), "leaves": int(expect["leaves"]),
                "checksum": expect["checksum"]}
        if got != want:
            fail("%s (%s): not the tree of %s (got %s, want %s)" % (" ".join(cmd), what, WEAK_CSV, got, want))
        return rec, wall, rss
    if rec.get("verified") is not True or rec.get("status") != "complete":
        fail("%s (%s): not exact (verified %s, status %s)" % (" ".join(cmd), what, rec.get("verified"),
                                                             rec.get("status")))
    return rec, wall, rss


def tree_args(a, tree):
    """A preset by name (uts-smpi verifies it), a weak tree by its parameters
    (the study checks it against the CSV: record())."""
    if tree in a.weak_rows:
        return a.weak_rows[tree]["parameters"].split()
    return ["--preset", tree]


def smpi_cmd(a, platform, ranks, tree, mode, rate):
    steal, term = mode.split("/")
    cfg = SHARED + ([] if a.timed else MODELLED)
    args = tree_args(a, tree) + ([] if tree in a.weak_rows else ["--verify"]) + ["--format", "json"]
    if ranks > 1:
        args += ["--rank-steal", steal, "--rank-termination", term]
    if not a.timed:
        args += ["--model-rate", str(int(rate))]
    args += a.uts_args_list  # after the study's own, so the user's win where uts takes the last
    return (["smpirun", "-np", str(ranks), "-platform", os.path.join(ROOT, "configs", "smpi", platform + ".xml")]
            + cfg + [a.smpi] + args)


def measures(rec, p, t1, seq_rate):
    """The point's figures from its record."""
    rk = rec.get("ranks") or []
    agg = rec.get("aggregates") or {}
    T = rec["timing"]["seconds"]
    nodes = rec["results"]["size"] if "size" in rec["results"] else rec["results"]["nodes"]
    work = sum(t.get("time_work") or 0 for t in rec.get("threads") or [])
    total = p * T
    fed = [r for r in rk[1:] if r.get("first_nodes_seconds") is not None]
    ramp = max((r["first_nodes_seconds"] for r in fed), default=None)
    ramp_sum = sum(r["first_nodes_seconds"] for r in fed)
    drain_sum = sum(max(0.0, T - (r.get("last_work_seconds") or 0)) for r in rk)
    m = {"nodes": nodes, "sim_seconds": T, "t1_seconds": t1, "seq_rate": seq_rate,
         "efficiency": t1 / total if t1 and total else None,
         "efficiency_seq": (nodes / seq_rate) / total if seq_rate and total else None,
         "global_steals": sum((r.get("steals") or 0) + (r.get("pushes_received") or 0) for r in rk),
         "messages_per_steal": agg.get("global_messages_per_steal"),
         "idle_fraction": 1 - work / total if total else None,
         "ramp_up_s": ramp, "unfed_ranks": max(0, len(rk) - 1 - len(fed)) if p > 1 else 0,
         "termination_latency_s": agg.get("termination_latency_seconds")}
    if p > 1 and total:
        m.update({"work_share": work / total, "ramp_share": ramp_sum / total, "drain_share": drain_sum / total,
                  "between_share": max(0.0, 1 - (work + ramp_sum + drain_sum) / total)})
    return m


def series_of(a):
    """(tree, platform, mode, ranks, "strong"|"weak"): strong series keep one
    tree; the weak series is a tree per rank count (WEAK), one point each."""
    weak_ranks = list(WEAK) if a.weak == "all" else (a.weak or [])
    if a.trees or a.platforms or a.modes or a.ranks or (a.weak and not (a.quick or a.full)):
        s = []
        if a.trees or a.ranks or not a.weak:
            s = [(t, pl, m, a.ranks or list(RANKS), "strong") for t in (a.trees or ["T1L"])
                 for pl in (a.platforms or list(PLATFORMS)) for m in (a.modes or ["lifeline/tree"])]
        return s + [(WEAK[p], pl, m, [p], "weak") for pl in (a.platforms or ["fat-tree-ib"])
                    for m in (a.modes or ["lifeline/tree"]) for p in weak_ranks]
    weak = [(WEAK[p], "fat-tree-ib", "lifeline/tree", [p], "weak") for p in (weak_ranks or list(WEAK))]
    if a.quick:
        return ([("T1L", "fat-tree-ib", "lifeline/tree", [16, 64, 256, 1024], "strong"),
                 ("T1L", "fat-tree-ib", "random/ring", [16, 64, 256], "strong")]
                + [w for w in weak if a.weak])
    if a.full:
        return [(t, pl, m, list(RANKS), "strong") for t in ("T1L", "T3L", "T1XL", "T1XXL") for pl in PLATFORMS
                for m in MODES] + weak
    # The default: the goal's tree and the weak series on the fat-tree with
    # the default modes, and T1L (the small tree, where the layer's costs
    # show first). Ethernet and the random modes: --full or by name.
    return ([("T1XXL", "fat-tree-ib", "lifeline/tree", list(RANKS), "strong")] + weak
            + [("T1L", "fat-tree-ib", "lifeline/tree", list(RANKS), "strong")])


def real_rate(a, tree, sequential):
    """A real run's rate (median of --rate-reps): at most RATE_NODES nodes of
    the tree (the first of a big tree's traversal; a run stopped by
    --max-nodes reports its rate)."""
    extra = ["--sequential"] if sequential else ["--threads", "1"]
    rates = []
    for _ in range(a.rate_reps):
        cmd = ([a.uts] + tree_args(a, tree) + ["--max-nodes", str(RATE_NODES), "--format", "json", "--no-progress"]
               + extra)
        rc, out, err, _, _ = run(cmd)
        rec = json.loads(out) if rc == 0 and out.strip() else None
        if rec is None or rec.get("status") not in ("complete", "max-nodes"):
            fail("%s: exit %d: %s" % (" ".join(cmd), rc, err.strip()[-300:]))
        rates.append(rec["timing"]["nodes_per_sec"])
    return statistics.median(rates), rates


def simgrid_version():
    try:
        p = subprocess.run(["smpirun", "-version"], capture_output=True, text=True, timeout=60)
        return (p.stdout + p.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


class Log:
    def __init__(self):
        self.lines = []
        self.lock = threading.Lock()

    def __call__(self, text=""):
        with self.lock:
            print(text)
            sys.stdout.flush()
            self.lines.extend(str(text).split("\n"))


def rates_of(a, trees, log):
    """Per tree: (model rate, sequential rate, source). --measure-rate: one
    real rank here (median of --rate-reps); --rate: the option's; otherwise
    RATE_TABLE. Without --measure-rate the sequential rate is the same
    figure (the table's core, T1L: 176.3 threaded against 178.7 sequential,
    is within the rounding)."""
    out = {}
    for t in trees:
        given = a.rate if isinstance(a.rate, float) else (a.rate or {}).get(t)
        if a.measure_rate:
            r, raw = real_rate(a, t, False)
            q, raw_seq = real_rate(a, t, True)
            out[t] = (r, q, "measured")
            log("%s: one real rank here (uts --threads 1) %.2f M nodes/s (median of %d: %s); sequential baseline "
                "%.2f M nodes/s (median of %d: %s)" % (t, r / 1e6, len(raw), ", ".join("%.2f" % (x / 1e6) for x in raw),
                                                     q / 1e6, len(raw_seq),
                                                     ", ".join("%.2f" % (x / 1e6) for x in raw_seq)))
            continue
        if given is not None:
            out[t] = (given, given, "option")
        elif t in RATE_TABLE:
            out[t] = (RATE_TABLE[t], RATE_TABLE[t], "table")
        else:
            fail("no table rate for %s: give --rate %s=R or --measure-rate" % (t, t), 2)
        log("%s: modelled rate %.1f M nodes/s (%s), also the sequential baseline" % (
            t, out[t][0] / 1e6, "--rate" if out[t][2] == "option" else "the table of today's fastest core"))
    return out


def study(a, log):
    series = series_of(a)
    if not series:
        fail("no point to run (--weak with rank counts outside %s?)" % ", ".join(map(str, WEAK)), 2)
    trees = list(dict.fromkeys(s[0] for s in series))
    kind = {s[0]: s[4] for s in series}
    got = rates_of(a, trees, log)
    rates = {t: v[0] for t, v in got.items()}
    seq = {t: v[1] for t, v in got.items()}
    source = {t: v[2] for t, v in got.items()}
    # T(1) per strong tree and platform: one simulated rank (no agent; the
    # network is not used). The weak series has no T(1) of its own (a tree
    # per rank count): its T(1) is nodes / rate, which is what a modelled
    # rank takes; the ratio printed here checks that on the strong trees.
    t1, t1_ratio = {}, {}
    for t in trees:
        if kind[t] != "strong":
            continue
        for pl in sorted({s[1] for s in series if s[0] == t}):
            rec, wall, _ = record(smpi_cmd(a, pl, 1, t, "lifeline/tree", rates[t]), "%s 1 rank" % t,
                                  expect=a.weak_rows.get(t))
            t1[(t, pl)] = rec["timing"]["seconds"]
            msg = ""
            if not a.timed:
                t1_ratio["%s/%s" % (t, pl)] = (rec["results"]["size"] / rates[t]) / t1[(t, pl)]
                msg = "; nodes / rate = %.4f s, %.5f of it" % (rec["results"]["size"] / rates[t],
                                                                 t1_ratio["%s/%s" % (t, pl)])
            log("%s on %s, 1 simulated rank: %.4f s simulated (%.1f s real)%s" % (t, pl, t1[(t, pl)], wall, msg))
    points = [(t, pl, m, p, k) for t, pl, m, rs, k in series for p in rs]
    # Largest first, so the long points do not end the study alone.
    points.sort(key=lambda x: (-x[3] * ({"T1XXL": 40, "T1XL": 16, "W16": 160, "W15": 40, "W14": 10, "W13": 3}
                                        .get(x[0], 1)), x))
    rows = []

    def one(pt):
        t, pl, m, p, k = pt
        cmd = smpi_cmd(a, pl, p, t, m, rates[t])
        rec, wall, rss = record(cmd, "%s %d" % (t, p), expect=a.weak_rows.get(t))
        row = {"tree": t, "platform": pl, "mode": m, "ranks": p, "model_rate": None if a.timed else int(rates[t]),
               "wall_s": wall, "maxrss_mb": rss, "series": k, "rate_source": None if a.timed else source[t]}
        base = t1.get((t, pl)) if k == "strong" else rec["results"]["size"] / rates[t]
        row.update(measures(rec, p, base, seq[t]))
        log("  %-6s %-11s %-13s %5d ranks: %.5f s simulated, E%s %.3f, Eseq %.3f, steals %d, msgs/steal %s, idle "
            "%.1f%%, ramp-up %s ms, latency %s ms (%.0f s real)" % (
                t, pl, m, p, row["sim_seconds"], "1" if k == "strong" else "weak", row["efficiency"],
                row["efficiency_seq"], row["global_steals"],
                "-" if row["messages_per_steal"] is None else "%.2f" % row["messages_per_steal"],
                100 * row["idle_fraction"], "-" if row["ramp_up_s"] is None else "%.3f" % (1e3 * row["ramp_up_s"]),
                "-" if row["termination_latency_s"] is None else "%.3f" % (1e3 * row["termination_latency_s"]), wall))
        return row, rec

    first_rec = None
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for row, rec in ex.map(one, points):
            rows.append(row)
            first_rec = first_rec or rec
    # Determinism and privatisation: the first strong series' 256-rank point
    # (or its largest under 256) again, with dlopen privatisation.
    check = None
    strong = [x for x in series if x[4] == "strong"]
    small = [p for p in strong[0][3] if 1 < p <= 256] if strong else []
    if small and not a.timed:
        t, pl, m, _, _ = strong[0]
        p = max(small)
        cmd = [x for x in smpi_cmd(a, pl, p, t, m, rates[t]) if x not in SHARED]
        rec, wall, _ = record(cmd, "check", expect=a.weak_rows.get(t))
        mine = next(r for r in rows if (r["tree"], r["platform"], r["mode"], r["ranks"]) == (t, pl, m, p))
        got = measures(rec, p, t1[(t, pl)], seq[t])
        same = all(got[k] == mine[k] for k in ("sim_seconds", "global_steals", "termination_latency_s", "ramp_up_s"))
        check = {"point": [t, pl, m, p], "same": same, "shared": mine["sim_seconds"], "privatized": got["sim_seconds"]}
        log("check: %s %s %s %d ranks again with dlopen privatisation: simulated %.9f s vs %.9f s, steals %d vs %d: %s"
            % (t, pl, m, p, got["sim_seconds"], mine["sim_seconds"], got["global_steals"], mine["global_steals"],
               "identical" if same else "DIFFERENT"))
        if not same:
            fail("a point differs with privatisation: globals are shared between simulated ranks (a bug)")
    rows.sort(key=lambda r: (r["series"] != "strong", trees.index(r["tree"]) if r["series"] == "strong" else 0,
                             PLATFORMS.index(r["platform"]) if r["platform"] in PLATFORMS else 9,
                             MODES.index(r["mode"]), r["ranks"]))
    return rows, first_rec, {"model_rates": rates, "sequential_rates": seq, "rate_sources": source,
                             "rate_table": RATE_TABLE if "table" in source.values() else None,
                             "t1_seconds": {"%s/%s" % k: v for k, v in t1.items()},
                             "t1_model_ratio": t1_ratio, "weak_trees": {t: a.weak_rows[t] for t in trees
                                                                        if t in a.weak_rows},
                             "privatization_check": check}


def calibrate(a, log):
    """Simulated 1, 2, 4 ranks (modelled, timed) against real mpirun, --reps interleaved."""
    rows = []
    for t in (a.trees or ["T1L", "T3L"]):
        rate, _ = real_rate(a, t, False)
        log("%s: one real rank %.2f M nodes/s (the modelled rate)" % (t, rate / 1e6))
        for p in (1, 2, 4):
            got = {"real": [], "modelled": [], "timed": []}
            for _ in range(a.reps):
                rec, _, _ = record(MPIRUN + ["-np", str(p), a.uts, "--preset", t, "--threads", "1", "--verify",
                                             "--format", "json", "--no-progress"], "real", env=ENV)
                got["real"].append(rec)
                for kind in ("modelled", "timed"):
                    a.timed = kind == "timed"
                    rec, _, _ = record(smpi_cmd(a, "fat-tree-ib", p, t, "lifeline/tree", rate), kind)
                    got[kind].append(rec)
            a.timed = False

            def med(kind, f):
                return statistics.median(f(r) for r in got[kind])
            steals = lambda r: sum((k.get("steals") or 0) + (k.get("pushes_received") or 0) for k in r.get("ranks") or [])  # noqa
            msgs = lambda r: sum((k.get("requests_sent") or 0) + (k.get("requests_received") or 0)  # noqa: E731
                                 + (k.get("lifeline_requests_sent") or 0) + (k.get("pushes_sent") or 0)
                                 for k in r.get("ranks") or [])
            secs = lambda r: r["timing"]["seconds"]  # noqa: E731
            real_t = med("real", secs)
            row = {"tree": t, "ranks": p, "reps": a.reps, "real_s": real_t, "model_rate": int(rate)}
            for kind in ("modelled", "timed"):
                row[kind + "_s"] = med(kind, secs)
                row[kind + "_ratio"] = row[kind + "_s"] / real_t
                rs, ss = med("real", steals), med(kind, steals)
                rm, sm = med("real", msgs), med(kind, msgs)
                row[kind + "_steal_ratio"] = ss / rs if rs else None
                row[kind + "_message_ratio"] = sm / rm if rm else None
            row["real_steals"], row["real_messages"] = med("real", steals), med("real", msgs)
            rows.append(row)
            fr = lambda v: "-" if v is None else "%.3f" % v  # noqa: E731
            log("  %s %d rank%s: real %.3f s; modelled %.3f s (x%.3f, steals x%s, messages x%s); timed %.3f s "
                "(x%.3f, steals x%s, messages x%s)  [medians of %d]" % (
                    t, p, "" if p == 1 else "s", real_t, row["modelled_s"], row["modelled_ratio"],
                    fr(row["modelled_steal_ratio"]), fr(row["modelled_message_ratio"]), row["timed_s"],
                    row["timed_ratio"], fr(row["timed_steal_ratio"]), fr(row["timed_message_ratio"]), a.reps))
    return rows


def baseline_doc(a):
    """The earlier set's JSON, or None (--baseline none, or unreadable: the
    figures then have no baseline curve, said on stderr)."""
    if a.baseline == "none":
        return None
    try:
        with open(os.path.join(a.baseline, NAME + ".json")) as f:
            doc = json.load(f)
        # Whether that set's MPI calls cost anything: its own copy of the
        # fat-tree platform says (the label of its curves names it).
        with open(os.path.join(a.baseline, "platforms", "fat-tree-ib.xml")) as f:
            m = re.search(r'id="smpi/iprobe" value="([^"]+)"', f.read())
        doc["iprobe_seconds"] = float(m.group(1)) if m else None
        return doc
    except (OSError, ValueError) as e:
        print("%s: --baseline %s unreadable (%s): no baseline drawn" % (NAME, a.baseline, e), file=sys.stderr)
        return None


def main(argv=None):
    ap = common.doc_parser(NAME, __doc__)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="T1L, fat-tree, two modes, 16-1,024 ranks (a few minutes)")
    g.add_argument("--full", action="store_true", help="every tree, platform, mode and rank count (hours)")
    g.add_argument("--calibrate", action="store_true", help="1, 2, 4 simulated ranks against real mpirun runs")
    g.add_argument("--replot", metavar="DIR", help="redraw the figures of the study in DIR from its scale-study.json")
    ap.add_argument("--trees", type=lambda s: names(s, what="tree"),
                    help="presets or weak trees (W12-W16), comma-separated")
    ap.add_argument("--platforms", type=lambda s: names(s, PLATFORMS, "platform"), help="fat-tree-ib, ethernet")
    ap.add_argument("--modes", type=lambda s: names(s, MODES, "mode"), help="STEAL/TERMINATION pairs")
    ap.add_argument("--ranks", type=rank_list, help="rank counts (default 16,32,...,4096)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="simulations at once (default: CPUs)")
    ap.add_argument("--timed", action="store_true", help="SMPI times the real computation (not modelled)")
    r = ap.add_mutually_exclusive_group()
    r.add_argument("--rate", type=rate_option, metavar="R|TREE=R,...",
                   help="modelled nodes/s: one for every tree (190e6, 190M) or per tree (T1XXL=190M,T3L=230M; "
                        "trees not named keep the table's); default: the table (T1 family 190M, T3L 230M)")
    r.add_argument("--measure-rate", action="store_true",
                   help="measure one real rank here instead (median of --rate-reps)")
    ap.add_argument("--rate-reps", type=int, default=3, help="runs measuring each tree's real rate (default 3)")
    ap.add_argument("--weak", nargs="?", const="all", type=weak_option, metavar="RANKS",
                    help="the weak series (W12 at 16 ranks ... W16 at 4,096), or only its points at RANKS")
    ap.add_argument("--uts-args", default="", metavar="'ARGS'",
                    help="extra uts-smpi arguments appended to every simulated run (e.g. '--rank-poll 4096')")
    ap.add_argument("--baseline", default=BASELINE, metavar="DIR",
                    help="an earlier set drawn dashed beside this one (default results/2026-11-24-smpi-scale; "
                         "'none': no baseline)")
    ap.add_argument("--reps", type=int, default=3, help="--calibrate: repetitions (default 3)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", metavar="DIR", help="write the result set into DIR (created; never overwritten)")
    a = ap.parse_args(argv)
    try:
        a.uts_args_list = shlex.split(a.uts_args)
    except ValueError as e:
        ap.error("--uts-args: %s" % e)
    a.weak_rows = weak_trees() if os.path.exists(WEAK_CSV) else {}
    figure_formats.formats(NAME)  # a bad UTS_FIGURE_FORMATS: exit 2 before any run
    if a.replot:
        from utstools import scale_plots
        try:
            with open(os.path.join(a.replot, NAME + ".json")) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail("--replot %s: no readable %s.json (%s)" % (a.replot, NAME, e), 2)
        for path in scale_plots.draw(doc["points"], doc, a.replot, baseline_doc(a)):
            print("%s: wrote %s" % (NAME, path), file=sys.stderr)
        return 0
    if a.jobs < 1 or a.rate_reps < 1 or a.reps < 1:
        ap.error("--jobs, --rate-reps and --reps are at least 1")
    if a.calibrate and (a.platforms or a.modes or a.ranks or a.timed or a.weak or a.rate or a.uts_args):
        ap.error("--calibrate takes only --trees and --reps")
    if a.calibrate:
        a.measure_rate = True  # the calibration compares with real runs here, at this machine's rate
    if a.baseline != "none" and not os.path.exists(os.path.join(a.baseline, NAME + ".json")):
        ap.error("--baseline %s: no %s.json there" % (a.baseline, NAME))
    a.smpi, a.uts = os.path.join(a.build, "uts-smpi"), os.path.join(a.build, "uts")
    for b in (a.smpi, a.uts):
        if not os.access(b, os.X_OK):
            fail("no %s (build with meson setup %s -Dsimgrid=enabled, or scripts/test builds it)" % (b, a.build), 2)
    if shutil.which("smpirun") is None:
        fail("smpirun not found (install libsimgrid-dev)", 2)
    if a.out:
        if os.path.exists(os.path.join(a.out, NAME + ".json")):
            fail("%s/%s.json exists; choose another --out folder (nothing is overwritten)" % (a.out, NAME), 2)
        os.makedirs(a.out, exist_ok=True)
    log = Log()
    started = utc_iso()
    t0 = time.time()
    how = ("timed by SMPI" if a.timed else "modelled (--model-rate, %s)" % (
        "one real rank's rate here" if a.measure_rate else "--rate" if a.rate else "the table's rates"))
    log("%s: %s; %s; %d simulation%s at once on %d CPUs" % (
        NAME, "calibration" if a.calibrate else "computation " + how, simgrid_version() or "SimGrid ?", a.jobs,
        "" if a.jobs == 1 else "s", os.cpu_count() or 0))
    if a.calibrate:
        rows, first, extra, cols = calibrate(a, log), None, {}, None
    else:
        rows, first, extra = study(a, log)
        cols = COLUMNS
    log("%s: %.0f s of real time" % (NAME, time.time() - t0))
    if not a.out:
        return 0
    name = NAME + ("-calibration" if a.calibrate else "")
    cols = cols or list(rows[0].keys())
    with open(os.path.join(a.out, name + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else ("%.6g" % v if isinstance(v, float) else v)) for k, v in r.items()})
    with open(os.path.join(a.out, name + ".txt"), "w") as f:
        f.write("\n".join(log.lines).rstrip("\n") + "\n")
    plats = {}
    os.makedirs(os.path.join(a.out, "platforms"), exist_ok=True)
    for pl in PLATFORMS:
        src = os.path.join(ROOT, "configs", "smpi", pl + ".xml")
        shutil.copy(src, os.path.join(a.out, "platforms", pl + ".xml"))
        plats[pl] = sha256_of(src)
    doc = {"script": NAME, "command_line": [os.path.basename(sys.argv[0])] + sys.argv[1:], "started": started,
           "finished": utc_iso(),
           "wall_seconds": time.time() - t0, "simgrid": simgrid_version(), "platform_sha256": plats,
           "computation": "timed" if a.timed else "modelled", "privatization": "no (checked: see privatization_check)",
           "uts_smpi": a.smpi, "uts_args": a.uts_args_list, "baseline": None if a.baseline == "none" else a.baseline,
           "build": (first or {}).get("build"), "machine": (first or {}).get("machine"),
           "points": rows}
    doc.update(extra)
    with open(os.path.join(a.out, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    if not a.calibrate:
        from utstools import scale_plots
        for path in scale_plots.draw(rows, doc, a.out, baseline_doc(a)):
            print("%s: wrote %s" % (NAME, path), file=sys.stderr)
    print("%s: wrote %s/%s.{txt,csv,json}" % (NAME, a.out, name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
