"""Benchmark (not a test): parallel speedup and efficiency of the engine.

In one invocation, for each tree: the sequential baseline, the engine at 1
thread, and the engine at every thread count up to the PUs this process may
use (plus any --extra counts, e.g. oversubscribed 16). Every configuration
first runs --warmup untimed times; then the timed repetitions are
interleaved (rep 1 of every configuration, then rep 2, ...) so noise hits
every configuration alike. Times are uts's own (the record's timing.seconds).

For each configuration it prints the median time with its bootstrap CI and
CV, and two speedups, each with a 95% bootstrap CI from paired resampling
(rep i of the baseline with rep i of the run, which ran seconds apart):
  vs 1 thread  median(time at 1 thread) / median(time)
  vs seq       median(time of --sequential) / median(time)
and, for each, efficiency = speedup / PUs used, where PUs used is the uts
record's placement.pus_used when present, else min(threads, PUs in this
process's affinity mask) (never the machine's CPU count). Efficiency is
printed as measured, also above 1. Rows marked * ran oversubscribed (more
threads than PUs: the record's placement.oversubscribed, else threads > PUs).

With --protocols, each named steal protocol instead runs at every thread
count (no sequential baseline), all protocols' runs interleaved, and one
table per tree compares them: median time [CI], nodes/s, speedup against
that protocol's own 1-thread run [paired CI], efficiency, and medians over
the repetitions of steals, nodes per steal, idle thread-seconds, and for
protocol request the requests sent, answered, refused and withdrawn and the
mean wait for an answer (µs).

--steal and --victim are passed to uts only when given; otherwise each
protocol runs with its own defaults (split and request: half, random;
locked: chunk:20, linear; chaselev: one, random), and the tables say what
uts reports it used.

With --compare OLD_BUILD (default mode only), every run also runs with
OLD_BUILD's uts, back to back (alternating which goes first), and each tree's
table gains the old build's median time, the ratio new/old of the median
times [paired CI] and the old build's speedup against its own 1-thread run.

Output: text on stdout; with --out DIR also DIR/bench-parallel.txt (the same
text), DIR/bench-parallel.csv and DIR/bench-parallel.json (summaries, every
run's raw values, provenance). CSV columns, one row per tree, build and
configuration (default mode):
  tree, build (new|old), config (seq or the thread count), threads, pus_used,
  oversubscribed (true|false), protocol, steal, victim,
  time_s_{n,median,mean,std,cv,min,max,ci_low,ci_high,confidence,ci_method},
  nodes_per_sec_median,
  speedup_vs_1thread_{n,n_baseline,n_run,speedup,ci_low,ci_high,confidence,ci_method},
  efficiency_vs_1thread, efficiency_vs_1thread_ci_low, efficiency_vs_1thread_ci_high,
  speedup_vs_seq_{...as above}, efficiency_vs_seq, efficiency_vs_seq_ci_low, efficiency_vs_seq_ci_high,
  new_over_old_{n,n_baseline,n_run,ratio,ci_low,ci_high,confidence,ci_method}
      (ratio = median(new time)/median(old time); new rows with --compare, else empty)
With --protocols: tree, protocol, steal, victim, threads, pus_used, oversubscribed, time_s_{...},
  nodes_per_sec_median, speedup_vs_1thread_{...}, efficiency_vs_1thread{,_ci_low,_ci_high},
  steals_median, nodes_per_steal_median, idle_seconds_median, requests_sent_median,
  requests_answered_median, requests_refused_median, requests_withdrawn_median,
  mean_request_wait_us_median (the request columns empty for other protocols).
Statistics: scripts/utstools/stats.py (its docstring defines every number).

usage: scripts/bench-parallel [--trees T1L,T3L] [--reps 3] [--warmup 1] [--extra 16] [--steal half]
                              [--victim random] [--compare OLD_BUILD] [--out DIR]
       scripts/bench-parallel --protocols split,locked,request,chaselev [--trees T1L,T3L] [--reps 3] [--out DIR]
"""
import os
import statistics
import sys

from utstools import bench_common as bc
from utstools.common import doc_parser
from utstools import stats

NAME = "bench-parallel"
ROOT = bc.ROOT


def run(args, build, preset, flags):
    """The run's JSON record."""
    return bc.run_json(NAME, [os.path.join(build, "uts"), "--preset", preset, "--verify", "--no-progress",
                              "--format", "json"] + flags)


def policy_flags(args):
    flags = []
    if args.steal is not None:
        flags += ["--steal", args.steal]
    if args.victim is not None:
        flags += ["--victim", args.victim]
    return flags


def measure(args, report, tree, configs, builds):
    """configs: [(name, flags)], builds: [(which, dir)]; warm-up, then
    interleaved reps (builds alternating order). Records per (name, which)."""
    recs = {(name, which): [] for name, _ in configs for which, _ in builds}
    for _ in range(args.warmup):
        for name, flags in configs:
            for which, build in builds:
                run(args, build, tree, flags)
    for rep in range(args.reps):
        for name, flags in configs:
            for which, build in (builds if rep % 2 == 0 else builds[::-1]):
                rec = run(args, build, tree, flags)
                report.note_record(rec, "%s %s %s" % (tree, which, name))
                recs[(name, which)].append(rec)
                report.runs.append({"tree": tree, "build": which, "config": name, "rep": rep,
                                    "seconds": rec["timing"]["seconds"], "size": rec["results"]["size"],
                                    "nodes_per_sec": rec["timing"]["nodes_per_sec"],
                                    "pus_used": ((rec.get("placement") or {}).get("pus_used")),
                                    "steals": (rec.get("aggregates") or {}).get("steals")})
        print("%s: rep %d/%d done" % (tree, rep + 1, args.reps), file=sys.stderr)
    return recs


def times(rs):
    return [r["timing"]["seconds"] for r in rs]


def eff(s, pus):
    """efficiency and its CI (the speedup's, divided by PUs used)."""
    if s is None:
        return {"": None, "_ci_low": None, "_ci_high": None}
    return {"": stats.efficiency(s["speedup"], pus),
            "_ci_low": None if s["ci_low"] is None else s["ci_low"] / pus,
            "_ci_high": None if s["ci_high"] is None else s["ci_high"] / pus}


def machine_words(report):
    first = report.records[0] if report.records else {}
    topo = ((first.get("machine") or {}).get("topology")) or {}
    words = "%d PUs allowed" % stats.allowed_pus()
    if topo.get("cores"):
        words += ", %d cores, %d PUs on the machine" % (topo["cores"], topo.get("pus") or 0)
    else:
        words += " (machine: %d logical CPUs)" % (os.cpu_count() or 0)
    return words


EFF_COLS = lambda p: [p, p + "_ci_low", p + "_ci_high"]  # noqa: E731


def main_columns():
    return (["tree", "build", "config", "threads", "pus_used", "oversubscribed", "protocol", "steal", "victim"]
            + bc.summary_cols("time_s") + ["nodes_per_sec_median"]
            + bc.speedup_cols("speedup_vs_1thread") + EFF_COLS("efficiency_vs_1thread")
            + bc.speedup_cols("speedup_vs_seq") + EFF_COLS("efficiency_vs_seq")
            + bc.ratio_cols("new_over_old"))


def protocol_columns():
    return (["tree", "protocol", "steal", "victim", "threads", "pus_used", "oversubscribed"]
            + bc.summary_cols("time_s") + ["nodes_per_sec_median"]
            + bc.speedup_cols("speedup_vs_1thread") + EFF_COLS("efficiency_vs_1thread")
            + ["steals_median", "nodes_per_steal_median", "idle_seconds_median", "requests_sent_median",
               "requests_answered_median", "requests_refused_median", "requests_withdrawn_median",
               "mean_request_wait_us_median"])


def compare_protocols(args, report, tree, protocols, counts):
    configs = [("%s/%d" % (proto, p), ["--protocol", proto, "--threads", str(p)] + policy_flags(args))
               for proto in protocols for p in counts]
    recs = measure(args, report, tree, configs, [("new", args.build)])
    report.print("\n%s (%s; speedup against each protocol's own 1-thread run; efficiency = speedup / PUs used; "
                 "* oversubscribed; requests and answer wait for protocol request only)"
                 % (tree, machine_words(report)))
    report.print("%-9s %-9s %-7s %7s %4s %-23s %6s %9s %-23s %6s %8s %8s %8s %8s %8s %8s %9s %9s"
                 % ("protocol", "steal", "victim", "threads", "PUs", "time s [CI]", "CV", "Mnodes/s",
                    "speedup [CI]", "effic", "steals", "nodes/st", "idle s", "req sent", "answered", "refused",
                    "withdrawn", "wait µs"))
    rows = []
    for proto in protocols:
        base = recs[("%s/1" % proto, "new")] if 1 in counts else None
        for p in counts:
            rs = recs[("%s/%d" % (proto, p), "new")]
            engine = rs[0]["engine"]
            pus = bc.pus_used(rs, p)
            over = bc.oversubscribed(rs, p)
            t = bc.summarize(args, times(rs))
            sp = bc.speedup(args, times(base), times(rs)) if base else None
            e = eff(sp, pus)
            med = {k: bc.median_or_none([(r.get("aggregates") or {}).get(k) for r in rs])
                   for k in ("steals", "nodes_per_steal", "idle_seconds", "requests_sent", "requests_answered",
                             "requests_refused", "requests_withdrawn", "mean_request_wait_seconds")}
            nps = bc.median_or_none([r["timing"]["nodes_per_sec"] for r in rs])
            line = "%-9s %-9s %-7s %7s %4d %-23s %6s %9.2f %-23s %6s" % (
                engine["protocol"], engine["steal"], engine["victim"], "%d%s" % (p, "*" if over else ""), pus,
                bc.ci_text(t), bc.cv_text(t), nps / 1e6, bc.ci_text(sp, "speedup"),
                "-" if e[""] is None else "%.3f" % e[""])
            line += " %8.0f %8.2f %8.3f" % (med["steals"] or 0, med["nodes_per_steal"] or 0,
                                            med["idle_seconds"] or 0)
            if med["mean_request_wait_seconds"] is None:
                line += " %8s %8s %8s %9s %9s" % ("-", "-", "-", "-", "-")
            else:
                line += " %8.0f %8.0f %8.0f %9.0f %9.1f" % (med["requests_sent"], med["requests_answered"],
                                                           med["requests_refused"], med["requests_withdrawn"],
                                                           med["mean_request_wait_seconds"] * 1e6)
            report.print(line)
            row = {"tree": tree, "protocol": engine["protocol"], "steal": engine["steal"],
                   "victim": engine["victim"], "threads": p, "pus_used": pus, "oversubscribed": over,
                   "nodes_per_sec_median": nps}
            row.update(bc.prefixed("time_s", t))
            if sp:
                row.update(bc.prefixed("speedup_vs_1thread", sp))
            row.update({"efficiency_vs_1thread" + k: v for k, v in e.items()})
            for k in ("steals", "nodes_per_steal", "idle_seconds", "requests_sent", "requests_answered",
                      "requests_refused", "requests_withdrawn"):
                row[k + "_median"] = med[k]
            w = med["mean_request_wait_seconds"]
            row["mean_request_wait_us_median"] = None if w is None else w * 1e6
            rows.append(row)
    report.add_rows("main", protocol_columns(), rows)


def default_mode(args, report, tree, counts):
    configs = [("seq", ["--sequential"])] + [(str(p), ["--threads", str(p)] + policy_flags(args)) for p in counts]
    builds = [("new", args.build)] + ([("old", args.compare)] if args.compare else [])
    recs = measure(args, report, tree, configs, builds)
    engine = next(r["engine"] for r in recs[(configs[1][0], "new")])
    report.print("\n%s (protocol %s, steal %s, victim %s; %s)" % (tree, engine.get("protocol", "split"),
                                                                 engine["steal"], engine["victim"],
                                                                 machine_words(report)))
    head = "%-8s %4s %-23s %6s %-23s %-23s %8s %8s" % ("threads", "PUs", "time s [CI]", "CV", "vs 1 thread [CI]",
                                                      "vs seq [CI]", "eff/1thr", "eff/seq")
    if args.compare:
        head += " %10s %-23s %12s" % ("old time s", "new/old time [CI]", "old vs 1 thr")
    report.print(head)
    rows = []
    for which, _ in builds:
        one, seq = times(recs[("1", which)]) if 1 in counts else None, times(recs[("seq", which)])
        for name, _ in configs:
            rs = recs[(name, which)]
            p = 1 if name == "seq" else int(name)
            pus = 1 if name == "seq" else bc.pus_used(rs, p)
            over = False if name == "seq" else bc.oversubscribed(rs, p)
            t = bc.summarize(args, times(rs))
            s1 = bc.speedup(args, one, times(rs)) if one else None
            ss = bc.speedup(args, seq, times(rs))
            e1, es = eff(s1, pus), eff(ss, pus)
            row = {"tree": tree, "build": which, "config": name, "threads": p, "pus_used": pus,
                   "oversubscribed": over, "protocol": rs[0]["engine"].get("protocol") if name != "seq" else None,
                   "steal": rs[0]["engine"].get("steal") if name != "seq" else None,
                   "victim": rs[0]["engine"].get("victim") if name != "seq" else None,
                   "nodes_per_sec_median": bc.median_or_none([r["timing"]["nodes_per_sec"] for r in rs])}
            row.update(bc.prefixed("time_s", t))
            if s1:
                row.update(bc.prefixed("speedup_vs_1thread", s1))
            row.update(bc.prefixed("speedup_vs_seq", ss))
            row.update({"efficiency_vs_1thread" + k: v for k, v in e1.items()})
            row.update({"efficiency_vs_seq" + k: v for k, v in es.items()})
            if which == "new":
                line = "%-8s %4d %-23s %6s %-23s %-23s %8s %8.3f" % (
                    name + ("*" if over else ""), pus, bc.ci_text(t), bc.cv_text(t), bc.ci_text(s1, "speedup"),
                    bc.ci_text(ss, "speedup"), "-" if e1[""] is None else "%.3f" % e1[""], es[""])
                if args.compare:
                    old = times(recs[(name, "old")])
                    ratio = bc.speedup(args, times(rs), old)  # median(new) / median(old)
                    row.update(bc.ratio_prefixed("new_over_old", ratio))
                    old_one = times(recs[("1", "old")]) if 1 in counts else None
                    line += " %10.3f %-23s %12s" % (statistics.median(old), bc.ci_text(ratio, "speedup"),
                                                    "%.3f" % (statistics.median(old_one) / statistics.median(old))
                                                    if old_one else "-")
                report.print(line)
            rows.append(row)
    report.add_rows("main", main_columns(), rows)


def main(argv=None):
    ap = doc_parser(NAME, __doc__)
    ap.add_argument("--trees", type=bc.name_list, default="T1L,T3L", help="presets, comma-separated")
    bc.add_common(ap, 3)
    ap.add_argument("--max-threads", type=bc.positive_int, default=stats.allowed_pus(),
                    help="thread counts 1..N (default: the PUs in this process's affinity mask, %d)"
                    % stats.allowed_pus())
    ap.add_argument("--extra", type=bc.int_list, default=[], help="more thread counts, e.g. 8,16 (oversubscription)")
    ap.add_argument("--protocols", type=bc.name_list,
                    help="compare these steal protocols, e.g. split,locked,request,chaselev")
    ap.add_argument("--steal", help="passed to uts when given (default: each protocol's own)")
    ap.add_argument("--victim", help="passed to uts when given (default: each protocol's own)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--compare", metavar="OLD_BUILD", help="an older build directory to interleave with this one")
    args = ap.parse_args(argv)
    if isinstance(args.trees, str):
        args.trees = bc.name_list(args.trees)
    if args.protocols and args.compare:
        ap.error("--compare works in the default mode only, not with --protocols")
    bc.check_common(ap, args, NAME)
    bc.ensure_built(NAME, args.build)
    if args.compare:
        bc.check_binary(NAME, os.path.join(args.compare, "uts"), "--compare")
    bc.check_presets(NAME, os.path.join(args.build, "uts"), args.trees)
    counts = sorted(set(list(range(1, args.max_threads + 1)) + args.extra))
    report = bc.Report(NAME, args)
    report.print(report.stats_line())
    for tree in args.trees:
        if args.protocols:
            compare_protocols(args, report, tree, args.protocols, counts)
        else:
            default_mode(args, report, tree, counts)
    report.write(os.path.join(args.build, "uts"))


if __name__ == "__main__":
    sys.exit(main())
