"""Figures of a scaling or hierarchy study, drawn from its summary.csv,
runs.csv and machine.json alone (docs/studies.md, "Figures"). The scaling
axis is PEs = ranks x threads: threads in a study without MPI ranks."""
import math
import os
import textwrap

from utstools import plot_common as pc
from utstools import stats
from utstools import study_data
from utstools.study_common import note

plt = pc.plt


def _f(v):
    return None if v in (None, "") else float(v)


def _ranks(r):
    return int(r.get("ranks") or 1)


def _pes(r):
    return int(r.get("pes") or _ranks(r) * int(r["threads"]))


def _over(r):
    return r.get("oversubscribed") == "true"


def _parallel(rows):
    return [r for r in rows if r.get("engine") != "sequential"]


def _multi_rank(rows):
    return any(_ranks(r) > 1 for r in rows)


def _ranks_vary(rows):
    return len({_ranks(r) for r in rows}) > 1


def _varying(rows):
    return {k for k in study_data.POLICY_KEYS if len({r.get(k) or "" for r in rows}) > 1}


def _key(r, with_ranks):
    return study_data.policy_of(r) + ((_ranks(r),) if with_ranks else ())


def _keys(rows, with_ranks):
    return sorted({_key(r, with_ranks) for r in rows})


def _label(key, varying):
    n = len(study_data.POLICY_KEYS)
    text = study_data.policy_label(dict(zip(study_data.POLICY_KEYS, key[:n])), varying)
    if len(key) > n:
        text = (text + ", " if varying else "") + "%d rank%s" % (key[n], "" if key[n] == 1 else "s")
    return text


def _trees(rows):
    seen = []
    for r in rows:
        if r["tree"] not in seen:
            seen.append(r["tree"])
    return seen


def _x_label(rows):
    return "PEs (MPI ranks x threads per rank), log scale" if _multi_rank(rows) else "threads (log scale)"


def _n(rows, column="seconds_n"):
    return pc.n_text(r.get(column) for r in rows)


def _common_caption(machine, rows, what, bars, pus_used=None, along_delay=False):
    over = any(_over(r) for r in rows)
    lines = ["%s %s (%s); repetitions interleaved across cells in a shuffled order. Error bars: %s."
             % (what, _n(rows), pc.warmup_text(machine), bars)]
    if over and along_delay:
        lines.append("Hollow points: more threads than PUs available (oversubscribed); a line joins one thread "
                     "count across the delays.")
    elif over:
        lines.append("Hollow points: more threads than PUs available (oversubscribed), not joined to the curve.")
    lines[-1] += " " + pc.DODGE_NOTE
    lines.append(pc.machine_line(machine, pus_used, _pinning(rows)))
    return lines


def _pinning(rows):
    """How the rows' runs were pinned: the bind uts reports, else the launch."""
    return {r.get("bind") or r.get("pinning") for r in rows}


def _max_pus(rows):
    used = [int(r["pus_used"]) for r in rows if r.get("pus_used")]
    return max(used) if used else None


# ---------------------------------------------------------------- speedup and efficiency

BASES = {
    "1pe": ("1 thread", "the median time of the 1-thread cell of the same tree and policy"),
    "seq": ("uts --sequential", "the median time of uts --sequential on the same tree"),
}


def plot_speedup(summary, out, machine, base, efficiency):
    col, lo_col, hi_col = (study_data.EFFICIENCY_COLUMNS if efficiency else study_data.SPEEDUP_COLUMNS)[base]
    rows = [r for r in _parallel(summary) if r.get(col) not in (None, "")]
    name = ("efficiency" if efficiency else "speedup") + ("" if base == "1pe" else "_sequential")
    if not rows:
        note("figure %s not drawn: the study has no %s cell to compare with" % (name, BASES[base][0]))
        return []
    unit = "1 PE (1 rank x 1 thread)" if base == "1pe" and _multi_rank(rows) else BASES[base][0]
    with_ranks = _ranks_vary(rows)
    varying = _varying(rows)
    trees = _trees(rows)
    fig, axes = pc.panels(len(trees))
    for ax, tree in zip(axes[0], trees):
        tree_rows = [r for r in rows if r["tree"] == tree]
        xs_all = sorted({_pes(r) for r in tree_rows} | {1})
        cores = pc.boundary_lines(ax, machine, max(xs_all))
        lows, highs = [], []
        keys = _keys(tree_rows, with_ranks)
        for i, key in enumerate(keys):
            pts = []
            for r in tree_rows:
                if _key(r, with_ranks) == key:
                    y, lo, hi = _f(r[col]), _f(r[lo_col]), _f(r[hi_col])
                    pts.append((_pes(r), y, lo, hi, _over(r)))
                    lows.append(lo if lo is not None else y)
                    highs.append(hi if hi is not None else y)
            pc.series(ax, pts, "C%d" % (i % 10), _label(key, varying) or tree, shift=pc.dodge(i, len(keys)))
        top = min(cores or max(xs_all), max(xs_all))
        if efficiency:
            ax.plot([1, top], [1, 1], "k--", linewidth=1, label="ideal (1.0), to the core count")
            ax.set_ylim(0, max([1.1] + [h * 1.08 for h in highs]))
            ax.set_ylabel("efficiency vs %s = speedup / PUs used" % unit)
        else:
            ax.plot([1, top], [1, top], "k--", linewidth=1, label="ideal (linear), to the core count")
            pc.log2_speedup_axis(ax, lows + [1], highs + [top])
            ax.set_ylabel("speedup over %s (log scale)" % unit)
        pc.log2_axis(ax, xs_all)
        ax.set_xlabel(_x_label(rows))
        ax.set_title("%s: %s vs %s" % (tree, "efficiency" if efficiency else "speedup", BASES[base][0]))
        ax.grid(alpha=0.3)
        pc.hollow_legend(ax, any(_over(r) for r in tree_rows))
        ax.legend(loc="best")
    fig.tight_layout()
    what = ("Efficiency = speedup / PUs used (the PUs uts reports the cell's threads on), not capped: above 1 means "
            "a superlinear speedup or a slow baseline. Speedup = %s / the cell's median time" if efficiency
            else "Speedup = %s / the cell's median time") % BASES[base][1]
    pc.caption(fig, _common_caption(machine, rows, what + ";", "95% bootstrap percentile CI of the ratio of "
                                     "medians, resampling the repetitions of both cells together (paired by "
                                     "repetition)" + ("; divided by PUs used" if efficiency else ""),
                                     _max_pus(rows)))
    return pc.save(fig, out, name)


# ---------------------------------------------------------------- throughput

def plot_rate(summary, out, machine):
    trees = _trees(summary)
    par = _parallel(summary)
    with_ranks = _ranks_vary(par)
    varying = _varying(par)
    fig, axes = pc.panels(len(trees))
    for ax, tree in zip(axes[0], trees):
        tree_rows = [r for r in par if r["tree"] == tree]
        xs_all = sorted({_pes(r) for r in tree_rows} | {1})
        pc.boundary_lines(ax, machine, max(xs_all))
        top = 0.0
        keys = _keys(tree_rows, with_ranks)
        n_series = len(keys) + 1
        for i, key in enumerate(keys):
            pts = [(_pes(r), _f(r["nodes_per_sec_median"]) / 1e6,
                    None if _f(r["nodes_per_sec_ci_low"]) is None else _f(r["nodes_per_sec_ci_low"]) / 1e6,
                    None if _f(r["nodes_per_sec_ci_high"]) is None else _f(r["nodes_per_sec_ci_high"]) / 1e6,
                    _over(r)) for r in tree_rows if _key(r, with_ranks) == key]
            top = max([top] + [p[3] or p[1] for p in pts])
            pc.series(ax, pts, "C%d" % (i % 10), _label(key, varying) or tree, shift=pc.dodge(i, n_series))
        for r in summary:
            if r["tree"] == tree and r.get("engine") == "sequential":
                y = _f(r["nodes_per_sec_median"]) / 1e6
                lo, hi = _f(r["nodes_per_sec_ci_low"]), _f(r["nodes_per_sec_ci_high"])
                ax.errorbar([pc.dodge(n_series - 1, n_series)(1)], [y],
                            yerr=[[y - lo / 1e6 if lo else 0], [hi / 1e6 - y if hi else 0]], color="k",
                            marker="*", markersize=9, linestyle="none", capsize=2.5, label="uts --sequential")
                top = max(top, (hi or 0) / 1e6, y)
        pc.log2_axis(ax, xs_all)
        ax.set_xlabel(_x_label(summary))
        ax.set_ylabel("throughput (million nodes/s)")
        ax.set_ylim(0, top * 1.15 if top else 1)
        ax.set_title("%s: nodes per second" % tree)
        ax.grid(alpha=0.3)
        pc.hollow_legend(ax, any(_over(r) for r in tree_rows))
        ax.legend(loc="best")
    fig.tight_layout()
    pc.caption(fig, _common_caption(machine, summary, "Points: median nodes per second over",
                                    "95% bootstrap percentile CI of the median", _max_pus(summary)))
    return pc.save(fig, out, "nodes_per_sec")


# ---------------------------------------------------------------- work per thread

def plot_work_share(runs, out, machine):
    measured = [r for r in _parallel(runs) if str(r.get("warmup", "0")) == "0"]
    trees = _trees(measured)
    if not trees:
        return []
    with_ranks = _ranks_vary(measured)
    varying = _varying(measured)
    fig, axes = pc.panels(len(trees))
    ns = []
    for ax, tree in zip(axes[0], trees):
        tree_runs = [r for r in measured if r["tree"] == tree]
        fit = [_pes(r) for r in tree_runs if not _over(r)]
        p = max(fit) if fit else max(_pes(r) for r in tree_runs)  # the most PEs that fit the PUs
        keys = [k for k in _keys(tree_runs, with_ranks) if any(_pes(r) == p and _key(r, with_ranks) == k
                                                               for r in tree_runs)]
        width = 0.8 / max(1, len(keys))
        for i, key in enumerate(keys):
            cell = [r for r in tree_runs if _pes(r) == p and _key(r, with_ranks) == key]
            ns.append(len(cell))
            meds, los, his = [], [], []
            for t in range(p):
                shares = []
                for r in cell:
                    nodes = [int(x) for x in r["thread_nodes"].split(";")]
                    shares.append(100.0 * nodes[t] / sum(nodes))
                s = stats.summarize(shares)
                meds.append(s["median"])
                los.append(s["median"] - s["ci_low"] if s["ci_low"] is not None else 0)
                his.append(s["ci_high"] - s["median"] if s["ci_high"] is not None else 0)
            ax.bar([t + (i - (len(keys) - 1) / 2) * width for t in range(p)], meds, width=width,
                   yerr=[los, his], capsize=2, error_kw={"elinewidth": 0.8}, color="C%d" % (i % 10),
                   label=_label(key, varying) or tree)
        ax.axhline(100.0 / p, color="k", linestyle="--", linewidth=1, label="even share (%.1f%%)" % (100.0 / p))
        ax.set_xticks(range(p))
        ax.set_xlabel("PE (thread, rank by rank)" if _multi_rank(tree_runs) else "thread")
        ax.set_ylabel("share of the tree's nodes (%)")
        ax.set_ylim(0, max(ax.get_ylim()[1], 100.0 / p) * (1.2 + 0.06 * (len(keys) + 1)))
        over = any(_over(r) for r in tree_runs if _pes(r) == p)
        ax.set_title("%s: work per %s at %d %s%s" % (tree, "PE" if _multi_rank(tree_runs) else "thread", p,
                                                     "PEs" if _multi_rank(tree_runs) else "threads",
                                                     " (oversubscribed)" if over else ""))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(loc="upper right")
    fig.tight_layout()
    pc.caption(fig, ["Bars: median share of the tree's nodes each thread visited, over %s measured runs per "
                     "policy (%s). Error bars: 95%% bootstrap percentile CI of the median."
                     % (pc.n_text(ns), pc.warmup_text(machine)),
                     pc.machine_line(machine, _max_pus(measured), _pinning(measured))])
    return pc.save(fig, out, "work_share")


# ---------------------------------------------------------------- steal statistics

def plot_steal_stats(summary, out, machine):
    rows = [r for r in _parallel(summary) if _pes(r) > 1]
    if not rows:
        note("figure steal_stats not drawn: no cell with more than one PE")
        return []
    panels = [("steal_success_rate", "steal success rate (%)", 100.0),
              ("nodes_per_steal", "nodes per successful steal", 1.0),
              ("deques_examined_per_steal", "deques examined per successful steal", 1.0)]
    with_ranks = _ranks_vary(rows)
    varying = _varying(rows)
    multi_tree = len(_trees(rows)) > 1
    series = [(tree, key) for tree in _trees(rows) for key in _keys([r for r in rows if r["tree"] == tree],
                                                                     with_ranks)]
    fig, axes = pc.panels(len(panels), width=4.6)
    xs_all = sorted({_pes(r) for r in rows})
    for ax, (metric, ylabel, scale) in zip(axes[0], panels):
        pc.boundary_lines(ax, machine, max(xs_all))
        for i, (tree, key) in enumerate(series):
            pts = []
            for r in rows:
                if r["tree"] == tree and _key(r, with_ranks) == key and _f(r[metric + "_median"]) is not None:
                    lo, hi = _f(r[metric + "_ci_low"]), _f(r[metric + "_ci_high"])
                    pts.append((_pes(r), _f(r[metric + "_median"]) * scale, None if lo is None else lo * scale,
                                None if hi is None else hi * scale, _over(r)))
            if pts:
                label = (_label(key, varying) or tree)
                pc.series(ax, pts, "C%d" % (i % 10), (tree + ": " + label) if multi_tree else label,
                          shift=pc.dodge(i, len(series)))
        pc.log2_axis(ax, xs_all)
        ax.set_xlabel(_x_label(rows))
        ax.set_ylabel(ylabel)
        ax.set_title(ylabel[0].upper() + ylabel[1:])
        ax.set_ylim(0, 105 if metric == "steal_success_rate" else None)
        ax.grid(alpha=0.3)
    pc.hollow_legend(axes[0][-1], any(_over(r) for r in rows))
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    fig.tight_layout()
    pc.caption(fig, _common_caption(machine, rows, "Points: median over", "95% bootstrap percentile CI of the "
                                    "median", _max_pus(rows)))
    return pc.save(fig, out, "steal_stats")


# ---------------------------------------------------------------- hierarchy (remote delay)

def _delay_positions(delays):
    """Each positive delay at log10 of it; 0 one decade left of the smallest
    positive one, set apart by a break line. Returns ({delay: x}, break x)."""
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
    ax.set_xlabel("remote delay per remote probe or claim (log scale; 0 set apart)")
    return pos


def _hier_keys(rows):
    return sorted({study_data.policy_of(r)[:-1] + (_ranks(r), int(r["threads"])) for r in rows},
                  key=lambda k: (k[-1],) + k[:-1])


def _in_hier(r, key):
    return study_data.policy_of(r)[:-1] + (_ranks(r), int(r["threads"])) == key


def _hier_label(key, rows, short=False):
    keys = [k for k in study_data.POLICY_KEYS if k != "remote_delay_ns"]
    varying = _varying(rows) - {"remote_delay_ns"}
    row = dict(zip(keys, key[:-2]))
    parts = [row[k] if short else study_data.policy_label(row, {k}) for k in keys if k in varying]
    if "victim" not in varying:
        parts.insert(0, row["victim"] if short else "victim=" + row["victim"])
    if _ranks_vary(rows):
        parts.append("%d ranks" % key[-2])
    if len({int(r["threads"]) for r in rows}) > 1:
        parts.append("%d threads" % key[-1])
    return ("\n" if short else ", ").join(parts)


_VICTIM_STYLE = {"hier": ("-", "o"), "random": ("--", "s"), "linear": (":", "^"), "tree": ("-.", "D")}


def plot_hier_lines(summary, out, machine, name, metric, ylabel, scale=1.0):
    rows = [r for r in _parallel(summary) if _f(r[metric + "_median"]) is not None]
    trees = _trees(rows)
    if not rows:
        return []
    delays = sorted({int(r["remote_delay_ns"] or 0) for r in rows})
    fig, axes = pc.panels(len(trees))
    for ax, tree in zip(axes[0], trees):
        pos = _delay_axis(ax, delays)
        tree_rows = [r for r in rows if r["tree"] == tree]
        hkeys = _hier_keys(tree_rows)
        for i, key in enumerate(hkeys):
            pts = [(pos[int(r["remote_delay_ns"] or 0)], _f(r[metric + "_median"]) * scale,
                    None if _f(r[metric + "_ci_low"]) is None else _f(r[metric + "_ci_low"]) * scale,
                    None if _f(r[metric + "_ci_high"]) is None else _f(r[metric + "_ci_high"]) * scale, _over(r))
                   for r in tree_rows if _in_hier(r, key)]
            line, marker = _VICTIM_STYLE.get(key[study_data.POLICY_KEYS.index("victim")], ("-", "x"))
            # Along the delay every point of a line has the same threads: joined, hollow if oversubscribed.
            pc.series(ax, pts, "C%d" % (i % 10), _hier_label(key, rows), marker=marker, linestyle=line,
                      join_over=True, shift=pc.dodge(i, len(hkeys), log2=False, step=0.035))
        ax.set_ylabel(ylabel)
        threads = sorted({int(r["threads"]) for r in tree_rows})
        ax.set_title("%s%s: %s vs remote delay" % (tree, ", %d threads" % threads[0] if len(threads) == 1 else "",
                                                   ylabel.split(" (")[0]))
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        pc.hollow_legend(ax, any(_over(r) for r in tree_rows), joined=True)
        ax.legend(loc="best")
    fig.tight_layout()
    pc.caption(fig, _common_caption(machine, rows, "Points: median over",
                                    "95% bootstrap percentile CI of the median", _max_pus(rows), along_delay=True))
    return pc.save(fig, out, name)


def plot_hier_domain_share(runs, out, machine):
    measured = [r for r in _parallel(runs) if str(r.get("warmup", "0")) == "0" and r.get("domain_nodes")]
    if not measured:
        return []
    trees = _trees(measured)
    big = max(int(r["remote_delay_ns"] or 0) for r in measured)
    fig, axes = pc.panels(len(trees))
    ns = []
    for ax, tree in zip(axes[0], trees):
        cells = [r for r in measured if r["tree"] == tree and int(r["remote_delay_ns"] or 0) == big]
        groups = []
        for key in _hier_keys(cells):
            per_run = []
            for r in cells:
                if _in_hier(r, key):
                    nodes = [int(x) for x in r["domain_nodes"].split(";")]
                    per_run.append([100.0 * n / sum(nodes) for n in nodes])
            ns.append(len(per_run))
            count = min(len(p) for p in per_run)
            groups.append((key, [stats.summarize([p[d] for p in per_run]) for d in range(count)]))
        most = max((len(g) for _, g in groups), default=1)
        width = 0.8 / most
        for d in range(most):
            xs = [i + (d - (most - 1) / 2) * width for i, (_, g) in enumerate(groups) if d < len(g)]
            ss = [g[d] for _, g in groups if d < len(g)]
            ax.bar(xs, [s["median"] for s in ss], width=width, label="domain %d" % d, color="C%d" % (d % 10),
                   yerr=[[s["median"] - s["ci_low"] if s["ci_low"] is not None else 0 for s in ss],
                         [s["ci_high"] - s["median"] if s["ci_high"] is not None else 0 for s in ss]],
                   capsize=2, error_kw={"elinewidth": 0.8})
        for count in sorted({len(g) for _, g in groups}):
            ax.axhline(100.0 / count, color="k", linestyle="--", linewidth=1, label="even share (%.1f%%)"
                       % (100.0 / count))
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([_hier_label(k, measured, short=True) for k, _ in groups], fontsize=7)
        ax.set_ylabel("share of the tree's nodes (%)")
        top = max([100.0 / max(1, most)] + [s["ci_high"] or s["median"] for _, g in groups for s in g])
        ax.set_ylim(0, min(118.0, top * 1.35))
        threads = sorted({int(r["threads"]) for r in cells})
        ax.set_title("%s%s: nodes per domain at remote delay %s"
                     % (tree, ", %d threads" % threads[0] if len(threads) == 1 else "", _delay_text(big)))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(loc="upper right", ncol=2)
    fig.tight_layout()
    pc.caption(fig, ["Bars: median share of the tree's nodes visited by each domain's threads, over %s measured "
                     "runs (%s). Error bars: 95%% bootstrap percentile CI of the median."
                     % (pc.n_text(ns), pc.warmup_text(machine)),
                     pc.machine_line(machine, _max_pus(measured), _pinning(measured))])
    return pc.save(fig, out, "hier_domain_share")


def plot_hierarchy(runs, summary, out, machine):
    """The locality figures, for a study with more than one remote delay."""
    if len({int(r["remote_delay_ns"] or 0) for r in _parallel(summary)}) < 2:
        return []
    files = []
    for name, metric, ylabel in (("hier_time", "seconds", "time (s)"),
                                 ("hier_remote_steals", "remote_steals", "remote steals per run"),
                                 ("hier_nodes_per_remote_steal", "nodes_per_remote_steal",
                                  "nodes per remote steal")):
        files += plot_hier_lines(summary, out, machine, name, metric, ylabel)
    return files + plot_hier_domain_share(runs, out, machine)


# ---------------------------------------------------------------- MPI ranks

def plot_ranks(summary, out, machine):
    """ranks_speedup and ranks_global_steals: a line per ranks value against
    PEs, for a study with more than one ranks value."""
    par = _parallel(summary)
    if not _ranks_vary(par):
        return []
    files = []
    panels = [(tree, key) for tree in _trees(par) for key in _keys([r for r in par if r["tree"] == tree], False)]
    varying = _varying(par)
    all_ranks = sorted({_ranks(r) for r in par})
    for name, col, ylabel in (("ranks_speedup", "speedup_vs_1pe", "speedup over 1 PE: 1 rank x 1 thread"),
                              ("ranks_global_steals", "global_steals", "steals between ranks per run")):
        fig, axes = pc.panels(len(panels))
        drawn_rows = []
        for ax, (tree, key) in zip(axes[0], panels):
            rows = [r for r in par if r["tree"] == tree and study_data.policy_of(r) == key]
            xs_all = sorted({_pes(r) for r in rows})
            cores = pc.boundary_lines(ax, machine, max(xs_all))
            for i, ranks in enumerate(all_ranks):
                if col == "global_steals" and ranks == 1:
                    continue
                pts = []
                for r in rows:
                    if _ranks(r) != ranks:
                        continue
                    if col == "speedup_vs_1pe":
                        y, lo, hi = (_f(r[c]) for c in study_data.SPEEDUP_COLUMNS["1pe"])
                    else:
                        y, lo, hi = (_f(r["global_steals_" + c]) for c in study_data.CI)
                    if y is not None:
                        pts.append((_pes(r), y, lo, hi, _over(r)))
                        drawn_rows.append(r)
                if pts:
                    shift = pc.dodge(i, len(all_ranks))
                    pc.series(ax, pts, "C%d" % (i % 10), "%d rank%s" % (ranks, "" if ranks == 1 else "s"),
                              shift=shift)
                    for x, y, _, _, _ in pts:
                        r = next(r for r in rows if _ranks(r) == ranks and _pes(r) == x)
                        ax.annotate("%dx%s" % (ranks, r["threads"]), (shift(x), y), textcoords="offset points",
                                    xytext=(5, -10 - 8 * i), fontsize=6, color="C%d" % (i % 10))
            if col == "speedup_vs_1pe":
                top = min(cores or max(xs_all), max(xs_all))
                ax.plot([1, top], [1, top], "k--", linewidth=1, label="ideal (linear), to the core count")
            pc.log2_axis(ax, xs_all)
            ax.set_ylim(bottom=0)
            ax.set_xlabel("PEs (MPI ranks x threads per rank), log scale")
            ax.set_ylabel(ylabel)
            ax.set_title("%s: %s%s" % (tree, ylabel.split(":")[0], ("\n" + _label(key, varying)) if varying else ""))
            ax.grid(alpha=0.3)
            pc.hollow_legend(ax, any(_over(r) for r in rows))
            ax.legend(loc="best")
        fig.tight_layout()
        what = ("Speedup = median time at 1 rank x 1 thread / the cell's median time;" if col == "speedup_vs_1pe"
                else "Points: median steals between ranks (summed over the ranks) over")
        bars = ("95% bootstrap percentile CI of the ratio of medians, paired by repetition" if col ==
                "speedup_vs_1pe" else "95% bootstrap percentile CI of the median")
        pc.caption(fig, _common_caption(machine, drawn_rows or par, what, bars, _max_pus(par))
                   + ["Labels RxT: R ranks x T threads per rank."])
        files += pc.save(fig, out, name)
    return files


# ---------------------------------------------------------------- time breakdown

# The binary's parts of a thread's time (idle includes asleep), in the order
# they stack, with plot-trace's colours.
BREAKDOWN_PARTS = [("work", "time_work"), ("search", "time_search"), ("claim", "time_claim"),
                   ("idle", "time_idle"), ("termination", "time_termination"), ("agent", "time_agent")]
_BAR_HALF = 0.28  # a bar spans x * 2**-0.28 .. x * 2**0.28 on the log-2 axis


def _breakdown_runs(runs):
    """Measured parallel runs that carry the breakdown (an older uts: none)."""
    return [r for r in _parallel(runs) if str(r.get("warmup", "0")) == "0" and _f(r.get("time_total"))]


def _breakdown_cells(runs):
    """{(tree, key, pes): [runs]} with key = the policy (and ranks)."""
    with_ranks = _ranks_vary(runs)
    cells = {}
    for r in runs:
        cells.setdefault((r["tree"], _key(r, with_ranks), _pes(r)), []).append(r)
    return cells, with_ranks


def _seq_median(summary, tree):
    for r in summary:
        if r["tree"] == tree and r.get("engine") == "sequential" and _f(r.get("seconds_median")):
            return _f(r["seconds_median"])
    return None


def _bar_boundaries(ax, machine, xs):
    """The boundary lines of a bar chart over thread counts xs: half an
    octave right of the bar at the core count (and at one package's cores,
    at the PUs with SMT), so that no line runs through a bar; only where a
    larger x is drawn."""
    topo = pc.topology(machine)
    cores, pus, packages = topo.get("cores"), topo.get("pus"), topo.get("packages")
    marks = []
    if packages and packages > 1 and cores:
        marks.append((cores // packages, "1 package: %d cores" % (cores // packages), "0.45", "-."))
    if cores:
        marks.append((cores, "%d cores%s" % (cores, " = %d PUs" % pus if pus == cores else ""), "0.25", ":"))
    if pus and cores and pus > cores:
        marks.append((pus, "%d PUs (SMT)" % pus, "0.55", ":"))
    drawn = False
    for x, label, color, style in marks:
        right = [v for v in xs if v > x]
        left = [v for v in xs if v <= x]
        if right and left:
            at = (max(left) * min(right)) ** 0.5  # halfway between the neighbouring bars on the log axis
            ax.axvline(at, color=color, linestyle=style, linewidth=1.3, label=label + " (bars right: more threads)")
            drawn = True
    return drawn


def _time_scale(seconds):
    """(multiplier, unit) for a thread-seconds axis whose top is `seconds`."""
    if seconds >= 1.0:
        return 1.0, "s"
    if seconds >= 1e-3:
        return 1e3, "ms"
    return 1e6, "µs"


def _breakdown_bars(cell, parts, as_share):
    """The stacked values of one cell: as_share, each part's mean share (%) of
    the runs' summed thread time (the shares of a run add up to 100, so do
    their means); else each part's median thread-seconds. Also the largest
    sd of a share (as_share) and the median summed time with its CI."""
    values, sd = [], 0.0
    for _, column in parts:
        if as_share:
            v = [100.0 * (_f(r.get(column)) or 0.0) / _f(r["time_total"]) for r in cell]
            if len(v) > 1:
                sd = max(sd, stats.summarize(v)["std"] or 0.0)
            values.append(sum(v) / len(v))
        else:
            values.append(stats.summarize([_f(r.get(column)) or 0.0 for r in cell])["median"])
    total = None if as_share else stats.summarize([_f(r["time_total"]) for r in cell])
    return values, sd, total


def plot_breakdown(runs, summary, out, machine):
    """breakdown: per tree (row) and configuration (column), stacked bars of
    each part's mean share of the threads' summed time against PEs;
    breakdown_seconds: each part's median thread-seconds, the median summed
    time with its CI on top, and the --sequential cell's median time."""
    measured = _breakdown_runs(runs)
    if not measured:
        note("figures breakdown, breakdown_seconds not drawn: the runs carry no time breakdown (a uts older "
             "than the time breakdown)")
        return []
    from utstools import trace_plots  # the state colours plot-trace uses
    cells, with_ranks = _breakdown_cells(measured)
    parts = [(name, col) for name, col in BREAKDOWN_PARTS
             if name != "agent" or any(_f(r.get(col)) for r in measured)]
    varying = _varying(measured)
    trees = [t for t in _trees(summary) if any(r["tree"] == t for r in measured)]
    keys = sorted({k for (_, k, _) in cells})
    any_over = any(_over(r) for r in measured)
    files = []
    for name, as_share in (("breakdown", True), ("breakdown_seconds", False)):
        fig, axes = pc.panels(len(keys), rows=len(trees), width=4.3, height=3.5)
        spread = 0.0
        ns = []
        for row, tree in enumerate(trees):
            seq = _seq_median(summary, tree)
            bars = {(k, p): _breakdown_bars(c, parts, as_share) for (t, k, p), c in cells.items() if t == tree}
            if as_share:
                scale, unit, top = 1.0, "%", 100.0
            else:  # one scale per tree, so that its configurations compare at a glance
                most = max([max(sum(v), tot["ci_high"] or tot["median"]) for v, _, tot in bars.values()]
                           + [seq or 0.0])
                scale, unit = _time_scale(most)
                top = most * scale * 1.12
            for col, key in enumerate(keys):
                ax = axes[row][col]
                pes = sorted(p for (k, p) in bars if k == key)
                if not pes:
                    ax.set_axis_off()
                    continue
                _bar_boundaries(ax, machine, pes)
                for p in pes:
                    cell = cells[(tree, key, p)]
                    ns.append(len(cell))
                    over = any(_over(r) for r in cell)
                    left, width = p * 2 ** -_BAR_HALF, p * (2 ** _BAR_HALF - 2 ** -_BAR_HALF)
                    values, sd, total = bars[(key, p)]
                    spread = max(spread, sd)
                    bottom = 0.0
                    for (part, _), v in zip(parts, values):
                        ax.bar([left], [v * scale], width=[width], bottom=[bottom], align="edge",
                               color=trace_plots.STATE_COLORS[part], linewidth=0,
                               hatch="///" if over else None, edgecolor="white" if over else None)
                        bottom += v * scale
                    if total is not None:
                        m = total["median"] * scale
                        lo = (total["ci_low"] if total["ci_low"] is not None else total["median"]) * scale
                        hi = (total["ci_high"] if total["ci_high"] is not None else total["median"]) * scale
                        ax.errorbar([p], [m], yerr=[[m - lo], [hi - m]], color="k", marker="_", markersize=14,
                                    capsize=3, elinewidth=0.9, linestyle="none", zorder=4,
                                    label="median summed thread time, 95% CI" if (row, col) == (0, len(keys) - 1)
                                    and p == pes[0] else None)
                if not as_share and seq:
                    ax.axhline(seq * scale, color="k", linestyle="--", linewidth=1.0,
                               label="uts --sequential: median time" if (row, col) == (0, len(keys) - 1) else None)
                pc.log2_axis(ax, pes)
                ax.set_xlim(min(pes) * 2 ** -0.6, max(pes) * 2 ** 0.6)
                ax.set_ylim(0, top)
                ax.set_xlabel(_x_label(measured))
                if col == 0:
                    ax.set_ylabel("share of the threads' summed time (%)" if as_share
                                  else "thread time, summed over threads (%s)" % unit)
                label = _label(key, varying)
                ax.set_title("%s%s" % (tree, ("\n" + textwrap.fill(label, 44)) if label else ""), fontsize=9)
                ax.grid(alpha=0.3, axis="y")
        handles = [plt.Rectangle((0, 0), 1, 1, color=trace_plots.STATE_COLORS[p]) for p, _ in parts][::-1]
        labels = [p for p, _ in parts][::-1]
        if any_over:
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="0.6", hatch="///", edgecolor="white"))
            labels.append("hatched: oversubscribed")
        extra_h, extra_l = axes[0][len(keys) - 1].get_legend_handles_labels()
        axes[0][len(keys) - 1].legend(extra_h + handles, extra_l + labels, loc="upper left",
                                      bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        fig.tight_layout()
        if as_share:
            what = ("Bars: each part's share of the run's summed thread time (time_total), mean over %s measured "
                    "runs per cell (%s), so the parts add up to 100%%; no error bars: the largest standard deviation "
                    "of a share over a cell's runs is %.1f percentage points (each part's median and CI in seconds "
                    "are in summary.csv)." % (pc.n_text(ns), pc.warmup_text(machine), spread))
        else:
            what = ("Bars: each part's median over %s measured runs per cell (%s) of its seconds summed over the "
                    "run's threads; medians of the parts need not add up to the median total, drawn as a black mark "
                    "with its 95%% bootstrap percentile CI (error bar). Dashed: the --sequential run's median time, "
                    "what the work would take without work inflation. One y scale per tree."
                    % (pc.n_text(ns), pc.warmup_text(machine)))
        lines = [what,
                 "Parts as uts reports them per thread: work = expanding nodes; search = probing victims until a "
                 "claim succeeds; claim = the successful steal; idle = backing off and asleep; termination = from "
                 "the last search's start to the thread's end%s." % ("; agent = the MPI rank agent (thread 0)"
                                                                     if any(p == "agent" for p, _ in parts) else ""),
                 ("Hatched bars: more threads than PUs available (oversubscribed): a thread's time then includes "
                  "time it waited for a PU. " if any_over else "")
                 + "Dotted vertical lines: the machine's boundaries, drawn between the bars.",
                 pc.machine_line(machine, _max_pus(measured), _pinning(measured))]
        pc.caption(fig, lines)
        files += pc.save(fig, out, name)
    return files


def plot_work_inflation(summary, out, machine):
    rows = [r for r in _parallel(summary) if _f(r.get("work_inflation")) is not None]
    if not rows:
        if any(_f(r.get("time_work_median")) for r in summary):
            note("figure work_inflation not drawn: the study has no --sequential cell to compare with")
        return []
    with_ranks = _ranks_vary(rows)
    varying = _varying(rows)
    trees = _trees(rows)
    fig, axes = pc.panels(len(trees))
    for ax, tree in zip(axes[0], trees):
        tree_rows = [r for r in rows if r["tree"] == tree]
        xs_all = sorted({_pes(r) for r in tree_rows})
        pc.boundary_lines(ax, machine, max(xs_all))
        keys = _keys(tree_rows, with_ranks)
        highs = [1.0]
        for i, key in enumerate(keys):
            pts = [(_pes(r), _f(r["work_inflation"]), _f(r.get("work_inflation_ci_low")),
                    _f(r.get("work_inflation_ci_high")), _over(r)) for r in tree_rows if _key(r, with_ranks) == key]
            highs += [p[3] or p[1] for p in pts]
            pc.series(ax, pts, "C%d" % (i % 10), _label(key, varying) or tree, shift=pc.dodge(i, len(keys)))
        ax.axhline(1.0, color="k", linestyle="--", linewidth=1, label="1: no inflation")
        pc.log2_axis(ax, xs_all)
        ax.set_ylim(0, max(highs) * 1.15)
        ax.set_xlabel(_x_label(rows))
        ax.set_ylabel("work inflation = work time summed over threads\n/ --sequential time")
        ax.set_title("%s: work inflation" % tree)
        ax.grid(alpha=0.3)
        pc.hollow_legend(ax, any(_over(r) for r in tree_rows))
        ax.legend(loc="best")
    fig.tight_layout()
    lines = _common_caption(machine, rows, "Work inflation = the cell's median time_work (summed over its threads) / "
                            "the median time of uts --sequential on the same tree, computed by the study; points over",
                            "95% bootstrap percentile CI of the ratio of medians, paired by repetition",
                            _max_pus(rows))
    lines.insert(1, "Above 1: the same nodes take longer in parallel (cache misses, contention, and the engine's "
                    "per-node work); oversubscribed threads count time spent waiting for a PU as work.")
    pc.caption(fig, lines)
    return pc.save(fig, out, "work_inflation")


def plot_all(out, machine):
    """Every figure the study's data supports; returns the files written."""
    runs = study_data.read_csv(os.path.join(out, "runs.csv"))
    summary = study_data.read_csv(os.path.join(out, "summary.csv"))
    if not runs or not summary:
        raise ValueError("%s: runs.csv or summary.csv is empty" % out)
    files = []
    for base in ("1pe", "seq"):
        files += plot_speedup(summary, out, machine, base, efficiency=False)
        files += plot_speedup(summary, out, machine, base, efficiency=True)
    files += plot_rate(summary, out, machine)
    files += plot_work_share(runs, out, machine)
    files += plot_steal_stats(summary, out, machine)
    files += plot_hierarchy(runs, summary, out, machine)
    files += plot_ranks(summary, out, machine)
    files += plot_breakdown(runs, summary, out, machine)
    files += plot_work_inflation(summary, out, machine)
    return files


