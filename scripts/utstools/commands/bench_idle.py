"""Benchmark (not a test): what idle threads cost on a serial tree.

The chain `-t 0 -b 1 -q 0.99999999 -m 1 -r 5` (35 M nodes, one node at a
time) has no parallelism: extra threads can only get in the way. For each
thread count it runs uts (--warmup untimed runs of each count first, then
the repetitions interleaved over the counts) and prints the wall time of the
whole process (median [bootstrap CI], CV), its ratio to the first count's
wall time, the process's CPU time (user + system, from the kernel's rusage
of the child), and CPU time over wall time. Ratios are median over median
with a 95% CI from paired resampling (rep i with rep i). Idle threads that
sleep keep both ratios near 1. --q makes the chain shorter for a quick look
(every run must give the same size; the default chain must give 35060005).

The process is timed whole (hyperfine would do the same, but it reports no
CPU time per run and is not always installed), so the times include start-up.

Output: text on stdout; with --out DIR also DIR/bench-idle.txt (the same
text), DIR/bench-idle.csv and DIR/bench-idle.json (summaries, every run's
raw values, provenance). CSV columns, one row per thread count:
  chain (the uts tree arguments), size, threads, pus_used, oversubscribed (true|false),
  wall_s_{n,median,mean,std,cv,min,max,ci_low,ci_high,confidence,ci_method},
  cpu_s_{same keys}, uts_time_s_{same keys} (uts's own timer, the traversal only),
  wall_vs_first_{n,n_baseline,n_run,ratio,ci_low,ci_high,confidence,ci_method}
      (ratio = median wall time / median wall time at the first count),
  cpu_over_wall_{same keys} (ratio = median CPU time / median wall time).
Statistics: scripts/utstools/stats.py (its docstring defines every number).

usage: scripts/bench-idle [--reps 3] [--warmup 1] [--threads 1,2,8] [--q 0.99999999] [--build DIR] [--out DIR]
"""
import json
import os
import resource
import subprocess
import sys
import time

from utstools import bench_common as bc
from utstools.common import doc_parser
from utstools import stats

NAME = "bench-idle"
ROOT = bc.ROOT
DEFAULT_Q = "0.99999999"
DEFAULT_SIZE = 35060005


def chain(q):
    return ["-t", "0", "-b", "1", "-q", q, "-m", "1", "-r", "5"]


def run(binary, q, threads):
    cmd = [binary] + chain(q) + ["--threads", str(threads), "--format", "json", "--no-progress"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        bc.run_error(NAME, "uts --threads %d exited %d: %s" % (threads, out.returncode, out.stderr.strip()[-300:]))
    try:
        rec = json.loads(out.stdout)
    except ValueError:
        bc.run_error(NAME, "uts --threads %d printed no JSON record" % threads)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rec


def main(argv=None):
    ap = doc_parser(NAME, __doc__)
    bc.add_common(ap, 3)
    ap.add_argument("--threads", type=bc.int_list, default=[1, 2, 8], help="thread counts (default 1,2,8)")
    ap.add_argument("--q", default=DEFAULT_Q, help="the chain's probability of one child (default %s)" % DEFAULT_Q)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args(argv)
    try:
        if not 0 < float(args.q) < 1:
            raise ValueError
    except ValueError:
        ap.error("--q must be a probability between 0 and 1, not %r" % args.q)
    if not args.threads:
        ap.error("--threads: no thread count given")
    bc.check_common(ap, args, NAME)
    binary = os.path.join(args.build, "uts")
    bc.check_binary(NAME, binary)
    counts = args.threads
    report = bc.Report(NAME, args)
    for _ in range(args.warmup):
        for t in counts:
            run(binary, args.q, t)
    walls, cpus, utimes, recs = ({t: [] for t in counts} for _ in range(4))
    size = None
    for rep in range(args.reps):
        for t in counts:
            w, c, rec = run(binary, args.q, t)
            got = rec["results"]["size"]
            if size is None:
                size = got
                if args.q == DEFAULT_Q and size != DEFAULT_SIZE:
                    bc.run_error(NAME, "the chain gave %d nodes, not %d" % (size, DEFAULT_SIZE))
            elif got != size:
                bc.run_error(NAME, "uts --threads %d gave %d nodes, another run %d" % (t, got, size))
            walls[t].append(w)
            cpus[t].append(c)
            utimes[t].append(rec["timing"]["seconds"])
            recs[t].append(rec)
            report.note_record(rec, "%d threads" % t)
            report.runs.append({"threads": t, "rep": rep, "wall_s": w, "cpu_s": c, "uts_time_s": utimes[t][-1],
                                "size": got, "pus_used": (rec.get("placement") or {}).get("pus_used")})
        print("rep %d/%d done" % (rep + 1, args.reps), file=sys.stderr)
    first = counts[0]
    report.print(report.stats_line())
    report.print("chain %s (%d nodes), %d PUs allowed (machine: %d logical CPUs); * oversubscribed" % (
        " ".join(chain(args.q)), size, stats.allowed_pus(), os.cpu_count() or 0))
    report.print("%-8s %4s %-24s %6s %-24s %-24s %-24s" % ("threads", "PUs", "wall s [CI]", "CV",
                                                          "vs %d thread%s [CI]" % (first, "" if first == 1 else "s"),
                                                          "cpu s [CI]", "cpu / wall [CI]"))
    rows = []
    for t in counts:
        w, c, u = (bc.summarize(args, x[t]) for x in (walls, cpus, utimes))
        vs_first = bc.speedup(args, walls[t], walls[first])
        if min(cpus[t]) > 0:
            cw = bc.speedup(args, cpus[t], walls[t])
        else:  # a clock too coarse to see the CPU time
            cw = None
        pus = bc.pus_used(recs[t], t)
        over = bc.oversubscribed(recs[t], t)
        report.print("%-8s %4d %-24s %6s %-24s %-24s %-24s" % (
            "%d%s" % (t, "*" if over else ""), pus, bc.ci_text(w), bc.cv_text(w), bc.ci_text(vs_first, "speedup"),
            bc.ci_text(c), bc.ci_text(cw, "speedup")))
        row = {"chain": " ".join(chain(args.q)), "size": size, "threads": t, "pus_used": pus, "oversubscribed": over}
        row.update(bc.prefixed("wall_s", w))
        row.update(bc.prefixed("cpu_s", c))
        row.update(bc.prefixed("uts_time_s", u))
        row.update(bc.ratio_prefixed("wall_vs_first", vs_first))
        if cw:
            row.update(bc.ratio_prefixed("cpu_over_wall", cw))
        rows.append(row)
    report.add_rows("main", ["chain", "size", "threads", "pus_used", "oversubscribed"] + bc.summary_cols("wall_s")
                    + bc.summary_cols("cpu_s") + bc.summary_cols("uts_time_s") + bc.ratio_cols("wall_vs_first")
                    + bc.ratio_cols("cpu_over_wall"), rows)
    report.write(binary)


if __name__ == "__main__":
    sys.exit(main())
