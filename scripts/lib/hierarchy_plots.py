"""Plots of the locality study (scripts/hierarchy-study): against the remote
delay, one line per victim policy and tree: time, remote steals, nodes per
remote steal; and each domain's share of the nodes at the largest delay."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import plot_common  # noqa: E402


def _x(delay):
    return max(delay, 100) / 1000.0  # µs; 0 drawn at 0.1 µs on the log axis


def _save(fig, out, name):
    fig.tight_layout()
    plot_common.save(fig, out, name)


def draw(out, summary, runs):
    keys = sorted({(s["tree"], s["threads"], s["victim"]) for s in summary})
    delays = sorted({s["remote_delay_ns"] for s in summary})
    for metric, label, name in (("median_seconds", "wall time (s, median; bars min-max)", "hier_time"),
                                ("median_remote_steals", "remote steals (median)", "hier_remote_steals"),
                                ("median_nodes_per_remote_steal", "nodes per remote steal (median)",
                                 "hier_nodes_per_remote_steal")):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for tree, threads, victim in keys:
            pts = sorted((s for s in summary if (s["tree"], s["threads"], s["victim"]) == (tree, threads, victim)),
                         key=lambda s: s["remote_delay_ns"])
            xs = [_x(s["remote_delay_ns"]) for s in pts]
            ys = [s[metric] for s in pts]
            style = "-o" if victim == "hier" else "--s"
            if metric == "median_seconds":
                lo = [s["median_seconds"] - s["min_seconds"] for s in pts]
                hi = [s["max_seconds"] - s["median_seconds"] for s in pts]
                ax.errorbar(xs, ys, yerr=[lo, hi], fmt=style, capsize=3, label="%s, %d threads, %s" % (tree, threads, victim))
            else:
                ax.plot(xs, ys, style, label="%s, %d threads, %s" % (tree, threads, victim))
        ax.set_xscale("log")
        ax.set_xticks([_x(d) for d in delays])
        ax.set_xticklabels(["0" if d == 0 else "%g" % (d / 1000.0) for d in delays])
        ax.set_xlabel("remote delay (µs per remote probe or claim)")
        ax.set_ylabel(label)
        if metric != "median_seconds":
            ax.set_yscale("symlog")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        _save(fig, out, name)
    # Each domain's share of the nodes at the largest delay (median over reps).
    big = delays[-1]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels, shares = [], []
    for tree, threads, victim in keys:
        rs = [r for r in runs if (r["tree"], r["threads"], r["victim"], r["remote_delay_ns"]) ==
              (tree, threads, victim, big)]
        if not rs:
            continue
        per = list(zip(*[[float(x) for x in r["domain_node_shares"].split()] for r in rs]))
        labels.append("%s\n%s" % (tree, victim))
        shares.append([sorted(p)[len(p) // 2] for p in per])
    width = 0.8 / max(len(s) for s in shares)
    for d in range(max(len(s) for s in shares)):
        ax.bar([i + d * width for i in range(len(shares))], [s[d] if d < len(s) else 0 for s in shares], width,
               label="domain %d" % d)
    ax.set_xticks([i + width * (len(shares[0]) - 1) / 2 for i in range(len(shares))])
    ax.set_xticklabels(labels, fontsize=8)
    ax.axhline(1.0 / len(shares[0]), color="grey", lw=0.8, ls=":")
    ax.set_ylabel("share of the nodes (median)")
    ax.set_title("each domain's share of the nodes at remote delay %g µs" % (big / 1000.0))
    ax.legend(fontsize=8)
    _save(fig, out, "hier_domain_share")
