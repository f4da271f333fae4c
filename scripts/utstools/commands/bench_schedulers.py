"""Benchmark (not a test): uts's own scheduler against every foreign one.

At one node cost (-g, default 1) and one thread count (default 2), on each
tree (default T1L and T3L): `uts --scheduler uts` and every other scheduler
the binaries register (`uts --list-schedulers`, never a list kept here) in
each form, under each runtime: the main build's, and a second binary's
whose runtime differs (by default build-clang/uts when present: OpenMP
tasks under libomp beside libgomp). Each configuration first runs --warmup
untimed times; then the timed repetitions go in rounds, every configuration
once per round in an order shuffled per round (seeded, recorded), so that
noise hits every configuration alike. Every run is --verify'd and checked
exact against every other run of its tree. Times are uts's own
(timing.seconds).

Per tree it prints each configuration's median time and nodes/s with their
bootstrap CIs, the ratio uts/configuration in nodes/s, and per foreign
scheduler and runtime its best form (the highest median nodes/s) with
  ratio = median nodes/s of uts / median nodes/s of that best form
        = median(best form's times) / median(uts's times) (one tree: one size)
and its 95% CI: the paired percentile bootstrap of that ratio of medians,
resampling the rounds (round i of uts with round i of the form: they ran
seconds apart), stats.speedup_ci. Above 1: uts is faster; `uts_faster` is
true when the whole interval is above 1. The best form is chosen on the
same runs, which favours the foreign scheduler slightly (its best of two).
A last line per tree compares uts with the best foreign configuration of all.

Output: text on stdout; with --out DIR also DIR/bench-schedulers.txt (the
same text), DIR/bench-schedulers.csv and DIR/bench-schedulers.json
(summaries, every run's raw values, provenance, the binaries and the order
seed). CSV columns, one row per tree and configuration:
  tree, config (scheduler[/form][@binary]), scheduler, form, runtime, binary, granularity, threads,
  task_grain, pus_used, oversubscribed,
  time_s_{n,median,mean,std,cv,min,max,ci_low,ci_high,confidence,ci_method},
  nodes_per_sec_median, nodes_per_sec_ci_low, nodes_per_sec_ci_high, peak_rss_bytes_median,
  uts_over_config_{n,n_baseline,n_run,ratio,ci_low,ci_high,confidence,ci_method}
      (ratio = median nodes/s of uts / that of the row's configuration; empty in uts's own row),
  best_form (true in the row of its scheduler and runtime's best form; empty for uts),
  uts_faster (true/false in best-form rows: the CI's low end above 1)
and DIR/bench-schedulers-best.csv, one row per tree and foreign scheduler and runtime, plus one
per tree for the best foreign configuration of all (scheduler `best`):
  tree, scheduler, runtime, binary, best_config, best_form,
  uts_over_best_{n,n_baseline,n_run,ratio,ci_low,ci_high,confidence,ci_method}, uts_faster
Statistics: scripts/utstools/stats.py (its docstring defines every number).

usage: scripts/bench-schedulers [--trees T1L,T3L] [-g 1] [--threads 2] [--reps 10] [--warmup 1]
                                [--forms literature,tuned] [--task-grain N] [--uts-clang PATH|none]
                                [--also-binary LABEL=PATH] [--build DIR] [--order-seed N] [--out DIR]
"""
import os
import random
import sys

from utstools import bench_common as bc
from utstools import study_common
from utstools import study_schedulers as ss
from utstools.common import doc_parser

NAME = "bench-schedulers"
ROOT = bc.ROOT


class Config:
    def __init__(self, scheduler, form, runtime, binary, path):
        self.scheduler, self.form, self.runtime, self.binary, self.path = scheduler, form, runtime, binary, path
        self.name = scheduler + ("/" + form if form else "") + ("" if binary == ss.MAIN else "@" + binary)

    def flags(self, args):
        out = ["--scheduler", self.scheduler]
        if self.form:
            out += ["--scheduler-form", self.form]
            if self.form == "tuned" and args.task_grain is not None:
                out += ["--task-grain", str(args.task_grain)]
        return out


def configs(args):
    """uts first, then every foreign scheduler x form x runtime the binaries
    have (study_schedulers.discover: uts --list-schedulers, and which take
    --scheduler-form)."""
    study_common.PROG = NAME  # discover's usage errors name this tool
    d = {"schedulers_wanted": None, "forms": args.forms, "also_binaries": args.also_binaries}
    ss.discover(d, args.uts, [])
    paths = {ss.MAIN: args.uts}
    paths.update((b["label"], b["path"]) for b in args.also_binaries)
    out = [Config(s["name"], f, s["runtime"], s["binary"], paths[s["binary"]]) for s in d["schedulers"]
           for f in s["forms"]]
    if not any(c.scheduler == "uts" for c in out):
        bc.usage_error(NAME, "%s has no scheduler uts" % args.uts)
    if not any(c.scheduler != "uts" for c in out):
        bc.usage_error(NAME, "%s registers no scheduler but uts: nothing to compare" % args.uts)
    return sorted(out, key=lambda c: (c.scheduler != "uts", c.name))


def run(args, config, tree):
    return bc.run_json(NAME, [config.path, "--preset", tree, "-g", str(args.granularity), "--threads",
                              str(args.threads), "--verify", "--no-progress", "--format", "json"]
                       + config.flags(args) + (["--bind", args.bind] if args.bind else []))


def check(rec, tree, seen, where):
    res = rec["results"]
    got = (res["size"], res["depth"], res["leaves"], res["checksum"])
    if rec.get("status") != "complete" or rec.get("verified") is False:
        bc.run_error(NAME, "%s: status %s, verified %s" % (where, rec.get("status"), rec.get("verified")))
    if seen.setdefault(tree, (got, where))[0] != got:
        bc.run_error(NAME, "MISMATCH %s: %s, but %s gave %s" % (where, got, seen[tree][1], seen[tree][0]))


def measure(args, report, tree, cfgs, rng, seen):
    recs = {c.name: [] for c in cfgs}
    for _ in range(args.warmup):
        for c in cfgs:
            check(run(args, c, tree), tree, seen, "%s %s (warm-up)" % (tree, c.name))
    for rep in range(args.reps):
        order = list(cfgs)
        rng.shuffle(order)
        for c in order:
            rec = run(args, c, tree)
            check(rec, tree, seen, "%s %s rep %d" % (tree, c.name, rep + 1))
            # The JSON's build and machine are the main binary's (uts is
            # run by it), not a second binary's.
            if c.binary == next(u for u in cfgs if u.scheduler == "uts").binary:
                report.note_record(rec, "%s %s" % (tree, c.name))
            else:
                report.placements.setdefault("%s %s" % (tree, c.name), rec.get("placement"))
            recs[c.name].append(rec)
            report.runs.append({"tree": tree, "config": c.name, "rep": rep + 1, "round_position": order.index(c),
                                "seconds": rec["timing"]["seconds"], "nodes_per_sec": rec["timing"]["nodes_per_sec"],
                                "size": rec["results"]["size"], "checksum": rec["results"]["checksum"],
                                "runtime": rec["engine"].get("scheduler_runtime"),
                                "peak_rss_bytes": (rec.get("memory") or {}).get("peak_rss_bytes"),
                                "pus_used": (rec.get("placement") or {}).get("pus_used")})
        print("%s: round %d/%d done" % (tree, rep + 1, args.reps), file=sys.stderr)
    return recs


def times(rs):
    return [r["timing"]["seconds"] for r in rs]


def main_columns():
    return (["tree", "config", "scheduler", "form", "runtime", "binary", "granularity", "threads", "task_grain",
             "pus_used", "oversubscribed"] + bc.summary_cols("time_s")
            + ["nodes_per_sec_median", "nodes_per_sec_ci_low", "nodes_per_sec_ci_high", "peak_rss_bytes_median"]
            + bc.ratio_cols("uts_over_config") + ["best_form", "uts_faster"])


def best_columns():
    return (["tree", "scheduler", "runtime", "binary", "best_config", "best_form"] + bc.ratio_cols("uts_over_best")
            + ["uts_faster"])


def verdict(ratio):
    """uts faster, slower, or neither shown, from the ratio's interval."""
    if ratio["ci_low"] is None:
        return "not shown (fewer than 2 rounds: no interval)"
    if ratio["ci_low"] > 1:
        return "yes"
    return "no: slower (the whole CI below 1)" if ratio["ci_high"] < 1 else "not shown (the CI contains 1)"


def compare(args, report, tree, cfgs, recs):
    uts = next(c for c in cfgs if c.scheduler == "uts")
    base = times(recs[uts.name])
    rows, best_rows, rate = [], [], {}
    report.print("\n%s (-g %d, %d threads; ratio = median nodes/s of uts / the configuration's, paired CI)"
                 % (tree, args.granularity, args.threads))
    report.print("%-28s %-16s %4s %-27s %-27s %-25s" % ("configuration", "runtime", "PUs", "time s [CI]",
                                                       "Mnodes/s [CI]", "uts/config [CI]"))
    for c in cfgs:
        rs = recs[c.name]
        t = bc.summarize(args, times(rs))
        nps = bc.summarize(args, [r["timing"]["nodes_per_sec"] for r in rs])
        rate[c.name] = nps["median"]
        ratio = None if c is uts else bc.speedup(args, times(rs), base)  # median(config) / median(uts) time
        engine = rs[0]["engine"]
        row = {"tree": tree, "config": c.name, "scheduler": c.scheduler, "form": c.form,
               "runtime": engine.get("scheduler_runtime"), "binary": c.binary, "granularity": args.granularity,
               "threads": args.threads, "task_grain": engine.get("task_grain"),
               "pus_used": bc.pus_used(rs, args.threads), "oversubscribed": bc.oversubscribed(rs, args.threads),
               "nodes_per_sec_median": nps["median"], "nodes_per_sec_ci_low": nps["ci_low"],
               "nodes_per_sec_ci_high": nps["ci_high"],
               "peak_rss_bytes_median": bc.median_or_none([(r.get("memory") or {}).get("peak_rss_bytes")
                                                           for r in rs])}
        row.update(bc.prefixed("time_s", t))
        if ratio:
            row.update(bc.ratio_prefixed("uts_over_config", ratio))
        rows.append(row)
        report.print("%-28s %-16s %4d %-27s %-27s %-25s" % (c.name, row["runtime"], row["pus_used"],
                                                           bc.ci_text(t, fmt="%.4f"),
                                                           bc.ci_text(nps, scale=1e-6, fmt="%.3f"),
                                                           bc.ci_text(ratio, "speedup")))
    groups = {}
    for c in cfgs:
        if c is not uts:
            groups.setdefault((c.scheduler, rows[cfgs.index(c)]["runtime"], c.binary), []).append(c)
    report.print("best form of each foreign scheduler and runtime:")
    for (sched, runtime, binary), cs in sorted(groups.items()) + [(("best", "any", "any"),
                                                                    [c for c in cfgs if c is not uts])]:
        best = max(cs, key=lambda c: rate[c.name])
        ratio = bc.speedup(args, times(recs[best.name]), base)
        faster = ratio["ci_low"] is not None and ratio["ci_low"] > 1
        row = {"tree": tree, "scheduler": sched, "runtime": runtime if sched != "best" else
               rows[cfgs.index(best)]["runtime"], "binary": binary if sched != "best" else best.binary,
               "best_config": best.name, "best_form": best.form, "uts_faster": faster}
        row.update(bc.ratio_prefixed("uts_over_best", ratio))
        best_rows.append(row)
        if sched != "best":
            rows[cfgs.index(best)].update(best_form=True, uts_faster=faster)
            for c in cs:
                rows[cfgs.index(c)].setdefault("best_form", False)
        report.print("  %-34s uts/best = %-25s uts faster: %s" % (
            "%s (%s): %s" % (sched, runtime, best.name) if sched != "best" else "all foreign: %s" % best.name,
            bc.ci_text(ratio, "speedup"), verdict(ratio)))
    report.add_rows("main", main_columns(), rows)
    report.add_rows("best", best_columns(), best_rows)


def main(argv=None):
    ap = doc_parser(NAME, __doc__)
    ap.add_argument("--trees", type=bc.name_list, default="T1L,T3L", help="presets, comma-separated")
    bc.add_common(ap, 10)
    ap.add_argument("-g", "--granularity", type=bc.positive_int, default=1, help="uts -g (default 1)")
    ap.add_argument("--threads", type=bc.positive_int, default=2, help="threads of every run (default 2)")
    ap.add_argument("--forms", type=bc.name_list, default="literature,tuned",
                    help="forms of the foreign schedulers (default literature,tuned)")
    ap.add_argument("--task-grain", type=bc.positive_int, help="passed to the tuned forms (default: their own)")
    ap.add_argument("--bind", help="passed as uts --bind (default: uts's own)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build directory of the main uts")
    ap.add_argument("--uts-clang", metavar="PATH",
                    help="a second uts (the clang build: libomp); default build-clang/uts when present; none: none")
    ap.add_argument("--also-binary", action="append", default=[], metavar="LABEL=PATH",
                    help="another uts whose schedulers with a runtime of their own join (repeatable)")
    ap.add_argument("--order-seed", type=bc.nonnegative_int, help="seed of the per-round shuffles (default random)")
    args = ap.parse_args(argv)
    for key in ("trees", "forms"):
        if isinstance(getattr(args, key), str):
            setattr(args, key, bc.name_list(getattr(args, key)))
    try:
        args.also_binaries = ss._binaries(args)
    except ValueError as e:
        bc.usage_error(NAME, str(e))
    bc.check_common(ap, args, NAME, extra_files=(NAME + "-best.csv",))
    bc.ensure_built(NAME, args.build)
    args.uts = os.path.abspath(os.path.join(args.build, "uts"))
    bc.check_presets(NAME, args.uts, args.trees)
    cfgs = configs(args)
    seed = args.order_seed if args.order_seed is not None else random.SystemRandom().randrange(2 ** 31)
    rng = random.Random(seed)
    report = bc.Report(NAME, args)
    report.print(report.stats_line().replace("repetitions interleaved", "repetitions in rounds, each round's order "
                                             "shuffled (seed %d)" % seed))
    report.print("configurations: " + ", ".join(c.name for c in cfgs))
    seen = {}
    for tree in args.trees:
        recs = measure(args, report, tree, cfgs, rng, seen)
        compare(args, report, tree, cfgs, recs)
    main_binary = {"label": ss.MAIN, "path": args.uts, "sha256": study_common.sha256_of(args.uts)}
    report.write(args.uts, {"order_seed": seed, "granularity": args.granularity, "threads": args.threads,
                            "binaries": [main_binary] + args.also_binaries,
                            "configurations": [{"name": c.name, "scheduler": c.scheduler, "form": c.form,
                                                "runtime": c.runtime, "binary": c.binary} for c in cfgs]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
