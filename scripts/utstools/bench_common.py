"""What the bench scripts (scripts/bench-*) share: the common options,
running uts for its JSON record, warm-up and interleaving helpers, the text
they print, and the CSV and JSON files they write next to it with --out.

Statistics come from stats.py (see its docstring for what each number means).
The scripts time with uts's own timer (the record's timing.seconds: the
traversal, not process start-up), so hyperfine, which times whole commands,
is not used; bench-idle, which needs the wall time of the whole process and
its CPU time, times the process itself.
"""
import csv
import json
import os
import platform
import shlex
import subprocess
import sys

from utstools import stats
# The parser, errors, argument types and provenance every tool shares.
from utstools.common import (ROOT, int_list, name_list, nonnegative_int, positive_int, run_error,  # noqa: F401
                              usage_error, utc_iso, uts_version)


OUT_HELP = ("also write DIR/NAME.txt (the text printed), DIR/NAME.csv (one row per configuration; columns listed "
            "below) and DIR/NAME.json (the summaries, every repetition's raw values and the provenance: command "
            "line, uts --version, the first record's build, machine, batch job and runtime_env, each "
            "configuration's placement); DIR is created if missing; existing files are never overwritten (exit 2)")


def add_common(ap, reps_default):
    """--reps, --warmup, --out, --confidence, --resamples: every bench has them."""
    ap.add_argument("--reps", type=positive_int, default=reps_default,
                    help="timed repetitions of every configuration, interleaved (default %d)" % reps_default)
    ap.add_argument("--warmup", type=nonnegative_int, default=1,
                    help="untimed runs of every configuration before the first timed one (default 1)")
    ap.add_argument("--out", metavar="DIR", help=OUT_HELP)
    ap.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    ap.add_argument("--resamples", type=positive_int, default=10000, help="bootstrap resamples (default 10000)")


def check_common(ap, args, name, extra_files=()):
    if not 0 < args.confidence < 1:
        ap.error("--confidence must be between 0 and 1, e.g. 0.95")
    if args.out:
        files = [os.path.join(args.out, name + ext) for ext in (".txt", ".csv", ".json")]
        files += [os.path.join(args.out, f) for f in extra_files]
        there = [f for f in files if os.path.exists(f)]
        if there:
            usage_error(ap.prog, "%s exists; choose another --out folder (nothing is overwritten)" % there[0])
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            usage_error(ap.prog, "--out %s is not a folder" % args.out)
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            usage_error(ap.prog, "cannot create --out %s: %s" % (args.out, e.strerror))


def check_binary(prog, path, what="--build"):
    """A usable uts binary, else exit 2."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        usage_error(prog, "%s: no executable uts at %s" % (what, path))


def ensure_built(prog, build):
    """Build the default build directory when its uts is missing; any other
    missing build is a usage error. It installs nothing: a missing build
    dependency fails the build, which says what is missing (scripts/run
    installs them)."""
    uts = os.path.join(build, "uts")
    if not os.path.exists(uts) and os.path.abspath(build) == os.path.join(ROOT, "build"):
        if subprocess.run(["bash", "-c", 'source "%s/scripts/lib/setup.sh" && uts_build build' % ROOT]).returncode:
            run_error(prog, "could not build %s (see the messages above; scripts/run installs what the build "
                      "needs)" % uts)
    check_binary(prog, uts)


def preset_names(uts):
    out = subprocess.run([uts, "--list-presets"], capture_output=True, text=True)
    return {line.split()[0].upper() for line in out.stdout.splitlines() if line.strip() and not line[0].isspace()}


def check_presets(prog, uts, trees):
    known = preset_names(uts)
    for t in trees:
        if known and t.upper() not in known:
            usage_error(prog, "unknown preset %r (uts --list-presets: %s)" % (t, ", ".join(sorted(known))))


def run_json(prog, cmd, env=None):
    """Run a uts command line with --format json; its record, or exit 1 with one line."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        err = " ".join(p.stderr.strip().splitlines()[-3:])[-300:]
        run_error(prog, "%s exited %d: %s" % (shlex.join(cmd), p.returncode, err))
    try:
        return json.loads(p.stdout)
    except ValueError:
        run_error(prog, "%s printed no JSON record: %s" % (shlex.join(cmd), p.stdout.strip()[:200]))


def pus_used(records, threads):
    """PUs the runs of one configuration used (stats.pus_used_of per record;
    the largest if the repetitions differ)."""
    return max(stats.pus_used_of(r, threads) for r in records)


def oversubscribed(records, threads):
    """The records' placement.oversubscribed when present, else threads > allowed PUs."""
    flags = [((r or {}).get("placement") or {}).get("oversubscribed") for r in records]
    if all(isinstance(f, bool) for f in flags) and flags:
        return any(flags)
    return threads > stats.allowed_pus()


def prefixed(prefix, summary):
    """A summarize() or speedup_ci() result as CSV columns prefix_key."""
    return {prefix + "_" + k: v for k, v in summary.items()}


def ratio_prefixed(prefix, result):
    """A speedup_ci() result used for a ratio that is not a speedup (cpu/wall,
    new/old): the same columns with 'speedup' named 'ratio'."""
    return {prefix + "_" + ("ratio" if k == "speedup" else k): v for k, v in result.items()}


def ratio_cols(prefix):
    return [prefix + "_" + ("ratio" if k == "speedup" else k) for k in stats.speedup_columns()]


def summary_cols(prefix):
    return [prefix + "_" + k for k in stats.summary_columns()]


def speedup_cols(prefix):
    return [prefix + "_" + k for k in stats.speedup_columns()]


def ci_text(s, key="median", scale=1.0, fmt="%.3f"):
    """'1.234 [1.200, 1.250]' for a summary (key median) or a speedup (key speedup)."""
    if s is None or s.get(key) is None:
        return "-"
    if s.get("ci_low") is None:
        return (fmt % (s[key] * scale)) + " [n<2]"
    return "%s [%s, %s]" % (fmt % (s[key] * scale), fmt % (s["ci_low"] * scale), fmt % (s["ci_high"] * scale))


def cv_text(s):
    return "-" if s.get("cv") is None else "%.1f%%" % (100 * s["cv"])


def median_or_none(values):
    values = [v for v in values if v is not None]
    return stats.summarize(values)["median"] if values else None


class Report:
    """Text printed to stdout as it comes and kept for --out; CSV tables and
    raw runs kept for the files."""

    def __init__(self, name, args):
        self.name, self.args = name, args
        self.lines, self.tables, self.runs, self.records, self.placements = [], {}, [], [], {}
        self.started = utc_iso()

    def print(self, text=""):
        print(text)
        sys.stdout.flush()
        self.lines.extend(str(text).split("\n"))

    def note_record(self, rec, key=None):
        """Keep the first record (its build and machine go into the JSON) and
        the placement of each configuration's first run."""
        if rec is None:
            return
        if not self.records:
            self.records.append(rec)
        if key is not None and key not in self.placements:
            self.placements[key] = rec.get("placement")

    def add_rows(self, table, columns, rows):
        cols, old = self.tables.setdefault(table, (list(columns), []))
        old.extend(rows)

    def stats_line(self):
        return ("statistics: median over %d timed repetitions (after %d warm-up run%s of each configuration, "
                "repetitions interleaved); [a, b] = %g%% bootstrap percentile CI (%d resamples) of the median, or "
                "for ratios of medians, paired by repetition; CV = sd/mean; %s" % (
                    self.args.reps, self.args.warmup, "" if self.args.warmup == 1 else "s",
                    100 * self.args.confidence, self.args.resamples, stats_path()))

    def write(self, uts, extra=None):
        if not self.args.out:
            return
        d = self.args.out
        with open(os.path.join(d, self.name + ".txt"), "w") as f:
            f.write("\n".join(self.lines).rstrip("\n") + "\n")
        for table, (cols, rows) in self.tables.items():
            fname = self.name + (".csv" if table == "main" else "-%s.csv" % table)
            with open(os.path.join(d, fname), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
                w.writeheader()
                for r in rows:
                    w.writerow({k: csv_value(v) for k, v in r.items()})
        first = self.records[0] if self.records else {}
        doc = {"script": self.name, "command_line": [os.path.basename(sys.argv[0])] + sys.argv[1:],
               "started": self.started,
               "finished": utc_iso(),
               "uts": uts, "uts_version": uts_version(uts),
               "build": first.get("build"), "machine": first.get("machine"),
               # The batch job and OMP_*, GOMP_*, KMP_* of the first record
               # (docs/output.md, section 4a; absent from a uts older than them).
               "batch": first.get("batch"), "runtime_env": first.get("runtime_env"),
               "placements": self.placements,
               "host": platform.node(), "allowed_pus": stats.allowed_pus(), "cpu_count": os.cpu_count(),
               "reps": self.args.reps, "warmup": self.args.warmup,
               "statistics": {"confidence": self.args.confidence, "resamples": self.args.resamples, "seed": 1,
                              "path": stats.backend_in_use(), "text": self.stats_line()},
               "tables": {t: rows for t, (_, rows) in self.tables.items()}, "runs": self.runs}
        if extra:
            doc.update(extra)
        with open(os.path.join(d, self.name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print("%s: wrote %s/%s.{txt,csv,json}" % (self.name, d, self.name), file=sys.stderr)


def csv_value(v):
    """None (not applicable) empty, booleans true/false, floats to 6 digits."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "%.6g" % v
    return v


def stats_path():
    name = stats.backend_in_use()
    return {"scipy": "SciPy", "numpy": "numpy fallback (SciPy did not import)",
            "python": "pure-Python fallback (neither SciPy nor numpy imported)"}[name]


def summarize(args, values):
    return stats.summarize(values, confidence=args.confidence, resamples=args.resamples)


def speedup(args, baseline, run, paired=True):
    return stats.speedup_ci(baseline, run, paired=paired, confidence=args.confidence, resamples=args.resamples)
