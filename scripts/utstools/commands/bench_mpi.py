"""Benchmark (not a test): what MPI ranks cost and gain on this machine.

In one invocation, on each tree (every run --verify'd), --warmup untimed
runs of every configuration, then the repetitions interleaved so noise hits
every configuration alike:
  plain         build/uts --threads 1, started without mpirun (no MPI at all)
  1 rank        mpirun -np 1 --bind-to none ... --threads 1
  2 ranks       mpirun -np 2 --bind-to core ... --threads 1 (one core each)
  2 ranks, --rank-poll P   for each P of --polls (the cost of polling often)
Times are uts's own (the record's timing.seconds). Prints each
configuration's median time [bootstrap CI], CV, min-max, and two ratios of
medians with 95% CIs from paired resampling (rep i with rep i):
  vs plain      median time / median plain time (1.000 = no MPI cost)
  speedup       median 1-rank time / median time (the speedup across ranks)
plus global steals per run (median) and the PUs used (the record's
placement.pus_used, summed over ranks, when present; else ranks x threads
capped at the PUs of this process's affinity mask).

Output: text on stdout; with --out DIR also DIR/bench-mpi.txt (the same
text), DIR/bench-mpi.csv and DIR/bench-mpi.json (summaries, every run's raw
values, provenance). CSV columns, one row per tree and configuration:
  tree, config, ranks, threads, rank_poll, pus_used, oversubscribed (true|false),
  time_s_{n,median,mean,std,cv,min,max,ci_low,ci_high,confidence,ci_method},
  vs_plain_{n,n_baseline,n_run,ratio,ci_low,ci_high,confidence,ci_method}
      (ratio = median time / median plain time),
  speedup_vs_1rank_{n,n_baseline,n_run,speedup,ci_low,ci_high,confidence,ci_method},
  global_steals_median.
Statistics: scripts/utstools/stats.py (its docstring defines every number).
mpirun runs with OMPI_ALLOW_RUN_AS_ROOT=1 (and its confirmation) set, and
any --mpirun-args (e.g. --mpirun-args="--oversubscribe --mca btl self,vader") after
`mpirun`.

usage: scripts/bench-mpi [--trees T1L] [--reps 5] [--warmup 1] [--polls 1,16,4096] [--build build]
                         [--mpirun-args ARGS] [--out DIR]
"""
import os
import shlex
import shutil
import statistics
import sys

from utstools import bench_common as bc
from utstools.common import doc_parser
from utstools import stats

NAME = "bench-mpi"
ROOT = bc.ROOT
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV.pop("OMP_NUM_THREADS", None)


def columns():
    return (["tree", "config", "ranks", "threads", "rank_poll", "pus_used", "oversubscribed"]
            + bc.summary_cols("time_s") + bc.ratio_cols("vs_plain") + bc.speedup_cols("speedup_vs_1rank")
            + ["global_steals_median"])


def main(argv=None):
    ap = doc_parser(NAME, __doc__)
    ap.add_argument("--trees", type=bc.name_list, default="T1L", help="presets, comma-separated")
    bc.add_common(ap, 5)
    ap.add_argument("--polls", type=bc.int_list, default=[1, 16, 4096],
                    help="extra --rank-poll values for the 2-rank runs (default 1,16,4096; '' for none)")
    ap.add_argument("--mpirun-args", default="", help="extra arguments for mpirun, one shell-quoted string")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args(argv)
    if isinstance(args.trees, str):
        args.trees = bc.name_list(args.trees)
    try:
        extra = shlex.split(args.mpirun_args)
    except ValueError as e:
        ap.error("--mpirun-args: %s" % e)
    bc.check_common(ap, args, NAME)
    uts = os.path.join(args.build, "uts")
    bc.check_binary(NAME, uts)
    if shutil.which("mpirun") is None:
        bc.usage_error(NAME, "mpirun not found (install openmpi-bin); this benchmark needs it")
    bc.check_presets(NAME, uts, args.trees)
    common = ["--threads", "1", "--verify", "--format", "json", "--no-progress"]
    mpirun = ["mpirun"] + extra
    configs = [("plain", 1, None, [uts]), ("1 rank", 1, None, mpirun + ["-np", "1", "--bind-to", "none", uts]),
               ("2 ranks", 2, None, mpirun + ["-np", "2", "--bind-to", "core", uts])]
    for p in args.polls:
        configs.append(("2 ranks, --rank-poll %d" % p, 2, p, mpirun + ["-np", "2", "--bind-to", "core", uts,
                                                                       "--rank-poll", str(p)]))
    report = bc.Report(NAME, args)
    report.print(report.stats_line())
    for tree in args.trees:
        for _ in range(args.warmup):
            for _name, _ranks, _poll, cmd in configs:
                bc.run_json(NAME, cmd + ["--preset", tree] + common, env=ENV)
        times = {c[0]: [] for c in configs}
        steals = {c[0]: [] for c in configs}
        recs = {c[0]: [] for c in configs}
        for rep in range(args.reps):
            for name, ranks, poll, cmd in configs:
                rec = bc.run_json(NAME, cmd + ["--preset", tree] + common, env=ENV)
                report.note_record(rec, "%s %s" % (tree, name))
                times[name].append(rec["timing"]["seconds"])
                steals[name].append(sum(r.get("steals", 0) for r in rec.get("ranks", []) or []))
                recs[name].append(rec)
                report.runs.append({"tree": tree, "config": name, "rep": rep, "seconds": times[name][-1],
                                    "global_steals": steals[name][-1],
                                    "pus_used": (rec.get("placement") or {}).get("pus_used")})
            print("%s: rep %d/%d done" % (tree, rep + 1, args.reps), file=sys.stderr)
        report.print("\n%s, %d repetitions interleaved; %d PUs allowed (machine: %d logical CPUs); * oversubscribed"
                     % (tree, args.reps, stats.allowed_pus(), os.cpu_count() or 0))
        report.print("  %-28s %4s %-23s %6s %-15s %-23s %-23s %s" % ("config", "PUs", "time s [CI]", "CV", "min-max",
                                                                   "vs plain [CI]", "speedup vs 1 rank [CI]",
                                                                   "global steals"))
        rows = []
        for name, ranks, poll, _ in configs:
            t = bc.summarize(args, times[name])
            vs_plain = bc.speedup(args, times[name], times["plain"])
            sp = bc.speedup(args, times["1 rank"], times[name])
            pus = bc.pus_used(recs[name], ranks)
            over = bc.oversubscribed(recs[name], ranks)
            gs = statistics.median(steals[name])
            report.print("  %-28s %4d %-23s %6s %-15s %-23s %-23s %s" % (
                name + ("*" if over else ""), pus, bc.ci_text(t), bc.cv_text(t), "%.3f-%.3f" % (t["min"], t["max"]),
                bc.ci_text(vs_plain, "speedup"), bc.ci_text(sp, "speedup"), "%g" % gs))
            row = {"tree": tree, "config": name, "ranks": ranks, "threads": 1, "rank_poll": poll, "pus_used": pus,
                   "oversubscribed": over, "global_steals_median": gs}
            row.update(bc.prefixed("time_s", t))
            row.update(bc.ratio_prefixed("vs_plain", vs_plain))
            row.update(bc.prefixed("speedup_vs_1rank", sp))
            rows.append(row)
        report.add_rows("main", columns(), rows)
    report.write(uts)


if __name__ == "__main__":
    sys.exit(main())
