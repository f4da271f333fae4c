"""Benchmark (not a test): the ranks' global protocols side by side.

In one invocation, for each tree and each rank count, --warmup untimed runs
of every mode, then the repetitions interleaved so noise hits every mode
alike. A mode is --rank-steal S with --rank-termination T; the default
modes are the four pairs (random/ring is the design before lifelines).
Every run is mpirun -np R ... --threads --verify (exact, or the script
stops). Per rank count and mode it prints:
  time          median run time [bootstrap CI]
  vs random/ring  median time / median random/ring time at the same rank
                count [paired bootstrap CI] (1.000 = costs nothing)
  req/dry       requests sent by ranks looking for work: random requests
                plus lifeline requests, summed over the ranks (median)
  msgs/steal    messages of global stealing (requests, answers, lifeline
                requests, pushes) per success (answer with nodes or push)
  dormant       dormant time over ranks x run time (lifelines)
  term waves    rank 0's waves (tree) or token rounds (ring), median
  latency       termination latency: from the end of the last work anywhere
                to the last rank knowing the job is over (median [min-max], ms)
Then the termination latencies fitted by least squares, ring against rank
count P (the token's 2P hops after the last rank turns passive) and tree
against the tree's depth D = depth of the 4-ary heap over P ranks (two waves
down and up, then DONE down: 5D hops), with the fitted cost per hop and
what it predicts at --predict rank counts (default 1024 and 16384). On a
machine with fewer cores than ranks a hop includes waiting for the
receiving rank to be scheduled: the fit measures this machine, not a
network.

Output: text on stdout; with --out DIR also DIR/bench-ranks.txt (the same),
DIR/bench-ranks.csv (one row per tree, rank count and mode):
  tree, ranks, threads, mode,
  time_s_{n,median,mean,std,cv,min,max,ci_low,ci_high,confidence,ci_method},
  vs_random_ring_{n,n_baseline,n_run,ratio,ci_low,ci_high,confidence,ci_method}
      (empty in the baseline's own rows),
  random_requests_median, lifeline_requests_median, requests_by_dry_ranks_median,
  steals_median, pushes_median, messages_per_steal_median,
  dormant_fraction_median, termination_waves_median,
  termination_latency_s_median, termination_latency_s_min, termination_latency_s_max;
DIR/bench-ranks-fit.csv, one row per tree, mode and rank count of --predict:
  tree, mode, termination, x (P or D), per_unit_s (fitted seconds per unit
  of x), per_hop_s, intercept_s, predict_ranks, predict_x (the x of
  predict_ranks), predicted_s;
and DIR/bench-ranks.json (all of it, every run's values,
provenance). mpirun runs with --oversubscribe --bind-to none --mca btl
self,vader unless --mpirun-args replaces those.

usage: scripts/bench-ranks [--trees T1L] [--ranks 2,4,8,16,32] [--threads 1] [--modes random/ring,...]
                           [--reps 3] [--warmup 1] [--predict 1024,16384] [--build build]
                           [--mpirun-args ARGS] [--out DIR]
"""
import argparse
import os
import shlex
import shutil
import statistics
import sys

from utstools import bench_common as bc
from utstools.common import doc_parser
from utstools import stats

NAME = "bench-ranks"
ROOT = bc.ROOT
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV.pop("OMP_NUM_THREADS", None)
DEFAULT_MODES = "random/ring,random/tree,lifeline/ring,lifeline/tree"
MEASURES = ["random_requests", "lifeline_requests", "requests_by_dry_ranks", "steals", "pushes", "messages_per_steal",
            "dormant_fraction", "termination_waves", "termination_latency_s"]


def mode_list(text):
    modes = []
    for m in bc.name_list(text) if text else []:
        parts = m.lower().split("/")
        if len(parts) != 2 or parts[0] not in ("random", "lifeline") or parts[1] not in ("ring", "tree"):
            raise argparse.ArgumentTypeError("%r is not STEAL/TERMINATION (random|lifeline / ring|tree)" % m)
        modes.append("/".join(parts))
    if not modes:
        raise argparse.ArgumentTypeError("no mode given")
    return modes


def wave_depth(p, arity=4):
    """Depth of the heap-ordered tree of arity 4 over p ranks (src/distrib/waves.hpp)."""
    d, r = 0, p - 1
    while r > 0:
        r = (r - 1) // arity
        d += 1
    return d


def measures(rec):
    rk = rec.get("ranks") or []
    s = lambda k: sum(r.get(k) or 0 for r in rk)  # noqa: E731
    a = rec.get("aggregates") or {}
    return {"random_requests": s("requests_sent"), "lifeline_requests": s("lifeline_requests_sent"),
            "requests_by_dry_ranks": s("requests_sent") + s("lifeline_requests_sent"), "steals": s("steals"),
            "pushes": s("pushes_received"), "messages_per_steal": a.get("global_messages_per_steal"),
            "dormant_fraction": a.get("dormant_fraction"), "termination_waves": a.get("termination_waves"),
            "termination_latency_s": a.get("termination_latency_seconds")}


def fit(xs, ys):
    """Least squares y = a + b x; (a, b), or None with fewer than 2 distinct x."""
    if len(set(xs)) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main(argv=None):
    ap = doc_parser(NAME, __doc__)
    ap.add_argument("--trees", type=bc.name_list, default="T1L", help="presets, comma-separated")
    ap.add_argument("--ranks", type=bc.int_list, default=[2, 4, 8, 16, 32], help="rank counts (default 2,4,8,16,32)")
    ap.add_argument("--threads", type=bc.positive_int, default=1, help="threads per rank (default 1)")
    ap.add_argument("--modes", type=mode_list, default=DEFAULT_MODES, help="STEAL/TERMINATION pairs (default %s)"
                    % DEFAULT_MODES)
    ap.add_argument("--predict", type=bc.int_list, default=[1024, 16384],
                    help="rank counts to extrapolate the termination latency to (default 1024,16384)")
    bc.add_common(ap, 3)
    ap.add_argument("--mpirun-args", default="--oversubscribe --bind-to none --mca btl self,vader",
                    help="arguments for mpirun, one shell-quoted string")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args(argv)
    if isinstance(args.trees, str):
        args.trees = bc.name_list(args.trees)
    if isinstance(args.modes, str):
        args.modes = mode_list(args.modes)
    if not args.ranks or min(args.ranks) < 2:
        ap.error("--ranks: rank counts of at least 2 (the global protocols need two ranks)")
    try:
        extra = shlex.split(args.mpirun_args)
    except ValueError as e:
        ap.error("--mpirun-args: %s" % e)
    bc.check_common(ap, args, NAME, extra_files=(NAME + "-fit.csv",))
    uts = os.path.join(args.build, "uts")
    bc.check_binary(NAME, uts)
    if shutil.which("mpirun") is None:
        bc.usage_error(NAME, "mpirun not found (install openmpi-bin); this benchmark needs it")
    bc.check_presets(NAME, uts, args.trees)
    common = ["--threads", str(args.threads), "--verify", "--format", "json", "--no-progress"]
    baseline = "random/ring" if "random/ring" in args.modes else args.modes[0]
    report = bc.Report(NAME, args)
    report.print(report.stats_line())
    report.print("mpirun %s; %d thread%s per rank; %d PUs allowed (machine: %d logical CPUs)" % (
        " ".join(extra), args.threads, "" if args.threads == 1 else "s", stats.allowed_pus(), os.cpu_count() or 0))
    rows, fit_rows = [], []
    for tree in args.trees:
        latency = {m: {} for m in args.modes}  # mode -> ranks -> median latency
        for ranks in args.ranks:
            def cmd(mode):
                steal, term = mode.split("/")
                return (["mpirun"] + extra + ["-np", str(ranks), uts, "--preset", tree] + common
                        + ["--rank-steal", steal, "--rank-termination", term])
            for _ in range(args.warmup):
                for m in args.modes:
                    bc.run_json(NAME, cmd(m), env=ENV)
            times = {m: [] for m in args.modes}
            got = {m: {k: [] for k in MEASURES} for m in args.modes}
            for rep in range(args.reps):
                for m in args.modes:
                    rec = bc.run_json(NAME, cmd(m), env=ENV)
                    if rec.get("verified") is not True:
                        bc.run_error(NAME, "%s: not exact (verified: %s)" % (shlex.join(cmd(m)), rec.get("verified")))
                    report.note_record(rec, "%s %d ranks %s" % (tree, ranks, m))
                    times[m].append(rec["timing"]["seconds"])
                    ms = measures(rec)
                    for k in MEASURES:
                        got[m][k].append(ms[k])
                    report.runs.append(dict({"tree": tree, "ranks": ranks, "mode": m, "rep": rep,
                                             "seconds": times[m][-1]}, **ms))
                print("%s, %d ranks: rep %d/%d done" % (tree, ranks, rep + 1, args.reps), file=sys.stderr)
            report.print("\n%s, %d ranks x %d thread%s, %d repetitions interleaved" % (
                tree, ranks, args.threads, "" if args.threads == 1 else "s", args.reps))
            report.print("  %-14s %-23s %-23s %8s %10s %8s %6s %s" % (
                "mode", "time s [CI]", "vs %s [CI]" % baseline, "req/dry", "msgs/steal", "dormant", "waves",
                "latency ms [min-max]"))
            for m in args.modes:
                t = bc.summarize(args, times[m])
                vs = bc.speedup(args, times[m], times[baseline])  # median(m) / median(baseline)
                med = {k: bc.median_or_none(got[m][k]) for k in MEASURES}
                lat = [v for v in got[m]["termination_latency_s"] if v is not None]
                latency[m][ranks] = med["termination_latency_s"]
                report.print("  %-14s %-23s %-23s %8s %10s %8s %6s %s" % (
                    m, bc.ci_text(t), "-" if m == baseline else bc.ci_text(vs, "speedup"),
                    "%g" % med["requests_by_dry_ranks"],
                    "-" if med["messages_per_steal"] is None else "%.2f" % med["messages_per_steal"],
                    "-" if med["dormant_fraction"] is None else "%.1f%%" % (100 * med["dormant_fraction"]),
                    "%g" % med["termination_waves"],
                    "-" if not lat else "%.3f [%.3f-%.3f]" % (1e3 * med["termination_latency_s"], 1e3 * min(lat),
                                                              1e3 * max(lat))))
                row = {"tree": tree, "ranks": ranks, "threads": args.threads, "mode": m}
                row.update(bc.prefixed("time_s", t))
                row.update(bc.ratio_prefixed("vs_random_ring", vs) if m != baseline else {})
                row.update({k + "_median": med[k] for k in MEASURES})
                row["termination_latency_s_min"] = min(lat) if lat else None
                row["termination_latency_s_max"] = max(lat) if lat else None
                rows.append(row)
        report.print("\n%s: termination latency (median per rank count) fitted by least squares; prediction at %s ranks"
                     % (tree, ", ".join(str(p) for p in args.predict)))
        for m in args.modes:
            term = m.split("/")[1]
            pts = [(r, v) for r, v in sorted(latency[m].items()) if v is not None]
            xs = [r if term == "ring" else wave_depth(r) for r, _ in pts]
            ys = [v for _, v in pts]
            f = fit(xs, ys)
            if f is None:
                report.print("  %-14s too few rank counts to fit" % m)
                continue
            a, b = f
            hops = 2 if term == "ring" else 5  # hops per unit of x: 2P (ring), 5D (tree)
            pred = {p: a + b * (p if term == "ring" else wave_depth(p)) for p in args.predict}
            report.print("  %-14s latency = %.3f ms + %.3f ms x %s; %.1f us per hop (%s); predicted %s" % (
                m, 1e3 * a, 1e3 * b, "P" if term == "ring" else "D", 1e6 * b / hops,
                "2P hops" if term == "ring" else "5D hops", ", ".join(
                    "%d ranks: %.1f ms%s" % (p, 1e3 * v, "" if term == "ring" else " (D=%d)" % wave_depth(p))
                    for p, v in pred.items())))
            for p, v in pred.items():
                fit_rows.append({"tree": tree, "mode": m, "termination": term, "x": "P" if term == "ring" else "D",
                                 "per_unit_s": b, "per_hop_s": b / hops, "intercept_s": a, "predict_ranks": p,
                                 "predict_x": p if term == "ring" else wave_depth(p), "predicted_s": v})
    cols = (["tree", "ranks", "threads", "mode"] + bc.summary_cols("time_s") + bc.ratio_cols("vs_random_ring")
            + [k + "_median" for k in MEASURES] + ["termination_latency_s_min", "termination_latency_s_max"])
    report.add_rows("main", cols, rows)
    report.add_rows("fit", ["tree", "mode", "termination", "x", "per_unit_s", "per_hop_s", "intercept_s",
                            "predict_ranks", "predict_x", "predicted_s"], fit_rows)
    report.write(uts)


if __name__ == "__main__":
    sys.exit(main())
