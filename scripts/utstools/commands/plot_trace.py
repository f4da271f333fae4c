"""Draw the figures of one uts event trace (uts ... --trace FILE.json).

usage: scripts/plot-trace FILE.json [--out DIR] [--window START:END]
                          [--max-intervals N]

  --out DIR            where to write (default: FILE's folder); created if missing
  --window START:END   the timeline shows only this part of the run, in
                       seconds since its start (e.g. 0.1:0.12); default the
                       whole run
  --max-intervals N    at most N state intervals per thread on the timeline
                       (default 2000); a thread with more is decimated: its
                       span cut into N bins, each drawn in the state that
                       covers most of it (the caption says so)

Writes, each as PNG and SVG, named after FILE (t.json -> t_timeline.png, ...):
  STEM_timeline              each thread's states, steal arrows victim -> thief
  STEM_steal_matrix          thief x victim successful steals and nodes moved,
                             by thread (and by rank under MPI, by domain when
                             the trace's otherData has a "domains" map)
  STEM_steal_distributions   steal attempt durations (successful vs failed) and
                             nodes per successful steal
  STEM_breakdown             time in each state per thread (stacked bars)
and prints the files written. A truncated trace (otherData.dropped > 0) is
drawn as far as it goes, said on stderr and in every caption.
docs/trace.md ("Pictures") describes the figures.

Exit status: 0 drawn; 2 bad usage or a file that is not a uts trace.
"""
import os
import sys

from utstools import figure_formats


def fail(message):
    print("plot-trace: %s" % message, file=sys.stderr)
    return 2


def parse(argv):
    """(file, out, window, max_intervals) or a string: the usage error."""
    path, out, window, max_intervals = None, None, None, 2000
    i = 0
    while i < len(argv):
        a = argv[i]
        if "=" in a and a.startswith("--"):
            a, value = a.split("=", 1)
            given = True
        else:
            value, given = (argv[i + 1] if i + 1 < len(argv) else None), False
        if a in ("--out", "--window", "--max-intervals"):
            if value is None:
                return "%s needs a value" % a
            i += 1 if given else 2
            if a == "--out":
                out = value
            elif a == "--window":
                try:
                    lo, hi = (float(x) for x in value.split(":"))
                except ValueError:
                    return "--window %r: expected START:END in seconds, e.g. 0.1:0.2" % value
                if not (0 <= lo < hi) or hi == float("inf"):
                    return "--window %r: expected 0 <= START < END" % value
                window = (lo, hi)
            else:
                try:
                    max_intervals = int(value)
                except ValueError:
                    return "--max-intervals %r: expected a whole number" % value
                if max_intervals < 1:
                    return "--max-intervals must be at least 1"
            continue
        if a.startswith("-") and a != "-":
            return "unknown option %s (see --help)" % a
        if path is not None:
            return "one trace file at a time (got %s and %s)" % (path, a)
        path = a
        i += 1
    if path is None:
        return "usage: scripts/plot-trace FILE.json [--out DIR] [--window START:END] [--max-intervals N]"
    return path, out, window, max_intervals


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    figure_formats.formats("plot-trace")  # a bad UTS_FIGURE_FORMATS: exit 2
    parsed = parse(argv)
    if isinstance(parsed, str):
        return fail(parsed)
    path, out, window, max_intervals = parsed
    try:
        from utstools import trace_plots
    except ImportError as e:
        return fail("needs matplotlib and numpy (apt-get install python3-matplotlib): %s" % e)
    try:
        trace = trace_plots.Trace(path)
    except trace_plots.TraceError as e:
        return fail(str(e))
    if window is not None and window[0] * 1e6 >= trace.t_end:
        return fail("%s: --window starts at %g s, after the run's last event (%g s)" % (path, window[0],
                                                                                       trace.t_end / 1e6))
    out = out or os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        return fail("--out %s: %s" % (out, e.strerror or e))
    if not os.access(out, os.W_OK):
        return fail("--out %s: not writable" % out)
    if trace.truncated():
        dropped = trace.dropped()
        print("plot-trace: %s: truncated trace: %d events dropped on %d of %d threads (buffer %s events per "
              "thread); the figures cover only what was recorded" % (path, sum(dropped),
                                                                     sum(1 for x in dropped if x > 0),
                                                                     len(trace.threads),
                                                                     trace.other.get("events_per_thread", "?")),
              file=sys.stderr)
    stem = os.path.splitext(os.path.basename(path))[0] or "trace"
    try:
        files = trace_plots.plot_all(trace, out, stem, window, max_intervals)
    except trace_plots.TraceError as e:
        return fail(str(e))
    except OSError as e:
        return fail("cannot write into %s: %s" % (out, e.strerror or e))
    for f in files:
        print(f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
