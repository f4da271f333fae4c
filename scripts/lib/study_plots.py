"""Plots of a scaling study, drawn from runs.csv and summary.csv alone.
Needs matplotlib (Debian: python3-matplotlib)."""
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import study_data  # noqa: E402

FORMATS = ("png", "svg")
PLOTS = ("speedup", "efficiency", "nodes_per_sec", "work_share", "steal_stats")


def _save(fig, out_dir, name):
    for fmt in FORMATS:
        fig.savefig(os.path.join(out_dir, "%s.%s" % (name, fmt)), dpi=150, bbox_inches="tight")
    plt.close(fig)


def _varying(rows):
    return {k for k in study_data.POLICY_KEYS if len({r[k] for r in rows}) > 1}


def _policies(rows):
    """Each (protocol, steal, victim, init) once: one line or bar group each."""
    return sorted({study_data.policy_of(r) for r in rows})


def _label(policy, varying):
    return study_data.policy_label(dict(zip(study_data.POLICY_KEYS, policy)), varying)


def _trees(rows):
    seen = []
    for r in rows:
        if r["tree"] not in seen:
            seen.append(r["tree"])
    return seen


def _panels(n):
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.2), squeeze=False)
    return fig, axes[0]


def _series(summary, tree, policy, column):
    pts = [(int(r["threads"]), r) for r in summary
           if r["tree"] == tree and study_data.policy_of(r) == policy and r[column] != ""]
    pts.sort(key=lambda p: p[0])
    return pts


def _caption(fig, meta):
    """Machine and commit under the panels, clear of the axis labels."""
    if meta.get("machine_line"):
        fig.text(0.5, -0.04, meta["machine_line"], ha="center", va="top", fontsize=8, color="0.3")


def _thread_ticks(ax, rows):
    counts = sorted({int(r["threads"]) for r in rows})
    if len(counts) <= 16:
        ax.set_xticks(counts)


def plot_speedup(summary, out_dir, meta, efficiency=False):
    trees = _trees(summary)
    varying = _varying(summary)
    fig, axes = _panels(len(trees))
    column = "efficiency" if efficiency else "speedup"
    for ax, tree in zip(axes, trees):
        max_p = 1
        for policy in _policies([r for r in summary if r["tree"] == tree]):
            pts = _series(summary, tree, policy, column)
            if not pts:
                continue
            xs = [p for p, _ in pts]
            max_p = max(max_p, max(xs))
            label = _label(policy, varying)
            if efficiency:
                ax.plot(xs, [float(r[column]) for _, r in pts], marker="o", label=label)
            else:
                ys = [float(r["speedup"]) for _, r in pts]
                lo = [y - float(r["speedup_min"]) for y, (_, r) in zip(ys, pts)]
                hi = [float(r["speedup_max"]) - y for y, (_, r) in zip(ys, pts)]
                ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=label)
        ideal_x = list(range(1, max_p + 1))
        if efficiency:
            ax.plot(ideal_x, [1.0] * len(ideal_x), "k--", linewidth=1, label="ideal (1.0)")
            ax.set_ylim(0, 1.15)
            ax.set_ylabel("parallel efficiency (speedup / threads)")
        else:
            ax.plot(ideal_x, ideal_x, "k--", linewidth=1, label="ideal (linear)")
            ax.set_ylabel("speedup over 1 thread (x)")
        ax.set_xlabel("threads")
        _thread_ticks(ax, summary)
        ax.set_title("%s: %s vs threads" % (tree, "parallel efficiency" if efficiency else "speedup"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    _caption(fig, meta)
    _save(fig, out_dir, "efficiency" if efficiency else "speedup")


def plot_rate(summary, out_dir, meta):
    trees = _trees(summary)
    varying = _varying(summary)
    fig, axes = _panels(len(trees))
    for ax, tree in zip(axes, trees):
        for policy in _policies([r for r in summary if r["tree"] == tree]):
            pts = _series(summary, tree, policy, "median_nodes_per_sec")
            label = _label(policy, varying)
            ax.plot([p for p, _ in pts], [float(r["median_nodes_per_sec"]) / 1e6 for _, r in pts],
                    marker="o", label=label)
        _thread_ticks(ax, summary)
        ax.set_xlabel("threads")
        ax.set_ylabel("throughput (million nodes/s, median)")
        ax.set_title("%s: nodes per second vs threads" % tree)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    _caption(fig, meta)
    _save(fig, out_dir, "nodes_per_sec")


def plot_work_share(runs, out_dir, meta):
    trees = _trees(runs)
    varying = _varying(runs)
    fig, axes = _panels(len(trees))
    for ax, tree in zip(axes, trees):
        tree_runs = [r for r in runs if r["tree"] == tree]
        p = max(int(r["threads"]) for r in tree_runs)
        policies = _policies(tree_runs)
        width = 0.8 / max(1, len(policies))
        for i, policy in enumerate(policies):
            cell = [r for r in tree_runs
                    if int(r["threads"]) == p and study_data.policy_of(r) == policy]
            if not cell:
                continue
            shares = []
            for t in range(p):
                per_run = []
                for r in cell:
                    nodes = [int(x) for x in r["thread_nodes"].split(";")]
                    per_run.append(100.0 * nodes[t] / sum(nodes))
                shares.append(statistics.mean(per_run))
            label = _label(policy, varying)
            ax.bar([t + (i - (len(policies) - 1) / 2) * width for t in range(p)], shares, width=width, label=label)
        ax.axhline(100.0 / p, color="k", linestyle="--", linewidth=1, label="ideal share (%.1f%%)" % (100.0 / p))
        ax.set_xticks(range(p))
        ax.set_xlabel("thread")
        ax.set_ylabel("share of the tree's nodes (%, mean over repetitions)")
        # room for the legend (a line per policy and the ideal) above the bars
        ax.set_ylim(0, max(ax.get_ylim()[1], 100.0 / p) * (1.2 + 0.06 * (len(policies) + 1)))
        ax.set_title("%s: work per thread at %d threads" % (tree, p))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8, loc="upper right")
    _caption(fig, meta)
    _save(fig, out_dir, "work_share")


def plot_steal_stats(summary, out_dir, meta):
    varying = _varying(summary)
    panels = [("median_steal_success_rate", "steal success rate (%)", 100.0),
              ("median_nodes_per_steal", "nodes per successful steal", 1.0),
              ("median_deques_examined_per_steal", "deques examined per successful steal", 1.0)]
    fig, axes = _panels(len(panels))
    multi_tree = len(_trees(summary)) > 1
    # One colour per (tree, policy), the same in every panel, so that many series can share one legend.
    series = [(tree, policy) for tree in _trees(summary)
              for policy in _policies([r for r in summary if r["tree"] == tree])]
    shared_legend = len(series) > 4
    for ax, (column, ylabel, scale) in zip(axes, panels):
        for i, (tree, policy) in enumerate(series):
            pts = [(p, r) for p, r in _series(summary, tree, policy, column) if p > 1]
            if not pts:
                continue
            label = _label(policy, varying)
            if multi_tree:
                label = tree + ": " + label
            ax.plot([p for p, _ in pts], [float(r[column]) * scale for _, r in pts], marker="o", label=label,
                    color="C%d" % (i % 10))
        _thread_ticks(ax, [r for r in summary if int(r["threads"]) > 1])
        ax.set_xlabel("threads")
        ax.set_ylabel(ylabel)
        ax.set_title(ylabel[0].upper() + ylabel[1:] + ", median over repetitions", fontsize=10)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if not shared_legend:
            ax.legend(fontsize=7)
    if shared_legend:  # too many to lay over the data: one legend beside the last panel
        axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    _caption(fig, meta)
    _save(fig, out_dir, "steal_stats")


def plot_all(out_dir, meta=None):
    meta = meta or {}
    runs = study_data.read_csv(os.path.join(out_dir, "runs.csv"))
    summary = study_data.read_csv(os.path.join(out_dir, "summary.csv"))
    if not runs or not summary:
        raise ValueError("%s: runs.csv or summary.csv is empty" % out_dir)
    plot_speedup(summary, out_dir, meta)
    plot_speedup(summary, out_dir, meta, efficiency=True)
    plot_rate(summary, out_dir, meta)
    plot_work_share(runs, out_dir, meta)
    plot_steal_stats(summary, out_dir, meta)
    return ["%s.%s" % (p, f) for p in PLOTS for f in FORMATS]
