"""Plots of a scaling study, drawn from runs.csv and summary.csv alone.
Needs matplotlib (Debian: python3-matplotlib). The scaling axis is PEs =
ranks x threads: threads in a study without ranks, where every plot is as it
was before the ranks axis."""
import math
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import study_data  # noqa: E402
import plot_common  # noqa: E402

FORMATS = plot_common.FORMATS
PLOTS = ("speedup", "efficiency", "nodes_per_sec", "work_share", "steal_stats")
# Drawn too when a study has more than one remote delay.
HIER_PLOTS = ("hier_time", "hier_remote_steals", "hier_nodes_per_remote_steal", "hier_domain_share")
# Drawn too when a study has more than one ranks value (MPI).
RANKS_PLOTS = ("ranks_speedup", "ranks_global_steals")


_save = plot_common.save


def _varying(rows):
    return {k for k in study_data.POLICY_KEYS if len({r[k] for r in rows}) > 1}


def _ranks(r):
    return int(r.get("ranks") or 1)


def _pes(r):
    """The scaling axis: PEs = ranks x threads (threads for a study without ranks)."""
    return int(r.get("pes") or _ranks(r) * int(r["threads"]))


def _ranks_vary(rows):
    return len({_ranks(r) for r in rows}) > 1


def _multi_rank(rows):
    return any(_ranks(r) > 1 for r in rows)


def _policies(rows):
    """Each policy (protocol, steal, victim, init, domains, delay) once, with
    the ranks value where the study has more than one: one line or bar group
    each."""
    if _ranks_vary(rows):
        return sorted({study_data.policy_of(r) + (_ranks(r),) for r in rows})
    return sorted({study_data.policy_of(r) for r in rows})


def _key_of(r, key):
    """r's series key in the form of `key` (with or without the ranks)."""
    policy = study_data.policy_of(r)
    return policy + (_ranks(r),) if len(key) > len(policy) else policy


def _ranks_text(n):
    return "%d rank%s" % (n, "" if n == 1 else "s")


def _label(policy, varying):
    n = len(study_data.POLICY_KEYS)
    text = study_data.policy_label(dict(zip(study_data.POLICY_KEYS, policy[:n])), varying)
    if len(policy) > n:  # ranks vary: "2 ranks", after the varying policy axes if any
        text = (text + ", " if varying else "") + _ranks_text(policy[n])
    return text


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
    """(PEs, row) of one line, by PEs (= threads without ranks)."""
    pts = [(_pes(r), r) for r in summary
           if r["tree"] == tree and _key_of(r, policy) == policy and r[column] != ""]
    pts.sort(key=lambda p: p[0])
    return pts


_caption = plot_common.caption


def _thread_ticks(ax, rows):
    counts = sorted({_pes(r) for r in rows})
    if len(counts) <= 16:
        ax.set_xticks(counts)


def _x_label(rows):
    return "PEs (ranks x threads)" if _multi_rank(rows) else "threads"


def _unit(rows):
    return "PE" if _multi_rank(rows) else "thread"


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
        if not any(_series(summary, tree, policy, column) for policy in _policies(summary)):
            # e.g. 2 or more domains need 2 or more threads: no 1-thread run to compare with
            ax.text(0.5, 0.5, "no 1-%s runs in this study:\nno %s to draw" % (_unit(summary), column),
                    transform=ax.transAxes, ha="center", va="center", fontsize=9, color="0.4")
        ideal_x = list(range(1, max_p + 1))
        if efficiency:
            ax.plot(ideal_x, [1.0] * len(ideal_x), "k--", linewidth=1, label="ideal (1.0)")
            ax.set_ylim(0, 1.15)
            ax.set_ylabel("parallel efficiency (speedup / %ss)" % ("PE" if _multi_rank(summary) else "thread"))
        else:
            ax.plot(ideal_x, ideal_x, "k--", linewidth=1, label="ideal (linear)")
            ax.set_ylabel("speedup over 1 %s (x)" % _unit(summary))
        ax.set_xlabel(_x_label(summary))
        _thread_ticks(ax, summary)
        ax.set_title("%s: %s vs %s" % (tree, "parallel efficiency" if efficiency else "speedup",
                                       "PEs" if _multi_rank(summary) else "threads"))
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
        ax.set_xlabel(_x_label(summary))
        ax.set_ylabel("throughput (million nodes/s, median)")
        ax.set_title("%s: nodes per second vs %s" % (tree, "PEs" if _multi_rank(summary) else "threads"))
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
        p = max(_pes(r) for r in tree_runs)  # the most threads (PEs: ranks x threads, rank by rank)
        policies = [k for k in _policies(tree_runs) if any(_pes(r) == p and _key_of(r, k) == k for r in tree_runs)]
        width = 0.8 / max(1, len(policies))
        for i, policy in enumerate(policies):
            cell = [r for r in tree_runs
                    if _pes(r) == p and _key_of(r, policy) == policy]
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
        ax.set_xlabel("PE (thread, rank by rank)" if _multi_rank(runs) else "thread")
        ax.set_ylabel("share of the tree's nodes (%, mean over repetitions)")
        # room for the legend (a line per policy and the ideal) above the bars
        ax.set_ylim(0, max(ax.get_ylim()[1], 100.0 / p) * (1.2 + 0.06 * (len(policies) + 1)))
        ax.set_title(("%s: work per PE at %d PEs" if _multi_rank(runs) else "%s: work per thread at %d threads")
                     % (tree, p))
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
        _thread_ticks(ax, [r for r in summary if _pes(r) > 1])
        ax.set_xlabel(_x_label(summary))
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


def _delay_positions(delays):
    """x positions for remote delays (ns) on a log scale drawn by hand: each
    positive delay at log10 of it, 0 one decade left of the smallest positive
    one, as its own tick set apart by a break line. Returns {delay: x}, and
    the x of the break (None without a 0)."""
    positive = sorted(d for d in delays if d > 0)
    pos = {d: math.log10(d) for d in positive}
    brk = None
    if 0 in delays:
        left = math.log10(positive[0]) - 1.0 if positive else 0.0
        pos[0] = left
        brk = left + 0.5 if positive else None
    return pos, brk


def _delay_text(ns):
    if ns == 0:
        return "0"
    if ns >= 1000:
        return "%g µs" % (ns / 1000.0)
    return "%d ns" % ns


def _delay_axis(ax, delays):
    pos, brk = _delay_positions(delays)
    ax.set_xticks([pos[d] for d in sorted(delays)])
    ax.set_xticklabels([_delay_text(d) for d in sorted(delays)])
    if brk is not None:
        ax.axvline(brk, color="0.6", linestyle=":", linewidth=1)
    lo, hi = min(pos.values()), max(pos.values())
    ax.set_xlim(lo - 0.3, hi + 0.3)
    ax.set_xlabel("remote delay per remote probe or claim (log scale)")
    return pos


def _hier_series(rows):
    """One line per (policy but the delay, ranks, threads): those keys, by
    thread count (ranks is 1 in a study without ranks)."""
    keys = sorted({study_data.policy_of(r)[:-1] + (_ranks(r), int(r["threads"])) for r in rows},
                  key=lambda k: (k[-1],) + k[:-1])
    return keys


def _hier_style(summary):
    """Colour per everything but the victim (threads, other axes), line style
    and marker per victim: random dashed, hier solid."""
    victim_at = study_data.POLICY_KEYS.index("victim")
    rest = sorted({k[:victim_at] + k[victim_at + 1:] for k in _hier_series(summary)}, key=lambda k: (k[-1],) + k)
    styles = {"hier": ("-", "o"), "random": ("--", "s"), "linear": (":", "^"), "tree": ("-.", "D")}

    def style(key):
        colour = "C%d" % (rest.index(key[:victim_at] + key[victim_at + 1:]) % 10)
        line, marker = styles.get(key[victim_at], ("-", "x"))
        return dict(color=colour, linestyle=line, marker=marker)
    return style


def _hier_label(key, summary, short=False):
    """The key's varying axes (the delay aside) and its thread count; short:
    values only, a line each (for tick labels)."""
    keys = [k for k in study_data.POLICY_KEYS if k != "remote_delay_ns"]
    varying = _varying(summary) - {"remote_delay_ns"}
    row = dict(zip(keys, key[:-2]))
    parts = [row[k] if short else study_data.policy_label(row, {k}) for k in keys if k in varying]
    if "victim" not in varying:
        parts.insert(0, row["victim"] if short else "victim=" + row["victim"])
    if _ranks_vary(summary):
        parts.append(_ranks_text(key[-2]))
    threads = {int(r["threads"]) for r in summary}
    if len(threads) > 1:
        parts.append("%d threads" % key[-1])
    return ("\n" if short else ", ").join(parts)


def _in_series(r, key):
    return study_data.policy_of(r)[:-1] + (_ranks(r), int(r["threads"])) == key


def plot_hier_lines(summary, out_dir, meta, name, column, ylabel):
    """Against the remote delay, a panel per tree and a line per victim policy
    (and thread count and other varying axes): median, with min-max bars for
    the time."""
    trees = _trees(summary)
    delays = sorted({int(r["remote_delay_ns"]) for r in summary})
    style = _hier_style(summary)
    fig, axes = _panels(len(trees))
    for ax, tree in zip(axes, trees):
        pos = _delay_axis(ax, delays)
        tree_rows = [r for r in summary if r["tree"] == tree]
        for key in _hier_series(tree_rows):
            pts = sorted(((int(r["remote_delay_ns"]), r) for r in tree_rows if _in_series(r, key) and r[column] != ""),
                         key=lambda p: p[0])
            if not pts:
                continue
            xs = [pos[d] for d, _ in pts]
            ys = [float(r[column]) for _, r in pts]
            label = _hier_label(key, summary)
            if column == "median_seconds":
                lo = [y - float(r["min_seconds"]) for y, (_, r) in zip(ys, pts)]
                hi = [float(r["max_seconds"]) - y for y, (_, r) in zip(ys, pts)]
                ax.errorbar(xs, ys, yerr=[lo, hi], capsize=3, label=label, **style(key))
            else:
                ax.plot(xs, ys, label=label, **style(key))
        ax.set_ylabel(ylabel)
        ax.set_title("%s: %s vs remote delay" % (tree, ylabel.split(" (")[0]), fontsize=10)
        if column != "median_seconds":
            ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no runs with domains", transform=ax.transAxes, ha="center", va="center",
                    color="0.4")
    _caption(fig, meta)
    _save(fig, out_dir, name)


def plot_hier_domain_share(runs, summary, out_dir, meta):
    """Each domain's share of the nodes at the largest remote delay: a panel
    per tree, a bar group per victim policy (and thread count), a bar per
    domain, mean over repetitions."""
    trees = _trees(runs)
    big = max(int(r["remote_delay_ns"]) for r in runs)
    fig, axes = _panels(len(trees))
    for ax, tree in zip(axes, trees):
        cells = [r for r in runs if r["tree"] == tree and int(r["remote_delay_ns"]) == big and r.get("domain_nodes")]
        groups = []
        for key in _hier_series(cells):
            per_run = []
            for r in cells:
                if _in_series(r, key):
                    nodes = [int(x) for x in r["domain_nodes"].split(";")]
                    per_run.append([100.0 * n / sum(nodes) for n in nodes])
            count = min(len(p) for p in per_run)
            groups.append((key, [statistics.mean(p[d] for p in per_run) for d in range(count)]))
        if not groups:
            ax.text(0.5, 0.5, "no runs with domains", transform=ax.transAxes, ha="center", va="center", color="0.4")
        most = max((len(g) for _, g in groups), default=1)
        width = 0.8 / most
        for d in range(most):
            xs = [i + (d - (most - 1) / 2) * width for i, (_, g) in enumerate(groups) if d < len(g)]
            ax.bar(xs, [g[d] for _, g in groups if d < len(g)], width=width, label="domain %d" % d,
                   color="C%d" % (d % 10))
        for count in sorted({len(g) for _, g in groups}):
            ax.axhline(100.0 / count, color="k", linestyle="--", linewidth=1,
                       label="even share (%.1f%%)" % (100.0 / count))
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([_hier_label(k, summary, short=True) for k, _ in groups], fontsize=7)
        ax.set_ylabel("share of the tree's nodes (%, mean over reps)")
        top = max([100.0 / max(1, most)] + [x for _, g in groups for x in g])
        ax.set_ylim(0, min(100.0, top * 1.3) if top < 75 else 118)  # room for the legend
        ax.set_title("%s: nodes per domain at remote delay %s" % (tree, _delay_text(big)), fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        if groups:
            ax.legend(fontsize=7, loc="upper right", ncol=2)
    _caption(fig, meta)
    _save(fig, out_dir, "hier_domain_share")


def plot_hierarchy(runs, summary, out_dir, meta):
    """The hierarchy plot set, for a study with more than one remote delay;
    returns the names drawn (none otherwise)."""
    if len({int(r["remote_delay_ns"]) for r in summary}) < 2:
        return []
    for name, column, ylabel in (("hier_time", "median_seconds", "time (s, median; bars min to max)"),
                                 ("hier_remote_steals", "median_remote_steals", "remote steals (median)"),
                                 ("hier_nodes_per_remote_steal", "median_nodes_per_remote_steal",
                                  "nodes per remote steal (median)")):
        plot_hier_lines(summary, out_dir, meta, name, column, ylabel)
    plot_hier_domain_share(runs, summary, out_dir, meta)
    return list(HIER_PLOTS)


def _ranks_panels(summary):
    """(tree, policy) per panel: a panel per tree, and per policy where the
    study has more than one (so that each panel has a line per ranks value)."""
    return [(tree, policy) for tree in _trees(summary)
            for policy in sorted({study_data.policy_of(r) for r in summary if r["tree"] == tree})]


def _ranks_line(summary, tree, policy, ranks, column):
    """(PEs, row) of one ranks value's line in a panel, by PEs."""
    pts = [(_pes(r), r) for r in summary if r["tree"] == tree and study_data.policy_of(r) == policy
           and _ranks(r) == ranks and r[column] != ""]
    return sorted(pts, key=lambda p: p[0])


def _ranks_panel_title(tree, policy, what, summary):
    varying = _varying(summary)
    title = "%s: %s vs PEs" % (tree, what)
    if varying:
        title += "\n" + _label(policy, varying)
    return title


def _annotate(ax, pts, ys, i):
    """Each point's ranks x threads (in the line's colour, a line's labels
    below the previous one's), so 2x1 and 1x2 can be told apart."""
    for (x, r), y in zip(pts, ys):
        ax.annotate("%dx%s" % (_ranks(r), r["threads"]), (x, y), textcoords="offset points",
                    xytext=(5, -10 - 8 * i), fontsize=6, color="C%d" % (i % 10))


def plot_ranks_speedup(summary, out_dir, meta):
    """Speedup over 1 PE (1 rank x 1 thread) against PEs, a line per ranks
    value: does adding ranks scale like adding threads?"""
    panels = _ranks_panels(summary)
    all_ranks = sorted({_ranks(r) for r in summary})
    fig, axes = _panels(len(panels))
    for ax, (tree, policy) in zip(axes, panels):
        max_p = 1
        for i, ranks in enumerate(all_ranks):
            pts = _ranks_line(summary, tree, policy, ranks, "speedup")
            if not pts:
                continue
            xs = [p for p, _ in pts]
            ys = [float(r["speedup"]) for _, r in pts]
            max_p = max(max_p, max(xs))
            lo = [y - float(r["speedup_min"]) for y, (_, r) in zip(ys, pts)]
            hi = [float(r["speedup_max"]) - y for y, (_, r) in zip(ys, pts)]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=_ranks_text(ranks),
                        color="C%d" % (i % 10))
            _annotate(ax, pts, ys, i)
        if max_p == 1 and not any(_ranks_line(summary, tree, policy, n, "speedup") for n in all_ranks):
            ax.text(0.5, 0.5, "no 1-PE run (1 rank x 1 thread) in this study:\nno speedup to draw",
                    transform=ax.transAxes, ha="center", va="center", fontsize=9, color="0.4")
        ideal_x = list(range(1, max_p + 1))
        ax.plot(ideal_x, ideal_x, "k--", linewidth=1, label="ideal (linear)")
        ax.set_xlabel("PEs (ranks x threads)")
        ax.set_ylabel("speedup over 1 PE: 1 rank x 1 thread (x)")
        _thread_ticks(ax, summary)
        ax.set_title(_ranks_panel_title(tree, policy, "speedup", summary), fontsize=10)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    _caption(fig, meta)
    _save(fig, out_dir, "ranks_speedup")


def plot_ranks_global_steals(summary, out_dir, meta):
    """Steals between ranks (median over repetitions, summed over the ranks)
    against PEs, a line per ranks value above 1 (a single rank has none)."""
    panels = _ranks_panels(summary)
    all_ranks = sorted({_ranks(r) for r in summary})
    fig, axes = _panels(len(panels))
    for ax, (tree, policy) in zip(axes, panels):
        drawn = False
        for i, ranks in enumerate(all_ranks):
            if ranks == 1:
                continue
            pts = _ranks_line(summary, tree, policy, ranks, "median_global_steals")
            if not pts:
                continue
            ys = [float(r["median_global_steals"]) for _, r in pts]
            ax.plot([p for p, _ in pts], ys, marker="o", label=_ranks_text(ranks), color="C%d" % (i % 10))
            _annotate(ax, pts, ys, i)
            drawn = True
        if drawn:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no runs with 2 or more ranks", transform=ax.transAxes, ha="center", va="center",
                    color="0.4")
        ax.set_xlabel("PEs (ranks x threads)")
        ax.set_ylabel("global steals (between ranks, median)")
        _thread_ticks(ax, summary)
        ax.set_title(_ranks_panel_title(tree, policy, "global steals", summary), fontsize=10)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    _caption(fig, meta)
    _save(fig, out_dir, "ranks_global_steals")


def plot_ranks(summary, out_dir, meta):
    """The ranks plot set, for a study with more than one ranks value;
    returns the names drawn (none otherwise)."""
    if not _ranks_vary(summary):
        return []
    plot_ranks_speedup(summary, out_dir, meta)
    plot_ranks_global_steals(summary, out_dir, meta)
    return list(RANKS_PLOTS)


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
    drawn = list(PLOTS) + plot_hierarchy(runs, summary, out_dir, meta) + plot_ranks(summary, out_dir, meta)
    return ["%s.%s" % (p, f) for p in drawn for f in FORMATS]
