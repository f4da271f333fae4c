"""Plots of the concurrent-pool study (scripts/pool-study), drawn from its
summary.csv, machine.json and trace-*.csv alone. Every point is the mean over
the configuration's trials, its bar the min..max over them.
Needs matplotlib (Debian: python3-matplotlib)."""
import csv
import glob
import json
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FormatStrFormatter, FuncFormatter  # noqa: E402
import plot_common  # noqa: E402

FORMATS = plot_common.FORMATS
PLOTS = ("pool_mix_time", "pool_producers_time", "pool_trace", "pool_elements_per_steal",
         "pool_segments_per_steal", "pool_remote_delay")
SEARCH_ORDER = ("linear", "random", "tree")
SEARCH_COLOR = {"linear": "tab:blue", "random": "tab:orange", "tree": "tab:green"}
ARRANGEMENT_STYLE = {"contiguous": ("-", "o"), "spread": ("--", "s")}


_save = plot_common.save


def _read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def _num(value):
    return float(value) if value not in ("", None) else None


def _int(value):
    return int(value) if value not in ("", None) else None


def _searches(rows):
    present = {r["victim"] for r in rows}
    return [s for s in SEARCH_ORDER if s in present] + sorted(present - set(SEARCH_ORDER))


def _panels(rows, cols, width=4.8, height=3.8):
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False,
                             constrained_layout=True)
    return fig, axes


def _caption(fig, meta):
    plot_common.caption(fig, meta, below=-0.02)


def _series(ax, pts, name, label, color=None, style=("-", "o"), log=False):
    """pts: [(x, summary row)]; plots mean with min..max bars of measure
    `name`, skipping points where it is undefined (blank)."""
    xs, ys, lo, hi = [], [], [], []
    for x, r in sorted(pts, key=lambda p: p[0]):
        mean = _num(r["mean_" + name])
        if mean is None or (log and mean <= 0):
            continue
        xs.append(x)
        ys.append(mean)
        lo.append(mean - _num(r["min_" + name]))
        hi.append(_num(r["max_" + name]) - mean)
    if not xs:
        return False
    ax.errorbar(xs, ys, yerr=[lo, hi], label=label, color=color, linestyle=style[0], marker=style[1],
                markersize=4, capsize=2, linewidth=1.2, elinewidth=0.7, alpha=0.9)
    return True


def _finish(ax, xlabel, ylabel, title, log=False, drawn=True):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if log and drawn:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        # Label minor ticks 2, 3 and 5 too when the axis spans under two decades.
        lo, hi = ax.get_ylim()
        few = lo > 0 and hi / lo < 100

        def minor(y, _pos):
            mantissa = round(y / 10 ** math.floor(math.log10(y) + 1e-9), 6)
            return "%g" % y if few and mantissa in (2, 3, 5) else ""

        ax.yaxis.set_minor_formatter(FuncFormatter(minor))
    ax.grid(True, which="major", alpha=0.3)
    if drawn and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    if not drawn:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.5")


def _random0(summary):
    return [r for r in summary if r["model"] == "random" and _int(r["remote_delay_ns"]) == 0]


def _pc0(summary):
    return [r for r in summary if r["model"] == "producer-consumer" and _int(r["remote_delay_ns"]) == 0]


def plot_mix_time(summary, out_dir, meta):
    rows = _random0(summary)
    fig, axes = _panels(1, 2)
    for ax, (name, what) in zip(axes[0], (("add_us", "add"), ("remove_us", "remove"))):
        drawn = False
        for s in _searches(rows):
            pts = [(_int(r["mix"]), r) for r in rows if r["victim"] == s]
            drawn |= _series(ax, pts, name, s + " search", SEARCH_COLOR.get(s), log=True)
        ax.set_xticks(sorted({_int(r["mix"]) for r in rows}) or [0, 100])
        _finish(ax, "job mix: adds (% of operations)", "mean %s time (us)" % what,
                "Random model: mean %s time" % what, log=True, drawn=drawn)
    fig.suptitle("Mean operation time against the job mix (%s)" % meta["params"], fontsize=11)
    _caption(fig, meta)
    return _save(fig, out_dir, "pool_mix_time")


def plot_producers_time(summary, out_dir, meta):
    rows = _pc0(summary)
    searches = _searches(rows) or list(SEARCH_ORDER)
    fig, axes = _panels(2, len(searches))
    for col, s in enumerate(searches):
        for row, (name, what) in enumerate((("add_us", "add"), ("remove_us", "remove"))):
            ax = axes[row][col]
            drawn = False
            for a, style in ARRANGEMENT_STYLE.items():
                pts = [(_int(r["producers"]), r) for r in rows if r["victim"] == s and r["arrangement"] == a]
                drawn |= _series(ax, pts, name, a, SEARCH_COLOR.get(s) if a == "contiguous" else "tab:red",
                                 style, log=True)
            ax.set_xticks(sorted({_int(r["producers"]) for r in rows}) or [1])
            _finish(ax, "producers", "mean %s time (us)" % what, "%s search: %s" % (s, what), log=True,
                    drawn=drawn)
    fig.suptitle("Producer/consumer model: mean operation time against producers, contiguous vs spread (%s)"
                 % meta["params"], fontsize=11)
    _caption(fig, meta)
    return _save(fig, out_dir, "pool_producers_time")


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
    searches = [s for s in SEARCH_ORDER if any(k[0] == s for k in found)] or ["linear", "tree"]
    fig, axes = _panels(len(searches), 2, width=6.0, height=3.6)
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
            for t in sorted(samples, key=lambda t: (t not in producers, t)):  # producers first in the legend
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
    fig.suptitle("Segment sizes over time, one line per segment (%s)" % meta["params"], fontsize=11)
    _caption(fig, meta)
    return _save(fig, out_dir, "pool_trace")


def plot_elements_per_steal(summary, out_dir, meta):
    rows = _pc0(summary)
    searches = _searches(rows) or list(SEARCH_ORDER)
    fig, axes = _panels(1, len(searches))
    for ax, s in zip(axes[0], searches):
        drawn = False
        for a, style in ARRANGEMENT_STYLE.items():
            pts = [(_int(r["producers"]), r) for r in rows if r["victim"] == s and r["arrangement"] == a]
            drawn |= _series(ax, pts, "elements_per_steal", a,
                             SEARCH_COLOR.get(s) if a == "contiguous" else "tab:red", style, log=True)
        ax.set_xticks(sorted({_int(r["producers"]) for r in rows}) or [1])
        _finish(ax, "producers", "items per steal", "%s search" % s, log=True, drawn=drawn)
    fig.suptitle("Producer/consumer model: items taken per steal (trials that stole; %s)" % meta["params"],
                 fontsize=11)
    _caption(fig, meta)
    return _save(fig, out_dir, "pool_elements_per_steal")


def plot_segments_per_steal(summary, out_dir, meta):
    fig, axes = _panels(1, 2, width=5.6)
    rows = _random0(summary)
    ax = axes[0][0]
    drawn = False
    for s in _searches(rows):
        pts = [(_int(r["mix"]), r) for r in rows if r["victim"] == s]
        drawn |= _series(ax, pts, "segments_per_steal", s + " search", SEARCH_COLOR.get(s), log=True)
    ax.set_xticks(sorted({_int(r["mix"]) for r in rows}) or [0, 100])
    _finish(ax, "job mix: adds (% of operations)", "segments examined per steal", "Random model", log=True,
            drawn=drawn)
    rows = _pc0(summary)
    ax = axes[0][1]
    drawn = False
    for s in _searches(rows):
        for a, style in ARRANGEMENT_STYLE.items():
            pts = [(_int(r["producers"]), r) for r in rows if r["victim"] == s and r["arrangement"] == a]
            drawn |= _series(ax, pts, "segments_per_steal", "%s, %s" % (s, a), SEARCH_COLOR.get(s), style, log=True)
    ax.set_xticks(sorted({_int(r["producers"]) for r in rows}) or [1])
    _finish(ax, "producers", "segments examined per steal", "Producer/consumer model", log=True, drawn=drawn)
    fig.suptitle("Segments examined per successful steal, by search (trials that stole; %s)" % meta["params"],
                 fontsize=11)
    _caption(fig, meta)
    return _save(fig, out_dir, "pool_segments_per_steal")


def _delay_rows(summary, study):
    model = (study or {}).get("delay_model")
    if model:
        return [r for r in summary if r["model"] == model["model"]
                and _int(r["mix"]) == model.get("mix") and _int(r["producers"]) == model.get("producers")
                and (r["arrangement"] or None) == model.get("arrangement")]
    # No study facts: the configuration run at more than one delay.
    by = {}
    for r in summary:
        by.setdefault((r["model"], r["mix"], r["producers"], r["arrangement"]), []).append(r)
    swept = [rs for rs in by.values() if len({r["remote_delay_ns"] for r in rs}) > 1]
    return swept[0] if swept else []


def plot_remote_delay(summary, out_dir, meta):
    rows = _delay_rows(summary, meta.get("study"))
    delays = sorted({_int(r["remote_delay_ns"]) for r in rows})
    pos = {d: i for i, d in enumerate(delays)}
    fig, axes = _panels(1, 3)
    for ax, (name, ylabel, log) in zip(axes[0], (("remove_us", "mean remove time (us)", True),
                                                 ("add_us", "mean add time (us)", True),
                                                 ("segments_per_steal", "segments examined per steal", True))):
        drawn = False
        for s in _searches(rows):
            pts = [(pos[_int(r["remote_delay_ns"])], r) for r in rows if r["victim"] == s]
            drawn |= _series(ax, pts, name, s + " search", SEARCH_COLOR.get(s), log=log)
        ax.set_xticks(range(len(delays)))
        ax.set_xticklabels([str(d) for d in delays])
        _finish(ax, "remote delay per probe and claim (ns)", ylabel, ylabel[0].upper() + ylabel[1:], log=log,
                drawn=drawn)
    model = (meta.get("study") or {}).get("delay_model") or {}
    what = ("random model, %d%% adds" % model["mix"] if model.get("model") == "random" else
            "%d %s producers" % (model["producers"], model["arrangement"]) if model else "")
    fig.suptitle("Remote-delay sweep (%s; %s)" % (what, meta["params"]), fontsize=11)
    _caption(fig, meta)
    return _save(fig, out_dir, "pool_remote_delay")


def _meta(out_dir):
    meta = {"params": "", "machine_line": ""}
    try:
        with open(os.path.join(out_dir, "machine.json")) as f:
            m = json.load(f)
    except (OSError, ValueError):
        return meta
    study = m.get("study") or {}
    meta["study"] = study
    meta["threads"] = study.get("threads")
    if study:
        meta["params"] = "%d threads, %d ops, %d items, %d trials, steal %s" % (
            study["threads"], study["ops"], study["fill"], study["trials"], study["steal"])
    meta["machine_line"] = "%s, %d usable CPUs, %s, %s; commit %s" % (
        m.get("cpu_model"), len(m.get("usable_cpus") or []), m.get("compiler"), m.get("openmp_runtime"),
        (m.get("commit") or "")[:12])
    return meta


def plot_all(out_dir):
    """Draws every plot of PLOTS into out_dir; returns the files written."""
    summary = _read_csv(os.path.join(out_dir, "summary.csv"))
    meta = _meta(out_dir)
    files = []
    files += plot_mix_time(summary, out_dir, meta)
    files += plot_producers_time(summary, out_dir, meta)
    files += plot_trace(out_dir, meta)
    files += plot_elements_per_steal(summary, out_dir, meta)
    files += plot_segments_per_steal(summary, out_dir, meta)
    files += plot_remote_delay(summary, out_dir, meta)
    return files


if __name__ == "__main__":
    # Redraw a finished study's plots: python3 scripts/lib/pool_plots.py DIR
    import sys
    if len(sys.argv) != 2:
        sys.exit("usage: pool_plots.py STUDY_DIR")
    print("\n".join(plot_all(sys.argv[1])))
