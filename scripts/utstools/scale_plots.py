"""scripts/scale-study's figures: efficiency and termination
latency against simulated ranks (log-2 axes), with the published anchors,
and where the rank-time goes. Every point is one deterministic simulated
run (n = 1, no error bars: a repeat gives the same figures)."""
from utstools import plot_common as pc

COLORS = {"lifeline/tree": "tab:blue", "random/ring": "tab:red", "lifeline/ring": "tab:green",
          "random/tree": "tab:orange"}
STYLES = {"fat-tree-ib": "-", "ethernet": "--"}
MARKERS = {"T1L": "o", "T3L": "s", "T1XL": "^", "T1XXL": "D"}
LABEL = {"fat-tree-ib": "fat-tree IB", "ethernet": "Ethernet"}


def _caption_lines(doc, what):
    mach, build = doc.get("machine") or {}, doc.get("build") or {}
    m = "%s; uts commit %s%s (from the binary); %s" % (
        mach.get("cpu_model") or "unknown CPU", (build.get("commit") or "?")[:12],
        "-dirty" if build.get("commit_dirty") else "", build.get("compiler") or "?")
    comp = ("computation modelled at one real rank's rate of this machine (uts-smpi --model-rate; per tree: %s)" % (
        ", ".join("%s %.1f M nodes/s" % (t, r / 1e6) for t, r in (doc.get("model_rates") or {}).items()))
        if doc.get("computation") == "modelled" else "computation timed by SMPI")
    return [what, "Simulated with %s on configs/smpi/fat-tree-ib.xml (solid) and ethernet.xml (dashed): one "
            "simulated rank per host, 1 thread per rank; %s. n = 1 per point: the simulation is deterministic "
            "(a repeat gives the same figures), so there are no error bars. Simulated ranks, not cores of this "
            "machine: the simulator ran on %s (2 cores)." % (doc.get("simgrid") or "SimGrid", comp, m)]


def _lines(ax, rows, key, scale=1.0):
    seen = {}
    for r in rows:
        seen.setdefault((r["tree"], r["platform"], r["mode"]), []).append(r)
    for (tree, pl, mode), pts in seen.items():
        pts = [p for p in sorted(pts, key=lambda p: p["ranks"]) if p.get(key) is not None]
        if not pts:
            continue
        ax.plot([p["ranks"] for p in pts], [p[key] * scale for p in pts], STYLES.get(pl, ":"),
                color=COLORS.get(mode, "k"), marker=MARKERS.get(tree, "o"), ms=3.5, lw=1.2,
                label="%s, %s, %s" % (tree, LABEL.get(pl, pl), mode))


def draw(rows, doc, out):
    rows = [r for r in rows if r["ranks"] > 1]
    if not rows:
        return []
    files = []
    trees = list(dict.fromkeys(r["tree"] for r in rows))
    ranks = sorted({r["ranks"] for r in rows})
    # Efficiency.
    fig, axes = pc.panels(len(trees), width=4.6, height=5.6)
    for ax, tree in zip(axes[0], trees):
        _lines(ax, [r for r in rows if r["tree"] == tree], "efficiency")
        pc.log2_axis(ax, ranks)
        ax.set_ylim(0, 1.08)
        ax.axhline(1.0, color="0.8", lw=0.8)
        ax.plot([1024], [0.80], "*", color="k", ms=9, label="Olivier & Prins 2008: 80% at 1,024 (measured)")
        ax.annotate("X10 GLB: near-linear to 16K cores\n(stated in the paper; no point)", xy=(ranks[-1], 0.985),
                    xytext=(0.02, 0.90), textcoords="axes fraction", fontsize=6.5, color="0.35",
                    arrowprops={"arrowstyle": "->", "color": "0.5", "lw": 0.7})
        if tree == "T1XXL":
            ax.plot([1024, 4096], [0.85, 0.70], "x", color="purple", ms=7, mew=1.5,
                    label="the scale model's goal (fat-tree)")
        ax.set_title(tree)
        ax.set_xlabel("simulated ranks (1 thread each)")
        ax.set_ylabel("efficiency T(1) / (P T(P))")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=6, ncol=1, frameon=False)
    fig.subplots_adjust(bottom=0.42)
    pc.caption(fig, _caption_lines(doc, "Efficiency against one simulated rank of the same tree and platform."))
    files += pc.save(fig, out, "efficiency")
    # Termination latency.
    plats = list(dict.fromkeys(r["platform"] for r in rows))
    fig, axes = pc.panels(len(plats), width=5.6, height=5.6)
    for ax, pl in zip(axes[0], plats):
        _lines(ax, [r for r in rows if r["platform"] == pl], "termination_latency_s", 1e6)
        pc.log2_axis(ax, ranks)
        ax.set_yscale("log")
        fig.subplots_adjust(bottom=0.40)
        ax.set_title(LABEL.get(pl, pl))
        ax.set_xlabel("simulated ranks (1 thread each)")
        ax.set_ylabel("termination latency (simulated us)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=6, ncol=2, frameon=False)
    pc.caption(fig, _caption_lines(doc, "Termination latency: from the end of the last work on any rank to the "
                                        "moment the last rank knows the job is over (ring: Dijkstra-Safra token, "
                                        "2P hops; tree: four-counter waves, O(log P) hops)."))
    files += pc.save(fig, out, "latency")
    # Where the rank-time goes, for each tree's first series (the default mode on the fat-tree when run).
    firsts = []
    for tree in trees:
        keys = [(r["platform"], r["mode"]) for r in rows if r["tree"] == tree]
        pick = ("fat-tree-ib", "lifeline/tree") if ("fat-tree-ib", "lifeline/tree") in keys else keys[0]
        firsts.append((tree,) + pick)
    fig, axes = pc.panels(len(firsts), width=4.4, height=5.0)
    parts = [("work_share", "work", "tab:green"), ("ramp_share", "ramp-up (before a rank's first nodes)", "tab:orange"),
             ("between_share", "idle between work", "tab:gray"),
             ("drain_share", "drain (after a rank's last work)", "tab:red")]
    for ax, (tree, pl, mode) in zip(axes[0], firsts):
        pts = sorted([r for r in rows if (r["tree"], r["platform"], r["mode"]) == (tree, pl, mode)],
                     key=lambda r: r["ranks"])
        xs = list(range(len(pts)))
        bottom = [0.0] * len(pts)
        for key, label, color in parts:
            vals = [p.get(key) or 0.0 for p in pts]
            ax.bar(xs, vals, bottom=bottom, color=color, label=label, width=0.75)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(xs)
        ax.set_xticklabels([str(p["ranks"]) for p in pts], rotation=45, fontsize=7)
        ax.set_ylim(0, 1.0)
        ax.set_title("%s, %s, %s" % (tree, LABEL.get(pl, pl), mode), fontsize=8.5)
        ax.set_xlabel("simulated ranks")
        ax.set_ylabel("share of P x T(P)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize=6, frameon=False)
    pc.caption(fig, _caption_lines(doc, "Where the rank-time P T(P) goes: work (modelled), the ramp-up of each "
                                        "rank (from the start to its first nodes from another rank), its drain "
                                        "(from its last work to the end, termination included), and idle time "
                                        "between (searching, waiting for answers, dormant)."))
    fig.subplots_adjust(bottom=0.38)
    files += pc.save(fig, out, "breakdown")
    return files
