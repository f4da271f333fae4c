"""Figures of one uts event trace (`uts --trace FILE.json`, the Chrome/Perfetto
trace event format of docs/trace.md): the timeline of every thread's states
with steal arrows, the steal matrices (thief x victim, by thread, rank and
domain), the distributions of steal latency and of nodes per steal, and the
time breakdown per thread. docs/trace.md, "Pictures", describes each.

A trace is one run: no figure here has a statistic over repetitions; the
captions say what is counted (n) and what is drawn. Needs matplotlib and
numpy (Debian: python3-matplotlib)."""
import json
import math
import sys

import numpy as np

from utstools import plot_common as pc
from matplotlib.ticker import FuncFormatter

plt = pc.plt

# The states, in the order they stack and appear in legends, and their
# colours (shared with the study's breakdown figures, study_plots.py).
STATES = ("work", "search", "claim", "idle", "sleep", "termination", "agent")
STATE_COLORS = {
    "work": "#2ca02c",         # green
    "search": "#ff7f0e",       # orange
    "claim": "#d62728",        # red
    "idle": "#9ecae1",         # light blue
    "sleep": "#3f5f7f",        # dark blue-grey
    "termination": "#9467bd",  # purple
    "agent": "#8c564b",        # brown
}
STATE_MEANING = {
    "work": "expanding nodes", "search": "probing victims (failed claims included)",
    "claim": "the successful steal call", "idle": "backing off (spin, yield)", "sleep": "asleep (futex)",
    "termination": "from the last search's start to the thread's end",
    "agent": "MPI agent: answering ranks, waiting, tokens",
}
OUTCOMES = ("success", "empty", "contended")
# MPI instants drawn on the timeline: (marker, colour, legend text).
GLOBAL_MARKS = {"global_request": ("v", "black", "global request sent"),
                "global_answer": ("^", "black", "global answer"),
                "global_refusal": ("x", "black", "global refusal"),
                "token": ("D", "0.35", "termination token"),
                "lifeline_request": ("1", "0.2", "lifeline request sent"),
                "lifeline_push_sent": ("P", "0.2", "lifeline push sent"),
                "lifeline_push_received": ("+", "0.2", "lifeline push received"),
                "wave": ("d", "0.5", "termination wave")}
MAX_ARROWS = 300  # steal arrows drawn on one timeline at most (evenly chosen beyond that)


class TraceError(Exception):
    """Bad input: the message is the one line plot-trace prints."""


# ---------------------------------------------------------------- reading

def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Trace:
    """One uts trace, read and checked. Times are kept in µs as in the file.

    threads: the tracks [(rank, thread)], sorted; index: track -> row;
    intervals[track][state] = (starts, durations) numpy arrays, sorted;
    steals: [(thief, victim, ts, dur, outcome, nodes)] with thief and
    victim as tracks; other: otherData."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise TraceError("%s: cannot read: %s" % (path, e.strerror or e))
        try:
            doc = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise TraceError("%s: not JSON (not UTF-8 text)" % path)
        except ValueError as e:
            raise TraceError("%s: not JSON: %s" % (path, str(e).split("\n")[0]))
        if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
            raise TraceError("%s: not a uts trace: no traceEvents list (written by uts --trace FILE.json?)" % path)
        other = doc.get("otherData")
        if not isinstance(other, dict) or "protocol" not in other or "dropped" not in other:
            raise TraceError("%s: not a uts trace: otherData lacks uts's protocol and dropped fields" % path)
        self.other = other
        self._read(doc["traceEvents"])

    def _read(self, events):
        names = {}
        spans = {}
        steals = []
        tracks = set()
        self.instants = {}
        self.globals = []  # MPI: (track, ts, name) of the global requests, answers, refusals and tokens
        for i, ev in enumerate(events):
            if not isinstance(ev, dict) or not isinstance(ev.get("ph"), str):
                raise TraceError("%s: not a uts trace: event %d is not an object with a ph field" % (self.path, i))
            ph = ev["ph"]
            if ph == "M":
                if ev.get("name") == "thread_name" and _int(ev.get("pid")) and _int(ev.get("tid")):
                    tracks.add((ev["pid"], ev["tid"]))
                    names[(ev["pid"], ev["tid"])] = str((ev.get("args") or {}).get("name", ""))
                continue
            if ph not in ("X", "i", "s", "f"):
                continue
            pid, tid, ts = ev.get("pid"), ev.get("tid"), ev.get("ts")
            if not (_int(pid) and _int(tid) and _number(ts)):
                raise TraceError("%s: bad trace: event %d (%s) lacks an integer pid and tid or a numeric ts"
                                 % (self.path, i, ev.get("name")))
            track = (pid, tid)
            tracks.add(track)
            if ph == "i":
                self.instants[ev.get("name")] = self.instants.get(ev.get("name"), 0) + 1
                if ev.get("cat") == "global" and ev.get("name") in GLOBAL_MARKS:
                    self.globals.append((track, float(ts), ev["name"]))
                continue
            if ph != "X":
                continue
            dur = ev.get("dur")
            if not _number(dur) or dur < 0:
                raise TraceError("%s: bad trace: event %d (%s) has no duration >= 0" % (self.path, i, ev.get("name")))
            cat = ev.get("cat")
            if cat == "state":
                name = ev.get("name")
                if name not in STATES:
                    raise TraceError("%s: bad trace: event %d has an unknown state %r" % (self.path, i, name))
                spans.setdefault(track, {}).setdefault(name, []).append((ts, dur))
            elif cat == "steal":
                args = ev.get("args")
                if not isinstance(args, dict) or args.get("outcome") not in OUTCOMES or not _int(
                        args.get("victim_thread")):
                    raise TraceError("%s: bad trace: steal event %d lacks victim_thread or a known outcome"
                                     % (self.path, i))
                vrank = args.get("victim_rank", pid)
                if not _int(vrank):
                    vrank = pid
                nodes = args.get("nodes", 0)
                victim = (vrank, args["victim_thread"])
                tracks.add(victim)
                steals.append((track, victim, float(ts), float(dur), args["outcome"],
                               int(nodes) if _number(nodes) else 0))
        if not tracks:
            raise TraceError("%s: not a uts trace: no thread tracks" % self.path)
        self.threads = sorted(tracks)
        self.index = {t: i for i, t in enumerate(self.threads)}
        self.names = names
        self.intervals = {}
        self.nested = 0  # seconds of other states inside a termination interval, counted as termination
        for track in self.threads:
            per = {}
            by_state = spans.get(track, {})
            # uts writes the termination interval when the last search ends, from that search's start: the probes,
            # back-offs and sleeps recorded meanwhile lie inside it. They count as termination, as in uts's own
            # breakdown (time_termination), so that the states partition the thread's time.
            term = min((a for a, _ in by_state.get("termination", [])), default=None)
            for state, lst in by_state.items():
                if term is not None and state != "termination":
                    kept = []
                    for a, d in lst:
                        if a + d > term:
                            self.nested += (a + d - max(a, term)) / 1e6
                            if a < term:
                                kept.append((a, term - a))
                        else:
                            kept.append((a, d))
                    lst = kept
                lst.sort()
                per[state] = (np.array([a for a, _ in lst], dtype=float), np.array([d for _, d in lst], dtype=float))
            self.intervals[track] = per
        self.steals = steals
        self.ranks = sorted({t[0] for t in self.threads})
        ends = [float((s + d).max()) for per in self.intervals.values() for s, d in per.values() if len(s)]
        starts = [float(s.min()) for per in self.intervals.values() for s, _ in per.values() if len(s)]
        ends += [s[2] + s[3] for s in steals]
        self.t_end = max(ends) if ends else 0.0
        self.t_start = min(starts + [0.0])

    # ------------------------------------------------------------ facts

    def multi_rank(self):
        return len(self.ranks) > 1 or (self.other.get("ranks") or 1) > 1

    def label(self, track):
        return ("r%d t%d" % track) if self.multi_rank() else ("t%d" % track[1])

    def dropped(self):
        d = self.other.get("dropped")
        if isinstance(d, list):
            return [int(x) if _number(x) else 0 for x in d]
        return [int(d)] if _number(d) else []

    def truncated(self):
        return any(x > 0 for x in self.dropped())

    def state_count(self, track):
        return sum(len(s) for s, _ in self.intervals[track].values())

    def domains(self):
        """otherData's optional "domains": thread -> domain, as a list
        indexed by the row (rank-major) or a map keyed by the row, by the
        thread, or by "R.T" / "R:T". {track: domain} or None."""
        d = self.other.get("domains")
        if d is None:
            return None
        out = {}
        for i, track in enumerate(self.threads):
            if isinstance(d, list):
                v = d[i] if i < len(d) else None
            elif isinstance(d, dict):
                v = None
                for key in ("%d.%d" % track, "%d:%d" % track, str(i), str(track[1]) if not self.multi_rank()
                            else None):
                    if key is not None and key in d:
                        v = d[key]
                        break
            else:
                return None
            if v is None:
                return None
            out[track] = v
        return out


# ---------------------------------------------------------------- text

def time_unit(span_us):
    """(divisor from µs, unit name) for a time axis spanning span_us."""
    if span_us >= 2e6:
        return 1e6, "s"
    if span_us >= 2e3:
        return 1e3, "ms"
    return 1.0, "µs"


def fmt_us(us):
    div, unit = time_unit(abs(us) * 2.0)
    return "%.3g %s" % (us / div, unit)


def run_line(trace):
    """The run/machine line of every caption, from otherData."""
    o = trace.other
    parts = []
    version = o.get("uts_version")
    commit = str(o.get("commit") or "unknown")
    parts.append("uts %s commit %s" % (version or "?", commit[:12]))
    if o.get("preset") or o.get("tree"):
        parts.append("tree %s" % (" ".join(str(x) for x in (o.get("preset"), o.get("tree")) if x)
                                  if o.get("preset") != o.get("tree") else o["tree"]))
    if _number(o.get("size")):
        parts.append("%d nodes" % o["size"])
    if _number(o.get("seconds")):
        parts.append("%.3g s" % o["seconds"])
    parts.append("protocol %s" % o.get("protocol"))
    for key in ("steal", "victim"):
        if o.get(key):
            parts.append("%s %s" % (key, o[key]))
    nthreads = len(trace.threads)
    if trace.multi_rank():
        parts.append("%d ranks x %d threads (%d tracks)" % (len(trace.ranks), nthreads // max(1, len(trace.ranks)),
                                                           nthreads))
    else:
        parts.append("%d threads" % nthreads)
    machine = o.get("machine") if isinstance(o.get("machine"), dict) else {}
    topo = machine.get("topology") if isinstance(machine.get("topology"), dict) else {}
    cores = o.get("cores") or topo.get("cores") or machine.get("cores")
    pus = o.get("pus") or o.get("pus_available") or topo.get("pus") or machine.get("pus")
    cpu = o.get("cpu_model") or machine.get("cpu_model")
    host = o.get("hostname") or machine.get("hostname")
    if cores:
        parts.append("%s cores%s%s" % (cores, ", %s PUs" % pus if pus else "",
                                        " (oversubscribed: more threads than PUs)"
                                        if pus and nthreads > int(pus) else ""))
    else:
        parts.append("core count not in the trace")
    if cpu:
        parts.append(str(cpu))
    if host:
        parts.append("host %s" % host)
    recorded = o.get("recorded")
    rec_total = sum(recorded) if isinstance(recorded, list) else recorded
    parts.append("buffer %s events per thread, %s recorded, %d dropped"
                 % (o.get("events_per_thread", "?"), rec_total if rec_total is not None else "?",
                    sum(trace.dropped())))
    if o.get("clock"):
        parts.append("clock %s" % o["clock"])
    return "Run: " + "; ".join(parts) + "."


def truncation_text(trace):
    """The caption's warning for a truncated trace (None if complete)."""
    if not trace.truncated():
        return None
    dropped = trace.dropped()
    which = [trace.label(trace.threads[i]) if i < len(trace.threads) else str(i)
             for i, x in enumerate(dropped) if x > 0]
    return ("TRUNCATED TRACE: the buffer kept the first %s events of each thread and dropped %d events "
            "(on %s): what is drawn covers only the recorded start of those threads' runs."
            % (trace.other.get("events_per_thread", "N"), sum(dropped), ", ".join(which)))


def nested_text(trace):
    """The caption's note on the intervals inside termination (None if none)."""
    if not trace.nested:
        return None
    return ("The state intervals recorded inside a thread's termination interval (the last search's probes and "
            "back-offs, %s in all) are counted and drawn as termination, as uts's own breakdown counts them."
            % fmt_us(trace.nested * 1e6))


def _caption(fig, trace, lines):
    trunc = truncation_text(trace)
    pc.caption(fig, ([trunc] if trunc else []) + lines + [run_line(trace)])


def _row_positions(trace):
    """y of each track (top to bottom), a gap between ranks."""
    ys, y, prev = {}, 0.0, None
    for track in trace.threads:
        if prev is not None and track[0] != prev:
            y += 0.6
        ys[track] = y
        y += 1.0
        prev = track[0]
    return ys


# ---------------------------------------------------------------- timeline

def _coverage(starts, durs, points):
    """Time in [t0, point] covered by the sorted, non-overlapping intervals
    (starts, durs), for each point: a vectorised cumulative sum."""
    if len(starts) == 0:
        return np.zeros(len(points))
    cum = np.concatenate(([0.0], np.cumsum(durs)))
    idx = np.searchsorted(starts, points, side="right") - 1
    inside = np.clip(points - starts[np.maximum(idx, 0)], 0.0, durs[np.maximum(idx, 0)])
    return np.where(idx >= 0, cum[np.maximum(idx, 0)] + inside, 0.0)


def _clip(starts, durs, lo, hi):
    ends = starts + durs
    keep = (ends > lo) & (starts < hi)
    s = np.maximum(starts[keep], lo)
    e = np.minimum(ends[keep], hi)
    return s, e - s


def _shares(per_state, lo, hi, bins):
    """The decimated track: [lo, hi] cut into `bins` equal bins; for each
    state present, the share of each bin it covers. (edges, {state: shares})."""
    edges = np.linspace(lo, hi, bins + 1)
    width = (hi - lo) / bins
    out = {}
    for state in STATES:
        if state in per_state:
            s, d = per_state[state]
            out[state] = np.diff(_coverage(s, d, edges)) / width
    return edges, out


def plot_timeline(trace, out, stem, window=None, max_intervals=2000):
    lo, hi = (trace.t_start, trace.t_end) if window is None else (window[0] * 1e6, window[1] * 1e6)
    if window is not None and lo >= trace.t_end:
        raise TraceError("%s: --window starts at %g s, after the run's last event (%g s)"
                         % (trace.path, window[0], trace.t_end / 1e6))
    hi = max(hi, lo + 1e-3)
    div, unit = time_unit(hi - lo)
    ys = _row_positions(trace)
    height = max(2.6, 0.32 * (max(ys.values()) + 1) + 1.6)
    fig, ax = plt.subplots(figsize=(11.0, height))
    shown = {}
    decimated = []
    total_in = 0
    many = sum(trace.state_count(t) for t in trace.threads) > 5000
    for track in trace.threads:
        per = {}
        for state, (s, d) in trace.intervals[track].items():
            cs, cd = _clip(s, d, lo, hi)
            if len(cs):
                per[state] = (cs, cd)
        count = sum(len(s) for s, _ in per.values())
        total_in += count
        if count > max_intervals:
            edges, shares = _shares(per, lo, hi, max_intervals)
            decimated.append(track)
            x = (edges - lo) / div
            base = np.full(len(edges), ys[track] + 0.4)
            for state in STATES:
                if state not in shares:
                    continue
                top = base - 0.8 * np.append(shares[state], shares[state][-1])
                ax.fill_between(x, base, top, step="post", color=STATE_COLORS[state], linewidth=0,
                                rasterized=many)
                base = top
                shown[state] = True
            continue
        for state, (s, d) in per.items():
            ax.broken_barh(list(zip((s - lo) / div, d / div)), (ys[track] - 0.4, 0.8),
                           facecolors=STATE_COLORS[state], linewidth=0, rasterized=many)
            shown[state] = True
    # Steal arrows: every successful steal, victim row -> thief row, at the claim's end.
    arrows = [(st[2] + st[3], ys[st[1]], ys[st[0]]) for st in trace.steals
              if st[4] == "success" and lo <= st[2] + st[3] <= hi]
    n_success = len(arrows)
    if len(arrows) > MAX_ARROWS:
        step = len(arrows) / float(MAX_ARROWS)
        arrows = [arrows[int(k * step)] for k in range(MAX_ARROWS)]
    if arrows:
        xs = np.array([(a[0] - lo) / div for a in arrows])
        y0 = np.array([a[1] for a in arrows])
        y1 = np.array([a[2] for a in arrows])
        ax.quiver(xs, y0, np.zeros(len(xs)), y1 - y0, angles="xy", scale_units="xy", scale=1, color="k",
                  width=0.0012 if len(arrows) <= 100 else 0.0008, headwidth=5, headlength=6, headaxislength=5,
                  alpha=0.75 if len(arrows) <= 100 else 0.5, zorder=3)
    marks = {}
    for track, ts, name in trace.globals:
        if lo <= ts <= hi:
            marks.setdefault(name, []).append(((ts - lo) / div, ys[track] - 0.4))
    for name, pts in marks.items():
        marker, color, _ = GLOBAL_MARKS[name]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=14, color=color, linewidths=0.8,
                   zorder=4, clip_on=False)
    ax.set_yticks([ys[t] for t in trace.threads])
    ax.set_yticklabels([trace.label(t) for t in trace.threads])
    ax.set_ylim(max(ys.values()) + 0.7, -0.7)
    ax.set_xlim(0, (hi - lo) / div)
    ax.set_xlabel(("time since the run's start (%s)" % unit) if lo == 0 else
                  "time since the window's start, %s into the run (%s)" % (fmt_us(lo), unit))
    ax.set_ylabel("rank, thread" if trace.multi_rank() else "thread")
    if trace.multi_rank():
        for r in trace.ranks[1:]:
            first = min(ys[t] for t in trace.threads if t[0] == r)
            ax.axhline(first - 0.8, color="0.5", linewidth=0.6)
    title = "Timeline: %s" % ("the whole run" if window is None else "window %g-%g s" % window)

    handles = [plt.Rectangle((0, 0), 1, 1, color=STATE_COLORS[s]) for s in STATES if s in shown]
    labels = [s for s in STATES if s in shown]
    if arrows:
        handles.append(plt.Line2D([], [], color="k", marker="^", markersize=5, linewidth=0.8))
        labels.append("steal: victim -> thief")
    for name in GLOBAL_MARKS:
        if name in marks:
            marker, color, text = GLOBAL_MARKS[name]
            handles.append(plt.Line2D([], [], color=color, marker=marker, markersize=4, linestyle="none"))
            labels.append(text)
    ncol = min(len(labels), 8)
    ax.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=ncol, frameon=False,
              fontsize=7.5, handlelength=1.5)
    ax.set_title("%s, %s" % (title, trace.other.get("protocol")), pad=8 + 13 * math.ceil(len(labels) / float(ncol)))
    fig.tight_layout()
    n_threads = len(trace.threads)
    lines = ["One run, no statistic: each bar is a state interval recorded on the thread's track "
             "(%d intervals in the %s over %d threads; %s)."
             % (total_in, "whole run" if window is None else "window", n_threads,
                "; ".join("%s = %s" % (s, STATE_MEANING[s]) for s in STATES if s in shown))]
    if nested_text(trace):
        lines.append(nested_text(trace))
    if decimated:
        bin_us = (hi - lo) / max_intervals
        lines.append("DECIMATED to at most %d intervals per thread: on %d of %d threads (those with more "
                     "intervals), the span is cut into %d bins of %s each, and within a bin the row is filled from "
                     "its bottom in proportion to the time each state took in the bin (stacked in the legend's "
                     "order)%s." % (max_intervals, len(decimated), n_threads, max_intervals, fmt_us(bin_us),
                                    "; the other rows show every interval" if len(decimated) < n_threads else ""))
    else:
        lines.append("Every recorded interval is drawn (none decimated; limit %d per thread). Blank: no state "
                     "recorded." % max_intervals)
    if n_success:
        lines.append("Arrows: %s successful steal%s, from the victim's row to the thief's, at the middle of the steal%s%s."
                     % ("all %d" % n_success if len(arrows) == n_success else "%d evenly chosen of the %d"
                        % (len(arrows), n_success), "" if n_success == 1 else "s",
                        "" if not trace.multi_rank() else "; an arrow between ranks is a steal across ranks",
                        "" if len(arrows) == n_success else " (draw a shorter --window to see every one)"))
    else:
        lines.append("No successful steal in the %s: no arrows." % ("run" if window is None else "window"))
    if marks:
        lines.append("Markers on a row's top edge: the MPI agent's global events (%s)."
                     % ", ".join("%d %s" % (len(marks[n]), GLOBAL_MARKS[n][2] + ("" if len(marks[n]) == 1 else "s"))
                                 for n in GLOBAL_MARKS if n in marks))
    elif trace.multi_rank():
        lines.append("No global request, answer or token recorded%s." % ("" if window is None else " in the window"))
    _caption(fig, trace, lines)
    return pc.save(fig, out, stem + "_timeline")


# ---------------------------------------------------------------- steal matrix

def _matrix(trace, group):
    """Successful steals and nodes moved, thief (row) x victim (column), over
    the groups of `group(track)`; returns (labels, steals, nodes)."""
    keys = []
    for t in trace.threads:
        g = group(t)
        if g not in keys:
            keys.append(g)
    pos = {k: i for i, k in enumerate(keys)}
    n = len(keys)
    steals = np.zeros((n, n), dtype=int)
    nodes = np.zeros((n, n), dtype=np.int64)
    for thief, victim, _ts, _dur, outcome, moved in trace.steals:
        if outcome == "success":
            i, j = pos[group(thief)], pos[group(victim)]
            steals[i, j] += 1
            nodes[i, j] += moved
    return keys, steals, nodes


def _heat(ax, fig, labels, m, title, what, axis_name):
    im = ax.imshow(m, cmap="viridis", interpolation="nearest", aspect="equal", vmin=0, vmax=max(1, int(m.max())))
    n = len(labels)
    ticks = range(n)
    step = max(1, int(math.ceil(n / 24.0)))
    ax.set_xticks([t for t in ticks if t % step == 0])
    ax.set_yticks([t for t in ticks if t % step == 0])
    ax.set_xticklabels([labels[t] for t in ticks if t % step == 0], rotation=90 if n > 8 else 0, fontsize=7)
    ax.set_yticklabels([labels[t] for t in ticks if t % step == 0], fontsize=7)
    ax.set_xlabel("victim %s" % axis_name)
    ax.set_ylabel("thief %s" % axis_name)
    ax.set_title(title)
    if n <= 12:
        top = m.max() or 1
        for i in range(n):
            for j in range(n):
                ax.text(j, i, "%d" % m[i, j], ha="center", va="center", fontsize=6.5 if n > 6 else 7.5,
                        color="white" if m[i, j] < 0.6 * top else "black")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label(what)


def plot_steal_matrix(trace, out, stem):
    levels = [("thread", lambda t: t, lambda k: trace.label(k))]
    if trace.multi_rank():
        levels.append(("rank", lambda t: t[0], lambda k: "r%d" % k))
    domains = trace.domains()
    if domains is not None:
        levels.append(("domain", lambda t: domains[t], lambda k: "d%s" % k))
    elif trace.other.get("domains") is not None:
        print("plot-trace: %s: otherData.domains does not name every thread's domain; no domain matrix"
              % trace.path, file=sys.stderr)
    fig, axes = plt.subplots(len(levels), 2, figsize=(11.0, 4.3 * len(levels)), squeeze=False)
    total = 0
    for row, (name, group, fmt) in enumerate(levels):
        keys, steals, nodes = _matrix(trace, group)
        labels = [fmt(k) for k in keys]
        total = int(steals.sum())
        _heat(axes[row][0], fig, labels, steals, "Successful steals by %s" % name, "successful steals", name)
        _heat(axes[row][1], fig, labels, nodes, "Nodes moved by %s" % name, "nodes moved", name)
        if name == "thread" and trace.multi_rank():
            cuts = [i - 0.5 for i in range(1, len(keys)) if keys[i][0] != keys[i - 1][0]]
            for ax in axes[row]:
                for c in cuts:
                    ax.axhline(c, color="white", linewidth=1.5)
                    ax.axvline(c, color="white", linewidth=1.5)
    fig.tight_layout(w_pad=3.0)
    counter = trace.other.get("steals")
    lines = ["One run, no statistic: n = %d successful steal events recorded (the run's counter: %s steals, %s nodes "
             "stolen); each cell counts the steals (left) and sums the nodes they moved (right) from the victim "
             "(column) to the thief (row)." % (total, counter if counter is not None else "?",
                                                trace.other.get("nodes_stolen", "?"))]
    if trace.multi_rank():
        lines.append("White lines in the thread matrices separate ranks. By rank: the diagonal holds steals between "
                     "threads of one rank; off the diagonal, steals across ranks.")
    if domains is not None:
        lines.append("By domain: domains as the trace's otherData.domains assigns threads to them.")
    _caption(fig, trace, lines)
    return pc.save(fig, out, stem + "_steal_matrix")


# ---------------------------------------------------------------- distributions

def plot_steal_distributions(trace, out, stem):
    if not trace.steals:
        print("plot-trace: %s: no steal attempts recorded; no steal distribution figure" % trace.path,
              file=sys.stderr)
        return []
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.9))
    ax = axes[0]
    durs = {o: np.array([s[3] for s in trace.steals if s[4] == o]) for o in OUTCOMES}
    positive = np.concatenate([d[d > 0] for d in durs.values()]) if any(len(d) for d in durs.values()) else []
    lo = float(positive.min()) if len(positive) else 1e-3
    hi = float(positive.max()) if len(positive) else 1.0
    hi = max(hi, lo * 10)
    edges = np.logspace(math.log10(lo) - 0.05, math.log10(hi) + 0.05, 41)
    styles = {"success": ("tab:green", "-"), "empty": ("tab:gray", "--"), "contended": ("tab:red", ":")}
    below = 0
    for o in OUTCOMES:
        d = durs[o]
        if not len(d):
            continue
        below += int((d <= 0).sum())
        clipped = np.clip(d, edges[0] * 1.0001, None)
        weights = np.full(len(d), 100.0 / len(d))
        color, ls = styles[o]
        med = float(np.median(d))
        ax.hist(clipped, bins=edges, weights=weights, histtype="step", color=color, linestyle=ls, linewidth=1.5,
                label="%s: n = %d, median %s" % ("successful" if o == "success" else "failed, " + o, len(d),
                                                  fmt_us(med)))
        if med > 0:
            ax.axvline(med, color=color, linestyle=ls, linewidth=0.8)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: "%g" % v))
    ax.set_xlabel("steal attempt duration (µs, log scale)")
    ax.set_ylabel("share of that outcome's attempts (%)")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.3)
    ax.set_title("Steal latency")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right")

    ax = axes[1]
    nodes = np.array([s[5] for s in trace.steals if s[4] == "success"])
    if len(nodes):
        top = int(nodes.max())
        if top > 64:
            edges = np.unique(np.round(np.logspace(0, math.log10(top + 1), 40)).astype(int))
            edges = np.concatenate((edges, [edges[-1] + 1])) - 0.5
            ax.set_xscale("log")
            ax.set_xlabel("nodes moved by a successful steal (log scale)")
        else:
            edges = np.arange(0.5, top + 1.5)
            ax.set_xlabel("nodes moved by a successful steal")
        ax.hist(np.maximum(nodes, 1), bins=edges, color="tab:green", alpha=0.8,
                label="n = %d steals, median %g nodes" % (len(nodes), float(np.median(nodes))))
        ax.axvline(float(np.median(nodes)), color="k", linestyle="--", linewidth=0.9, label="median")
        ax.legend(loc="upper right")
    else:
        ax.text(0.5, 0.5, "no successful steal recorded", ha="center", va="center", transform=ax.transAxes)
        ax.set_xlabel("nodes moved by a successful steal")
    ax.set_ylabel("successful steals")
    ax.set_title("Nodes per successful steal")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    n_all = sum(len(d) for d in durs.values())
    lines = ["One run, no statistic over runs: n = %d steal attempts recorded (%s). Left: histogram of each "
             "attempt's duration (its steal event's dur), each outcome normalised to 100%%, 40 log-spaced bins; "
             "vertical lines: medians.%s Right: histogram of the nodes each successful steal moved; dashed: median."
             % (n_all, ", ".join("%d %s" % (len(durs[o]), o) for o in OUTCOMES),
                (" %d attempts of duration 0 (below the clock's resolution) are counted in the leftmost bin."
                 % below) if below else "")]
    _caption(fig, trace, lines)
    return pc.save(fig, out, stem + "_steal_distributions")


# ---------------------------------------------------------------- breakdown

def breakdown(trace):
    """{track: {state: seconds}}: the sum of each state's interval durations."""
    return {t: {s: float(d.sum()) / 1e6 for s, (_, d) in trace.intervals[t].items()} for t in trace.threads}


def plot_breakdown(trace, out, stem):
    b = breakdown(trace)
    present = [s for s in STATES if any(b[t].get(s) for t in trace.threads)]
    if not present:
        print("plot-trace: %s: no state intervals recorded; no breakdown figure" % trace.path, file=sys.stderr)
        return []
    n = len(trace.threads)
    span_us = trace.t_end - trace.t_start
    other = [s for s in present if s != "work"]
    width = max(4.2, min(7.0, 1.8 + 0.35 * n))
    fig, axes = plt.subplots(1, 2 if other else 1, figsize=(width * (2 if other else 1) + 1.6, 4.0), squeeze=False)
    xs = np.arange(n)
    panels = [(axes[0][0], present, "All states")]
    if other:
        panels.append((axes[0][1], other, "Outside work (zoomed)"))
    for ax, states, title in panels:
        total = max(sum(b[t].get(s, 0.0) for s in states) for t in trace.threads) * 1e6
        div, unit = time_unit(max(total, 1e-3) if states is other else max(total, span_us))
        bottom = np.zeros(n)
        for s in states:
            v = np.array([b[t].get(s, 0.0) * 1e6 / div for t in trace.threads])
            ax.bar(xs, v, bottom=bottom, color=STATE_COLORS[s], width=0.75, label=s, linewidth=0)
            bottom += v
        top = float(bottom.max())
        if states is present:
            ax.axhline(span_us / div, color="k", linestyle="--", linewidth=0.9,
                       label="the trace's span (%s)" % fmt_us(span_us))
            top = max(top, span_us / div)
        ax.set_xticks(xs)
        ax.set_xticklabels([trace.label(t) for t in trace.threads], rotation=90 if n > 12 else 0, fontsize=7.5)
        ax.set_xlabel("rank, thread" if trace.multi_rank() else "thread")
        ax.set_ylabel("time in the state%s (%s)" % ("s" if states is present else "s other than work", unit))
        ax.set_ylim(0, (top or 1.0) * 1.12)
        ax.set_title("%s, %s" % (title, trace.other.get("protocol")))
        ax.grid(alpha=0.3, axis="y")
    handles, labels = panels[0][0].get_legend_handles_labels()
    panels[-1][0].legend(handles[::-1], labels[::-1], loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    counts = [trace.state_count(t) for t in trace.threads]
    shares = [100.0 * b[t].get("work", 0.0) / sum(b[t].values()) for t in trace.threads if sum(b[t].values())]
    lines = ["One run, no statistic: each bar stacks the summed durations of the state intervals recorded on the "
             "thread (n = %s intervals per thread)%s; the dashed line is the span from the first to the last event "
             "recorded. Work is %.1f-%.1f%% of a thread's recorded time." % (
                 ("%d" % counts[0]) if min(counts) == max(counts) else "%d-%d" % (min(counts), max(counts)),
                 "; the right panel draws the same bars without work, on its own scale" if other else "",
                 min(shares) if shares else 0.0, max(shares) if shares else 0.0)]
    if nested_text(trace):
        lines.append(nested_text(trace))
    _caption(fig, trace, lines)
    return pc.save(fig, out, stem + "_breakdown")


def plot_all(trace, out, stem, window=None, max_intervals=2000):
    files = plot_timeline(trace, out, stem, window, max_intervals)
    files += plot_steal_matrix(trace, out, stem)
    files += plot_steal_distributions(trace, out, stem)
    files += plot_breakdown(trace, out, stem)
    return files
