"""Figures of the pool study (scripts/study pool), drawn from its
summary.csv, machine.json and trace-*.csv alone. Every point is the median
over the configuration's trials, its bar the 95% bootstrap percentile CI of
that median (docs/studies.md, "Figures")."""
import csv
import glob
import math
import os
import re

from utstools import plot_common as pc
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

PLOTS = ("pool_mix_time", "pool_producers_time", "pool_trace", "pool_elements_per_steal",
         "pool_segments_per_steal", "pool_remote_delay")
SEARCH_ORDER = ("linear", "random", "tree")
SEARCH_COLOR = {"linear": "tab:blue", "random": "tab:orange", "tree": "tab:green"}
ARRANGEMENT_STYLE = {"contiguous": ("-", "o"), "spread": ("--", "s")}


def _read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _num(value):
    return float(value) if value not in ("", None) else None


def _int(value):
    return int(value) if value not in ("", None) else None


def _searches(rows):
    present = {r["victim"] for r in rows}
    return [s for s in SEARCH_ORDER if s in present] + sorted(present - set(SEARCH_ORDER))


def _series(ax, pts, name, label, color=None, style=("-", "o"), log=False):
    """pts: [(x, summary row)]: median of measure `name` with its CI as the
    bar, skipping points where it is undefined (no trial counted)."""
    xs, ys, lo, hi = [], [], [], []
    for x, r in sorted(pts, key=lambda p: p[0]):
        med = _num(r.get(name + "_median"))
        if med is None or (log and med <= 0):
            continue
        low, high = _num(r.get(name + "_ci_low")), _num(r.get(name + "_ci_high"))
        xs.append(x)
        ys.append(med)
        lo.append(med - low if low is not None else 0.0)
        hi.append(high - med if high is not None else 0.0)
    if not xs:
        return False
    ax.errorbar(xs, ys, yerr=[lo, hi], label=label, color=color, linestyle=style[0], marker=style[1],
                markersize=4, capsize=2, linewidth=1.2, elinewidth=0.7, alpha=0.9)
    return True


def _finish(ax, xlabel, ylabel, title, log=False, drawn=True):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log and drawn:
        ax.set_yscale("log")
        lo, hi = ax.get_ylim()
        # Labelled ticks at 1, 2 and 5 of every decade (1 and 3 when the range spans many decades).
        decades = range(int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi))) + 1)
        mant = (1, 2, 5) if hi / lo < 1e4 else (1,)
        ticks = [m * 10.0 ** k for k in decades for m in mant if lo <= m * 10.0 ** k <= hi]
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: "%g" % v))
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", alpha=0.3)
    if drawn and ax.get_legend_handles_labels()[0]:
        ax.legend()
    if not drawn:
        ax.text(0.5, 0.5, "no trial measured this", ha="center", va="center", transform=ax.transAxes, color="0.5")


def _random0(summary):
    return [r for r in summary if r["model"] == "random" and _int(r["remote_delay_ns"]) == 0]


def _pc0(summary):
    return [r for r in summary if r["model"] == "producer-consumer" and _int(r["remote_delay_ns"]) == 0]


def _caption(meta, rows, measures, extra=None):
    ns = [r.get(m + "_n") for r in rows for m in measures]
    lines = ["Points: median over the trials of each configuration, %s (%s, %d trials per run; trials that did "
             "not %s are left out of that measure). Error bars: 95%% bootstrap percentile CI of the median."
             % (pc.n_text(ns), pc.warmup_text(meta["machine"]), meta["trials"], meta["counted"](measures))]
    if extra:
        lines.append(extra)
    lines.append(meta["threads_line"](rows))
    lines.append(pc.machine_line(meta["machine"], None, {r.get("bind") for r in rows}))
    return lines


def _counted(measures):
    kinds = []
    for m in measures:
        if m == "add_us":
            kinds.append("add")
        elif m == "remove_us":
            kinds.append("remove")
        elif m in ("segments_per_steal", "elements_per_steal"):
            kinds.append("steal")
    return " or ".join(sorted(set(kinds))) or "run"


def plot_mix_time(summary, out_dir, meta):
    rows = _random0(summary)
    fig, axes = pc.panels(2, width=4.8, height=3.8)
    for ax, (name, what) in zip(axes[0], (("add_us", "add"), ("remove_us", "remove"))):
        drawn = False
        for s in _searches(rows):
            pts = [(_int(r["mix"]), r) for r in rows if r["victim"] == s]
            drawn |= _series(ax, pts, name, s + " search", SEARCH_COLOR.get(s), log=True)
        ax.set_xticks(sorted({_int(r["mix"]) for r in rows}) or [0, 100])
        _finish(ax, "job mix: adds (% of operations)", "mean %s time per trial (µs, log scale)" % what,
                "Random model: %s time" % what, log=True, drawn=drawn)
    fig.suptitle("Operation time against the job mix (%s)" % meta["params"], fontsize=10)
    fig.tight_layout()
    pc.caption(fig, _caption(meta, rows, ["add_us", "remove_us"]))
    return pc.save(fig, out_dir, "pool_mix_time")


def plot_producers_time(summary, out_dir, meta):
    rows = _pc0(summary)
    searches = _searches(rows) or list(SEARCH_ORDER)
    fig, axes = pc.panels(len(searches), rows=2, width=4.6, height=3.4)
    for col, s in enumerate(searches):
        for row, (name, what) in enumerate((("add_us", "add"), ("remove_us", "remove"))):
            ax = axes[row][col]
            drawn = False
            for a, style in ARRANGEMENT_STYLE.items():
                pts = [(_int(r["producers"]), r) for r in rows if r["victim"] == s and r["arrangement"] == a]
                drawn |= _series(ax, pts, name, a, SEARCH_COLOR.get(s) if a == "contiguous" else "tab:red",
                                 style, log=True)
            ax.set_xticks(sorted({_int(r["producers"]) for r in rows}) or [1])
            _finish(ax, "producers", "mean %s time per trial (µs, log scale)" % what, "%s search: %s" % (s, what),
                    log=True, drawn=drawn)
    fig.suptitle("Producer/consumer model: operation time against producers, contiguous vs spread (%s)"
                 % meta["params"], fontsize=10)
    fig.tight_layout()
    pc.caption(fig, _caption(meta, rows, ["add_us", "remove_us"]))
    return pc.save(fig, out_dir, "pool_producers_time")


def producer_map(threads, producers, arrangement):
    """As uts: contiguous threads 0..K-1, or spread evenly around the ring."""
    if arrangement == "contiguous":
        return set(range(producers))
    return {i * threads // producers for i in range(producers)}


def plot_trace(out_dir, meta):
    found = {}
    for path in glob.glob(os.path.join(out_dir, "trace-*-*-*.csv")):
        m = re.match(r"trace-(\w+)-(contiguous|spread)-(\d+)\.csv$", os.path.basename(path))
        if m:
            found[(m.group(1), m.group(2))] = (int(m.group(3)), path)
    if not found:
        return []
    searches = [s for s in SEARCH_ORDER if any(k[0] == s for k in found)]
    fig, axes = pc.panels(2, rows=len(searches), width=6.0, height=3.4)
    threads = meta.get("threads")
    for row, s in enumerate(searches):
        for col, a in enumerate(("contiguous", "spread")):
            ax = axes[row][col]
            if (s, a) not in found:
                _finish(ax, "time (ms)", "items in segment", "%s search, %s producers" % (s, a), drawn=False)
                continue
            k, path = found[(s, a)]
            samples = {}
            for r in _read_csv(path):
                if r["trial"] == "0":
                    samples.setdefault(int(r["thread"]), []).append((float(r["seconds"]) * 1e3, int(r["size"])))
            # Each thread's last sample is taken after the trial, once it has
            # drained its segment: not part of the run.
            for t in samples:
                samples[t] = sorted(samples[t])[:-1] if len(samples[t]) > 1 else samples[t]
            p = threads or (max(samples) + 1 if samples else 0)
            producers = producer_map(p, k, a)
            grey_labelled = False
            for t in sorted(samples, key=lambda t: (t not in producers, t)):
                xs = [x for x, _ in samples[t]]
                ys = [y for _, y in samples[t]]
                if t in producers:
                    ax.step(xs, ys, where="post", linewidth=1.4, label="segment %d (producer)" % t)
                else:
                    ax.step(xs, ys, where="post", linewidth=0.8, color="0.55", alpha=0.8,
                            label=None if grey_labelled else "consumer segments")
                    grey_labelled = True
            _finish(ax, "time since the trial started (ms)", "items in segment",
                    "%s search, %d %s producers (trial 0)" % (s, k, a), drawn=bool(samples))
    fig.suptitle("Segment sizes over time, one line per segment (%s)" % meta["params"], fontsize=10)
    fig.tight_layout()
    pc.caption(fig, ["One trial (trial 0 of the first measured run of each configuration), every sample uts "
                     "--trace took: no statistic, no error bars.", meta["threads_line"]([]),
                     pc.machine_line(meta["machine"])])
    return pc.save(fig, out_dir, "pool_trace")


def plot_elements_per_steal(summary, out_dir, meta):
    rows = _pc0(summary)
    searches = _searches(rows) or list(SEARCH_ORDER)
    fig, axes = pc.panels(len(searches), width=4.6, height=3.6)
    for ax, s in zip(axes[0], searches):
        drawn = False
        for a, style in ARRANGEMENT_STYLE.items():
            pts = [(_int(r["producers"]), r) for r in rows if r["victim"] == s and r["arrangement"] == a]
            drawn |= _series(ax, pts, "elements_per_steal", a,
                             SEARCH_COLOR.get(s) if a == "contiguous" else "tab:red", style, log=True)
        ax.set_xticks(sorted({_int(r["producers"]) for r in rows}) or [1])
        _finish(ax, "producers", "items per steal (log scale)", "%s search" % s, log=True, drawn=drawn)
    fig.suptitle("Producer/consumer model: items taken per steal (%s)" % meta["params"], fontsize=10)
    fig.tight_layout()
    pc.caption(fig, _caption(meta, rows, ["elements_per_steal"]))
    return pc.save(fig, out_dir, "pool_elements_per_steal")


def plot_segments_per_steal(summary, out_dir, meta):
    fig, axes = pc.panels(2, width=5.6, height=3.8)
    rows = _random0(summary)
    ax = axes[0][0]
    drawn = False
    for s in _searches(rows):
        pts = [(_int(r["mix"]), r) for r in rows if r["victim"] == s]
        drawn |= _series(ax, pts, "segments_per_steal", s + " search", SEARCH_COLOR.get(s), log=True)
    ax.set_xticks(sorted({_int(r["mix"]) for r in rows}) or [0, 100])
    _finish(ax, "job mix: adds (% of operations)", "segments examined per steal (log scale)", "Random model",
            log=True, drawn=drawn)
    rows2 = _pc0(summary)
    ax = axes[0][1]
    drawn = False
    for s in _searches(rows2):
        for a, style in ARRANGEMENT_STYLE.items():
            pts = [(_int(r["producers"]), r) for r in rows2 if r["victim"] == s and r["arrangement"] == a]
            drawn |= _series(ax, pts, "segments_per_steal", "%s, %s" % (s, a), SEARCH_COLOR.get(s), style, log=True)
    ax.set_xticks(sorted({_int(r["producers"]) for r in rows2}) or [1])
    _finish(ax, "producers", "segments examined per steal (log scale)", "Producer/consumer model", log=True,
            drawn=drawn)
    fig.suptitle("Segments examined per successful steal, by search (%s)" % meta["params"], fontsize=10)
    fig.tight_layout()
    pc.caption(fig, _caption(meta, rows + rows2, ["segments_per_steal"]))
    return pc.save(fig, out_dir, "pool_segments_per_steal")


def _delay_rows(summary, definition):
    model = (definition or {}).get("delay_model")
    if not model:
        return []
    return [r for r in summary if r["model"] == model["model"]
            and _int(r["mix"]) == model.get("mix") and _int(r["producers"]) == model.get("producers")
            and (r["arrangement"] or None) == model.get("arrangement")]


def _delay_text(ns):
    return "0" if ns == 0 else ("%g µs" % (ns / 1000.0) if ns >= 1000 else "%d ns" % ns)


def plot_remote_delay(summary, out_dir, meta):
    rows = _delay_rows(summary, meta["definition"])
    delays = sorted({_int(r["remote_delay_ns"]) for r in rows})
    if len(delays) < 2:
        return []
    pos = {d: i for i, d in enumerate(delays)}
    fig, axes = pc.panels(3, width=4.6, height=3.8)
    for ax, (name, ylabel) in zip(axes[0], (("remove_us", "mean remove time per trial (µs, log scale)"),
                                            ("add_us", "mean add time per trial (µs, log scale)"),
                                            ("segments_per_steal", "segments examined per steal (log scale)"))):
        drawn = False
        for s in _searches(rows):
            pts = [(pos[_int(r["remote_delay_ns"])], r) for r in rows if r["victim"] == s]
            drawn |= _series(ax, pts, name, s + " search", SEARCH_COLOR.get(s), log=True)
        ax.set_xticks(range(len(delays)))
        ax.set_xticklabels([_delay_text(d) for d in delays])
        _finish(ax, "remote delay per probe and claim (evenly spaced)", ylabel, ylabel.split(" (")[0].capitalize(),
                log=True, drawn=drawn)
    model = meta["definition"].get("delay_model") or {}
    what = ("random model, %d%% adds" % model["mix"] if model.get("model") == "random" else
            "%d %s producers" % (model["producers"], model["arrangement"]) if model else "")
    fig.suptitle("Remote-delay sweep (%s; %s)" % (what, meta["params"]), fontsize=10)
    fig.tight_layout()
    pc.caption(fig, _caption(meta, rows, ["remove_us", "add_us", "segments_per_steal"]))
    return pc.save(fig, out_dir, "pool_remote_delay")


def _meta(machine, summary):
    d = machine.get("definition") or {}
    meta = {"machine": machine, "definition": d, "threads": d.get("threads"), "trials": d.get("trials") or 0,
            "counted": _counted}
    meta["params"] = "%s threads, %s ops, %s items, %s trials per run, steal %s" % (
        d.get("threads"), d.get("ops"), d.get("fill"), d.get("trials"), d.get("steal"))

    def threads_line(rows):
        rows = rows or summary
        over = {r.get("oversubscribed") for r in rows}
        used = [int(r["pus_used"]) for r in rows if r.get("pus_used")]
        text = "%s threads per run" % d.get("threads")
        if used:
            text += " on %d PUs" % max(used)
        if "true" in over:
            text += ": oversubscribed (more threads than PUs available; a waiting thread yields)"
        return text + "."
    meta["threads_line"] = threads_line
    return meta


def plot_all(out_dir, machine):
    """Every pool figure the data supports; returns the files written."""
    summary = _read_csv(os.path.join(out_dir, "summary.csv"))
    meta = _meta(machine, summary)
    files = []
    files += plot_mix_time(summary, out_dir, meta)
    files += plot_producers_time(summary, out_dir, meta)
    files += plot_trace(out_dir, meta)
    files += plot_elements_per_steal(summary, out_dir, meta)
    files += plot_segments_per_steal(summary, out_dir, meta)
    files += plot_remote_delay(summary, out_dir, meta)
    return files
