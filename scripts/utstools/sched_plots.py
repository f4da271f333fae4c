"""Figures of a schedulers study (docs/studies.md, "Figures"), drawn from its
summary.csv, runs.csv and machine.json alone: efficiency against node cost
at the study's largest thread count, throughput against threads at the
smallest -g, and peak memory per scheduler."""
import os

from utstools import plot_common as pc
from utstools import study_data
from utstools import study_schedulers as ss
from utstools.study_common import note

plt = pc.plt
# Outside the axes, right of the last panel: seven or more curves would
# hide points inside, and every panel has the same curves.
LEGEND = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0}


def _f(v):
    return None if v in (None, "") else float(v)


def _parallel(rows):
    return [r for r in rows if r.get("engine") == "parallel"]


def _trees(rows):
    seen = []
    for r in rows:
        if r["tree"] not in seen:
            seen.append(r["tree"])
    return seen


def _curves(rows):
    return sorted({ss.curve_of(r) for r in _parallel(rows)})


def _pinning(rows):
    return {r.get("bind") or r.get("pinning") for r in rows}


def _max_pus(rows):
    used = [int(r["pus_used"]) for r in rows if r.get("pus_used")]
    return max(used) if used else None


def _caption(machine, rows, what, bars):
    lines = ["%s %s (%s); repetitions interleaved across cells in a shuffled order. Error bars: %s. %s"
             % (what, pc.n_text(r.get("seconds_n") for r in rows), pc.warmup_text(machine), bars, pc.DODGE_NOTE)]
    if any(r.get("oversubscribed") == "true" for r in rows):
        lines.append("Hollow points: more threads than PUs available (oversubscribed).")
    lines.append("Curves: scheduler/form (runtime, as each run's record names it); uts = the engine's split-deque "
                 "worker loop.")
    lines.append(pc.machine_line(machine, _max_pus(rows), _pinning(rows)))
    binaries = (machine or {}).get("binaries") or []
    if len(binaries) > 1:
        lines.append("Binaries: " + "; ".join("%s = %s" % (b["label"], b.get("version") or b["path"])
                                              for b in binaries) + ".")
    return lines


def plot_efficiency(summary, out, machine):
    rows = [r for r in _parallel(summary) if _f(r.get("efficiency_vs_seq")) is not None
            and _f(r.get("node_cost_ns")) is not None]
    if not rows:
        note("figure sched_efficiency not drawn: no cell has a --sequential baseline")
        return []
    top = max(int(r["threads"]) for r in rows)
    rows = [r for r in rows if int(r["threads"]) == top]
    curves = _curves(rows)
    trees = _trees(rows)
    fig, axes = pc.panels(len(trees), width=5.6)
    for ax, tree in zip(axes[0], trees):
        tree_rows = [r for r in rows if r["tree"] == tree]
        highs = [1.1]
        costs = sorted({_f(r["node_cost_ns"]) for r in tree_rows})
        for i, curve in enumerate(curves):
            pts = [(_f(r["node_cost_ns"]), _f(r["efficiency_vs_seq"]), _f(r["efficiency_vs_seq_ci_low"]),
                    _f(r["efficiency_vs_seq_ci_high"]), r.get("oversubscribed") == "true")
                   for r in tree_rows if ss.curve_of(r) == curve]
            if not pts:
                continue
            highs += [p[3] or p[1] for p in pts]
            pc.series(ax, pts, "C%d" % (i % 10), ss.curve_label(curve), shift=pc.dodge(i, len(curves), step=0.03),
                      marker="os^vD<>ph*"[i % 10])
        ax.set_xscale("log")
        ax.axhline(1.0, color="k", linestyle="--", linewidth=1, label="ideal (1.0)")
        ax.axhline(ss.TARGET, color="0.5", linestyle=":", linewidth=1, label="%g" % ss.TARGET)
        ax.set_ylim(0, max(highs) * 1.08)
        if costs:
            ax.set_xlim(costs[0] / 1.5, costs[-1] * 1.5)
        # A labelled tick at each node cost measured, with its -g; no others.
        by_g = sorted({(_f(r["node_cost_ns"]), int(r["granularity"])) for r in tree_rows})
        ax.xaxis.set_major_locator(pc.FixedLocator([c for c, _ in by_g]))
        ax.xaxis.set_minor_locator(pc.NullLocator())
        # Node costs close together on the log axis (-g 1 and 2 cost about
        # the same where a node is mostly traversal): labels at an angle, and
        # one too close to the one before it set lower; whole nanoseconds.
        labels = ["%.0f ns (-g %d)" % (c, g) for c, g in by_g]
        for i in range(1, len(by_g)):  # a label too close to the one before goes one line lower
            if by_g[i][0] < 1.4 * by_g[i - 1][0] and not labels[i - 1].startswith("\n"):
                labels[i] = "\n\n" + labels[i]
        ax.set_xticklabels(labels, fontsize=7.5, rotation=35, ha="right")
        ax.set_xlabel("node cost: ns per node of uts --sequential at that -g (log scale)")
        ax.set_ylabel("efficiency = speedup vs --sequential / PUs used")
        cores = pc.topology(machine).get("cores")
        ax.set_title("%s: efficiency at %d threads%s" % (tree, top, " (all %d cores)" % cores if cores == top else ""))
        ax.grid(alpha=0.3)
        if ax is axes[0][-1]:  # one legend, right of the last panel
            ax.legend(**LEGEND)
    fig.tight_layout()
    what = ("Efficiency at %d threads (the study's largest count) = (median time of uts --sequential on the same "
            "tree and -g / the cell's median time) / PUs used, not capped; node cost = the --sequential cell's "
            "median ns per node; points over" % top)
    pc.caption(fig, _caption(machine, rows, what, "95% bootstrap percentile CI of the ratio of medians, paired "
                             "by repetition, divided by PUs used"))
    return pc.save(fig, out, "sched_efficiency")


def plot_throughput(summary, out, machine):
    par = _parallel(summary)
    if not par:
        return []
    g = min(int(r["granularity"]) for r in par)
    rows = [r for r in par if int(r["granularity"]) == g]
    curves = _curves(rows)
    trees = _trees(rows)
    fig, axes = pc.panels(len(trees), width=5.6)
    for ax, tree in zip(axes[0], trees):
        tree_rows = [r for r in rows if r["tree"] == tree]
        xs = sorted({int(r["threads"]) for r in tree_rows} | {1})
        pc.boundary_lines(ax, machine, max(xs))
        top = 0.0
        n = len(curves) + 1
        for i, curve in enumerate(curves):
            pts = [(int(r["threads"]), _f(r["nodes_per_sec_median"]) / 1e6,
                    None if _f(r["nodes_per_sec_ci_low"]) is None else _f(r["nodes_per_sec_ci_low"]) / 1e6,
                    None if _f(r["nodes_per_sec_ci_high"]) is None else _f(r["nodes_per_sec_ci_high"]) / 1e6,
                    r.get("oversubscribed") == "true") for r in tree_rows if ss.curve_of(r) == curve]
            if not pts:
                continue
            top = max([top] + [p[3] or p[1] for p in pts])
            pc.series(ax, pts, "C%d" % (i % 10), ss.curve_label(curve), shift=pc.dodge(i, n),
                      marker="os^vD<>ph*"[i % 10])
        for r in summary:
            if r["tree"] == tree and r.get("engine") == "sequential" and int(r["granularity"]) == g:
                y = _f(r["nodes_per_sec_median"]) / 1e6
                lo, hi = _f(r["nodes_per_sec_ci_low"]), _f(r["nodes_per_sec_ci_high"])
                ax.errorbar([pc.dodge(n - 1, n)(1)], [y],
                            yerr=[[y - lo / 1e6 if lo else 0], [hi / 1e6 - y if hi else 0]], color="k",
                            marker="*", markersize=9, linestyle="none", capsize=2.5, label="uts --sequential")
                top = max(top, (hi or 0) / 1e6, y)
        pc.log2_axis(ax, xs)
        ax.set_xlabel("threads (log scale)")
        ax.set_ylabel("throughput (million nodes/s)")
        ax.set_ylim(0, top * 1.15 if top else 1)
        ax.set_title("%s: nodes per second at -g %d" % (tree, g))
        ax.grid(alpha=0.3)
        if ax is axes[0][-1]:  # one legend, right of the last panel
            ax.legend(**LEGEND)
    fig.tight_layout()
    pc.caption(fig, _caption(machine, rows, "Points: median nodes per second at -g %d over" % g,
                             "95% bootstrap percentile CI of the median"))
    return pc.save(fig, out, "sched_throughput")


def plot_memory(summary, out, machine):
    rows = [r for r in summary if _f(r.get("peak_rss_bytes_median")) is not None]
    if not rows:
        note("figure sched_memory not drawn: the records carry no peak memory (a uts older than it)")
        return []
    g = min(int(r["granularity"]) for r in rows)
    rows = [r for r in rows if int(r["granularity"]) == g]
    par = _parallel(rows)
    curves = _curves(par)
    counts = sorted({int(r["threads"]) for r in par})
    trees = _trees(rows)
    fig, axes = pc.panels(len(trees), width=max(5.6, 0.9 * len(curves) + 2))
    mib = 2.0 ** 20
    width = 0.8 / max(1, len(counts))
    for ax, tree in zip(axes[0], trees):
        for j, p in enumerate(counts):
            xs, ys, lo, hi = [], [], [], []
            for i, curve in enumerate(curves):
                r = next((r for r in par if r["tree"] == tree and ss.curve_of(r) == curve
                          and int(r["threads"]) == p), None)
                if r is None:
                    continue
                y = _f(r["peak_rss_bytes_median"]) / mib
                xs.append(i + (j - (len(counts) - 1) / 2.0) * width)
                ys.append(y)
                lo.append(y - (_f(r["peak_rss_bytes_ci_low"]) or y * mib) / mib)
                hi.append((_f(r["peak_rss_bytes_ci_high"]) or y * mib) / mib - y)
            ax.bar(xs, ys, width=width * 0.95, color="C%d" % (j % 10),
                   label="%d thread%s" % (p, "" if p == 1 else "s"), yerr=[lo, hi], capsize=2,
                   error_kw={"elinewidth": 0.8})
        seq = next((r for r in rows if r["tree"] == tree and r["engine"] == "sequential"), None)
        if seq:
            ax.axhline(_f(seq["peak_rss_bytes_median"]) / mib, color="k", linestyle="--", linewidth=1,
                       label="uts --sequential")
        ax.set_xticks(range(len(curves)))
        ax.set_xticklabels([ss.curve_label(c) for c in curves], rotation=25, ha="right")
        ax.set_ylabel("peak resident memory (MiB)")
        ax.set_title("%s: peak memory at -g %d" % (tree, g))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(loc="best")
    fig.tight_layout()
    pc.caption(fig, _caption(machine, rows, "Bars: the median over %s of each run's peak resident set size (the "
                             "record's memory.peak_rss_bytes: the whole process, libraries and thread stacks "
                             "included; MiB = 2^20 bytes) at -g %d" % ("its runs", g) + ";",
                             "95% bootstrap percentile CI of the median"))
    return pc.save(fig, out, "sched_memory")


def plot_all(out, machine):
    summary = study_data.read_csv(os.path.join(out, "summary.csv"))
    if not summary:
        raise ValueError("%s: summary.csv is empty" % out)
    files = []
    files += plot_efficiency(summary, out, machine)
    files += plot_throughput(summary, out, machine)
    files += plot_memory(summary, out, machine)
    return files
