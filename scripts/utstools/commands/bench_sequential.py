"""Benchmark (not a test): the sequential traversal against the raw one-block
SHA-1 rates, all measured in the same invocation.

Each repetition runs the raw-rate probe (Crypto++ chained and independent,
the SHA-NI kernel at 1..6 interleaved lanes, the AVX-512 kernel), then
`uts --sequential`, `uts --threads 1` and `uts --threads 2` on each tree with
each SHA-1 path this CPU has, interleaved so machine noise hits all of them
alike; before the first repetition every one of those runs once untimed
(--warmup). It prints, per run, the median rate with its bootstrap CI and CV,
and ratios of medians: hashes/s against the chained Crypto++ rate (the
latency floor the project used to measure against), against the best
interleaved SHA-NI rate, and against the AVX-512 kernel's throughput
(independent batches; the throughput limit, docs/tree-rules.md section 2);
then 1 thread against --sequential and 2 threads against 1 thread
(median time over median time, 95% CI from paired resampling: rep i of one
with rep i of the other). One node costs one block (the root costs none),
times -g. Times and rates are uts's own (the record's timing.seconds).

With --compare OLD_BUILD, every traversal also runs with OLD_BUILD's uts,
back to back with this build's (alternating which goes first), and a last
table gives both medians and the ratio new/old of the rates [paired CI] (a
check that a change costs no speed, measured in one run). An old build
without the AVX-512 path (its uts-sha1-rate reports no AVX-512 rate, or it
has none) runs its SHA-NI path in the avx512 rows, labelled avx512/shani.

Output: text on stdout; with --out DIR also DIR/bench-sequential.txt (the
same text), DIR/bench-sequential.csv (one row per tree, SHA-1 path, engine
and build), DIR/bench-sequential-raw.csv (one row per raw rate) and
DIR/bench-sequential.json (summaries, every run's raw values, provenance).

Interrupted (SIGINT or SIGTERM, as `timeout` sends) after at least one whole
repetition, it drops the repetition in progress, prints and writes
everything over the repetitions it finished (the statistics line and the
JSON's "reps" give that count; the JSON's "interrupted" gives planned and
finished), and exits with status 130; interrupted before that, it writes
nothing and exits 130.
bench-sequential.csv columns:
  tree, sha1 (the path asked for), sha1_ran (the path uts reports), engine (seq|1 thread|2 threads),
  build (new|old), threads, pus_used, oversubscribed (true|false),
  time_s_{n,median,mean,std,cv,min,max,ci_low,ci_high,confidence,ci_method},
  nodes_per_sec_{same keys}, hashes_per_sec_median,
  vs_chained_{n,n_baseline,n_run,ratio,ci_low,ci_high,confidence,ci_method}
      (ratio = median hashes/s / median chained Crypto++ rate; likewise:)
  vs_best_shani_{...}, vs_avx512_{...} (against the AVX-512 kernel as the traversal runs it: pairs of
      batches, avx512_pair, where uts-sha1-rate reports it, else avx512_independent; empty without AVX-512),
  speedup_vs_seq_{n,n_baseline,n_run,speedup,ci_low,ci_high,confidence,ci_method}
      (speedup = median seq time / median time), speedup_vs_1thread_{...},
  new_over_old_rate_{...} (median old time / median new time, new rows with --compare)
bench-sequential-raw.csv columns: rate (chained, independent, shani_lanes_L, avx512_lanes_16,
  avx512_independent, avx512_pair), blocks_per_sec_{n,median,...,ci_method}.
Statistics: scripts/utstools/stats.py (its docstring defines every number).

usage: scripts/bench-sequential [--reps N] [--warmup 1] [--trees T1,T3,T1L,T3L] [--sha1 avx512,shani,cryptopp]
                                [--blocks N] [--build DIR] [--compare OLD_BUILD] [--out DIR]
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys

from utstools import bench_common as bc
from utstools.common import doc_parser
from utstools import stats

NAME = "bench-sequential"
ROOT = bc.ROOT
ENGINES = {"seq": ["--sequential"], "1 thread": ["--threads", "1"], "2 threads": ["--threads", "2"]}
THREADS = {"seq": 1, "1 thread": 1, "2 threads": 2}


def blocks_arg(text):
    v = bc.positive_int(text)
    if v > 10**12:
        raise argparse.ArgumentTypeError("at most 10^12, not %d" % v)
    return v


def raw_rates(build, blocks):
    p = subprocess.run([os.path.join(build, "uts-sha1-rate"), str(blocks)], capture_output=True, text=True)
    if p.returncode != 0:
        bc.run_error(NAME, "uts-sha1-rate exited %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    vals = dict(line.split(None, 1) for line in p.stdout.splitlines() if line.strip())
    return {k[:-len("_blocks_per_sec")]: float(v) for k, v in vals.items() if k.endswith("_blocks_per_sec")}


def traversal(build, preset, path, engine):
    rec = bc.run_json(NAME, [os.path.join(build, "uts"), "--preset", preset, "--verify", "--sha1", path,
                             "--no-progress", "--format", "json"] + ENGINES[engine])
    secs = rec["timing"]["seconds"]
    blocks = (rec["results"]["size"] - 1) * rec["parameters"]["granularity"]
    return {"seconds": secs, "nodes_per_sec": rec["results"]["size"] / secs, "hashes_per_sec": blocks / secs,
            "record": rec}


def columns():
    return (["tree", "sha1", "sha1_ran", "engine", "build", "threads", "pus_used", "oversubscribed"]
            + bc.summary_cols("time_s") + bc.summary_cols("nodes_per_sec") + ["hashes_per_sec_median"]
            + bc.ratio_cols("vs_chained") + bc.ratio_cols("vs_best_shani") + bc.ratio_cols("vs_avx512")
            + bc.speedup_cols("speedup_vs_seq") + bc.speedup_cols("speedup_vs_1thread")
            + bc.ratio_cols("new_over_old_rate"))


def main(argv=None):
    ap = doc_parser(NAME, __doc__)
    bc.add_common(ap, 3)
    ap.add_argument("--trees", type=bc.name_list, default="T1,T3,T1L,T3L", help="presets, comma-separated")
    ap.add_argument("--sha1", type=bc.name_list,
                    help="SHA-1 paths to run, from avx512,shani,cryptopp (default: every one this CPU has)")
    ap.add_argument("--blocks", type=blocks_arg, default=50_000_000,
                    help="blocks for each raw-rate probe (1 to 10^12, as uts-sha1-rate takes)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--compare", metavar="OLD_BUILD", help="an older build directory to interleave with this one")
    args = ap.parse_args(argv)
    if isinstance(args.trees, str):
        args.trees = bc.name_list(args.trees)
    bc.check_common(ap, args, NAME, extra_files=[NAME + "-raw.csv"])
    bc.ensure_built(NAME, args.build)
    bc.check_binary(NAME, os.path.join(args.build, "uts-sha1-rate"), "--build (uts-sha1-rate)")
    if args.compare:
        bc.check_binary(NAME, os.path.join(args.compare, "uts"), "--compare")
    bc.check_presets(NAME, os.path.join(args.build, "uts"), args.trees)
    trees = args.trees
    report = bc.Report(NAME, args)

    probe = raw_rates(args.build, 100_000)  # which kernels this CPU has
    have = (["avx512"] if "avx512_independent" in probe else []) + \
        (["shani"] if "shani_lanes_1" in probe else []) + ["cryptopp"]
    paths = args.sha1 or have
    for p in paths:
        if p not in ("avx512", "shani", "cryptopp"):
            ap.error("--sha1: unknown path %r (avx512, shani, cryptopp)" % p)
        if p not in have:
            bc.usage_error(NAME, "--sha1 %s: this CPU does not have it (it has %s)" % (p, ", ".join(have)))
    builds = [("new", args.build)] + ([("old", args.compare)] if args.compare else [])

    old_avx512 = False
    if args.compare and os.path.exists(os.path.join(args.compare, "uts-sha1-rate")):
        old_avx512 = "avx512_independent" in raw_rates(args.compare, 100_000)

    def path_for(which, p):
        return p if which == "new" or p != "avx512" or old_avx512 else "shani"

    raw, runs = {}, {}
    planned, finished = args.reps, 0
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        measure(args, trees, paths, builds, path_for, report, raw, runs)
    except Interrupted as stop:
        finished = stop.finished
        if finished == 0:
            print("%s: interrupted before the first repetition was done: nothing written" % NAME, file=sys.stderr)
            sys.exit(130)
        # Only whole repetitions: every summary and paired ratio sees the same reps.
        for d in (raw, runs):
            for k in d:
                del d[k][finished:]
        report.runs[:] = [r for r in report.runs if r.get("rep", 0) < finished]
        args.reps = finished
        report.print("interrupted: %d of %d repetitions done; everything below is over those %d"
                     % (finished, planned, finished))
    summarize_and_write(args, trees, paths, builds, path_for, old_avx512, report, raw, runs,
                        {"interrupted": {"planned_reps": planned, "finished_reps": finished}} if finished else None)
    if finished:
        sys.exit(130)


class Interrupted(Exception):
    def __init__(self, finished):
        super().__init__(finished)
        self.finished = finished


def on_sigterm(signum, frame):
    raise KeyboardInterrupt


def measure(args, trees, paths, builds, path_for, report, raw, runs):
    """The warm-up runs, then args.reps interleaved repetitions into raw and
    runs. Raises Interrupted(whole repetitions done) on SIGINT or SIGTERM."""
    done = 0  # whole repetitions, counted before they are announced
    try:
        for _ in range(args.warmup):
            raw_rates(args.build, args.blocks)
            for t in trees:
                for p in paths:
                    for e in ENGINES:
                        for which, build in builds:
                            traversal(build, t, path_for(which, p), e)
        for rep in range(args.reps):
            one_rep(args, rep, trees, paths, builds, path_for, report, raw, runs)
            done = rep + 1
            print("rep %d/%d done" % (done, args.reps), file=sys.stderr)
    except KeyboardInterrupt:
        raise Interrupted(done) from None


def one_rep(args, rep, trees, paths, builds, path_for, report, raw, runs):
    for k, v in raw_rates(args.build, args.blocks).items():
        raw.setdefault(k, []).append(v)
        report.runs.append({"kind": "raw", "rate": k, "rep": rep, "blocks_per_sec": v})
    for t in trees:
        for p in paths:
            for e in ENGINES:
                for which, build in (builds if rep % 2 == 0 else builds[::-1]):
                    r = traversal(build, t, path_for(which, p), e)
                    rec = r.pop("record")
                    r["record_sha1"] = (rec.get("engine") or {}).get("sha1") or \
                        (rec.get("parameters") or {}).get("sha1")
                    r["pus_used"] = stats.pus_used_of(rec, THREADS[e])
                    r["oversubscribed"] = bc.oversubscribed([rec], THREADS[e])
                    report.note_record(rec, "%s %s %s %s" % (t, p, e, which))
                    runs.setdefault((t, p, e, which), []).append(r)
                    report.runs.append(dict(r, kind="traversal", tree=t, sha1=p, engine=e, build=which, rep=rep))


def summarize_and_write(args, trees, paths, builds, path_for, old_avx512, report, raw, runs, extra):
    """The tables over raw and runs, printed and (--out) written."""
    report.print(report.stats_line())
    summ = {k: bc.summarize(args, v) for k, v in raw.items()}
    report.print("\nraw one-block SHA-1 rates (M blocks/s: median [CI], CV):")

    def raw_line(label, key):
        if key in summ:
            report.print("  %-33s %-26s %6s" % (label, bc.ci_text(summ[key], scale=1e-6, fmt="%.2f"),
                                                 bc.cv_text(summ[key])))
    raw_line("Crypto++ Transform, chained", "chained")
    raw_line("Crypto++ Transform, independent", "independent")
    lanes = sorted((int(k.split("_")[2]), k) for k in summ if k.startswith("shani_lanes_"))
    for n, k in lanes:
        raw_line("SHA-NI, %d interleaved lane%s" % (n, "" if n == 1 else "s"), k)
    raw_line("AVX-512, 16 lanes, chained", "avx512_lanes_16")
    raw_line("AVX-512, 16 lanes, independent", "avx512_independent")
    raw_line("AVX-512, 2 x 16 lanes, independent", "avx512_pair")
    report.add_rows("raw", ["rate"] + bc.summary_cols("blocks_per_sec"),
                    [dict(bc.prefixed("blocks_per_sec", s), rate=k) for k, s in summ.items()])
    best = max(lanes, key=lambda nk: summ[nk[1]]["median"])[1] if lanes else "independent"
    # The traversal hashes pairs of batches: its kernel's rate is the pair's.
    avx = "avx512_pair" if "avx512_pair" in raw else "avx512_independent" if "avx512_independent" in raw else None

    report.print("\nM nodes/s and hashes/s: median [CI]; ratios of medians [paired CI]")
    report.print("%-6s %-9s %-9s %-24s %6s %10s %-22s %-22s %-22s" % (
        "tree", "sha1", "engine", "M nodes/s [CI]", "CV", "M hashes/s", "vs chained", "vs best SHA-NI",
        "vs AVX-512"))
    rows = []
    for which, _ in builds:
        for t in trees:
            for p in paths:
                seq, one = runs[(t, p, "seq", which)], runs[(t, p, "1 thread", which)]
                for e in ENGINES:
                    rs = runs[(t, p, e, which)]
                    hashes = [x["hashes_per_sec"] for x in rs]
                    nodes = bc.summarize(args, [x["nodes_per_sec"] for x in rs])
                    vs = {"vs_chained": bc.speedup(args, hashes, raw["chained"]),
                          "vs_best_shani": bc.speedup(args, hashes, raw[best]),
                          "vs_avx512": bc.speedup(args, hashes, raw[avx]) if avx else None}
                    row = {"tree": t, "sha1": path_for(which, p), "sha1_ran": rs[0]["record_sha1"], "engine": e,
                           "build": which, "threads": THREADS[e], "pus_used": max(x["pus_used"] for x in rs),
                           "oversubscribed": any(x["oversubscribed"] for x in rs),
                           "hashes_per_sec_median": statistics.median(hashes)}
                    row.update(bc.prefixed("time_s", bc.summarize(args, [x["seconds"] for x in rs])))
                    row.update(bc.prefixed("nodes_per_sec", nodes))
                    for k, v in vs.items():
                        if v:
                            row.update(bc.ratio_prefixed(k, v))
                    times = [x["seconds"] for x in rs]
                    row.update(bc.prefixed("speedup_vs_seq", bc.speedup(args, [x["seconds"] for x in seq], times)))
                    row.update(bc.prefixed("speedup_vs_1thread",
                                           bc.speedup(args, [x["seconds"] for x in one], times)))
                    if which == "new" and args.compare:
                        old = [x["seconds"] for x in runs[(t, p, e, "old")]]
                        row.update(bc.ratio_prefixed("new_over_old_rate", bc.speedup(args, old, times)))
                    rows.append(row)
                    if which == "new":
                        report.print("%-6s %-9s %-9s %-24s %6s %10.2f %-22s %-22s %-22s" % (
                            t, p, e, bc.ci_text(nodes, scale=1e-6, fmt="%.2f"), bc.cv_text(nodes),
                            statistics.median(hashes) / 1e6, bc.ci_text(vs["vs_chained"], "speedup"),
                            bc.ci_text(vs["vs_best_shani"], "speedup"),
                            bc.ci_text(vs["vs_avx512"], "speedup") if avx else "-"))
    report.add_rows("main", columns(), rows)

    report.print("\nengine ratios (median time over median time [paired CI]):")
    report.print("%-6s %-9s %-24s %-24s" % ("tree", "sha1", "1 thread vs seq", "2 threads vs 1 thread"))
    for t in trees:
        for p in paths:
            seq, one, two = ([x["seconds"] for x in runs[(t, p, e, "new")]] for e in ENGINES)
            report.print("%-6s %-9s %-24s %-24s" % (t, p, bc.ci_text(bc.speedup(args, seq, one), "speedup"),
                                                    bc.ci_text(bc.speedup(args, one, two), "speedup")))
    if args.compare:
        report.print("\nthis build (new) against %s (old), interleaved, median of %d; new/old of the rates "
                     "[paired CI]:" % (args.compare, args.reps))
        report.print("%-9s %-12s %-9s %14s %14s %-24s" % ("tree", "sha1", "engine", "old M nodes/s", "new M nodes/s",
                                                          "new/old"))
        for t in trees:
            for p in paths:
                for e in ENGINES:
                    old = runs[(t, p, e, "old")]
                    new = runs[(t, p, e, "new")]
                    ratio = bc.speedup(args, [x["seconds"] for x in old], [x["seconds"] for x in new])
                    label = p if p != "avx512" or old_avx512 else "avx512/shani"
                    report.print("%-9s %-12s %-9s %14.2f %14.2f %-24s" % (
                        t, label, e, statistics.median(x["nodes_per_sec"] for x in old) / 1e6,
                        statistics.median(x["nodes_per_sec"] for x in new) / 1e6, bc.ci_text(ratio, "speedup")))
    report.write(os.path.join(args.build, "uts"), extra)


if __name__ == "__main__":
    sys.exit(main())
