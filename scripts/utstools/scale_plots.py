"""scripts/scale-study's figures: efficiency (strong, with an earlier set's
curves dashed beside it, and weak) and termination latency against
simulated ranks (log-2 axes), with the published anchors and the goals,
and where the rank-time goes. Every point is one deterministic simulated
run (n = 1, no error bars: a repeat gives the same figures)."""
from utstools import plot_common as pc

COLORS = {"lifeline/tree": "tab:blue", "random/ring": "tab:red", "lifeline/ring": "tab:green",
          "random/tree": "tab:orange"}
# Dashed is the baseline set's (an earlier commit's curves), so Ethernet is dash-dot.
STYLES = {"fat-tree-ib": "-", "ethernet": "-."}
MARKERS = {"T1L": "o", "T3L": "s", "T1XL": "^", "T1XXL": "D"}
LABEL = {"fat-tree-ib": "fat-tree IB", "ethernet": "Ethernet"}


SOURCES = {"table": "the table of today's fastest core (Zen 5, AVX-512 hashing)", "option": "given with --rate",
           "measured": "one real rank of the simulating machine"}


def rates_text(doc):
    """The modelled rates, grouped by source: trees of one rate together
    ('T1/T1L 190.0'); sets before rate sources were recorded measured theirs."""
    by_source = {}
    for t, r in (doc.get("model_rates") or {}).items():
        src = (doc.get("rate_sources") or {}).get(t, "measured")
        by_source.setdefault(src, {}).setdefault(r, []).append(t)
    return "; ".join("%s M nodes/s (%s)" % (", ".join("%s %.1f" % ("/".join(ts), r / 1e6) for r, ts in rates.items()),
                                            SOURCES.get(src, src)) for src, rates in by_source.items())


def _caption_lines(doc, what, baseline=None):
    mach, build = doc.get("machine") or {}, doc.get("build") or {}
    m = "%s; uts commit %s%s (from the binary); %s" % (
        mach.get("cpu_model") or "unknown CPU", (build.get("commit") or "?")[:12],
        "-dirty" if build.get("commit_dirty") else "", build.get("compiler") or "?")
    comp = ("computation modelled (uts-smpi --model-rate) at %s" % rates_text(doc)
            if doc.get("computation") == "modelled" else "computation timed by SMPI")
    if doc.get("uts_args"):
        comp += "; every run with %s" % " ".join(doc["uts_args"])
    if baseline:
        comp += "; dashed, pale: the same tree, platform and mode in the %s set, at its own rate (in the legend)" % (
            (baseline.get("started") or "earlier")[:10])
    return [what, "Simulated with %s on configs/smpi/fat-tree-ib.xml (solid) and ethernet.xml (dash-dot): one "
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


def _baseline_label(bdoc, tree=None):
    """What the earlier set was: its date, its own rate (the tree's, or the
    range over its trees) and whether its MPI calls cost anything."""
    rates = bdoc.get("model_rates") or {}
    if tree in rates:
        rate = "%.1f" % (rates[tree] / 1e6)
    elif rates:
        rate = "%.1f-%.1f" % (min(rates.values()) / 1e6, max(rates.values()) / 1e6)
    else:
        rate = "?"
    calls = {None: "", 0.0: ", MPI calls free"}.get(bdoc.get("iprobe_seconds"), ", MPI calls charged")
    return "%s set (%s M nodes/s%s)" % ((bdoc.get("started") or "earlier")[:10], rate, calls)


def _baseline_lines(ax, bdoc, tree, have, span):
    """The earlier set's curves for this tree, those (platform, mode) pairs
    this set has too, within this set's rank counts (span: low, high),
    dashed and pale, one legend entry each."""
    label = _baseline_label(bdoc, tree)
    drew = False
    for pl, mode in have:
        pts = sorted([p for p in bdoc.get("points") or []
                      if (p["tree"], p["platform"], p["mode"]) == (tree, pl, mode)
                      and max(2, span[0]) <= p["ranks"] <= span[1] and p.get("efficiency") is not None
                      and p.get("series", "strong") == "strong"], key=lambda p: p["ranks"])
        if pts:
            ax.plot([p["ranks"] for p in pts], [p["efficiency"] for p in pts], "--", color=COLORS.get(mode, "k"),
                    alpha=0.55, marker=MARKERS.get(tree, "o"), mfc="none", ms=3.5, lw=1.0,
                    label="%s, %s, %s: %s" % (tree, LABEL.get(pl, pl), mode, label))
            drew = True
    return drew


def draw(rows, doc, out, baseline=None):
    rows = [r for r in rows if r["ranks"] > 1]
    if not rows:
        return []
    files = []
    weak = [r for r in rows if r.get("series") == "weak"]
    rows = [r for r in rows if r.get("series", "strong") == "strong"]
    if baseline is not None and baseline.get("started") == doc.get("started"):
        baseline = None  # a set is not its own baseline (--replot of the baseline set)
    if weak:
        files += _weak(weak, doc, out)
    if not rows:
        return files
    trees = list(dict.fromkeys(r["tree"] for r in rows))
    ranks = sorted({r["ranks"] for r in rows})
    # Efficiency.
    fig, axes = pc.panels(len(trees), width=4.6, height=5.6)
    drew_baseline = False
    for ax, tree in zip(axes[0], trees):
        mine = [r for r in rows if r["tree"] == tree]
        _lines(ax, mine, "efficiency")
        if baseline and _baseline_lines(ax, baseline, tree,
                                        list(dict.fromkeys((r["platform"], r["mode"]) for r in mine)),
                                        (ranks[0], ranks[-1])):
            drew_baseline = True
        pc.log2_axis(ax, ranks)
        ax.set_ylim(0, 1.08)
        ax.axhline(1.0, color="0.8", lw=0.8)
        ax.plot([1024], [0.80], "*", color="k", ms=9, label="Olivier & Prins 2008: 80% at 1,024 (measured)")
        ax.annotate("X10 GLB: near-linear to 16K cores\n(stated in the paper; no point)", xy=(ranks[-1], 0.985),
                    xytext=(0.02, 0.90), textcoords="axes fraction", fontsize=6.5, color="0.35",
                    arrowprops={"arrowstyle": "->", "color": "0.5", "lw": 0.7})
        if tree == "T1XXL":
            ax.plot([1024, 4096], [0.90, 0.80], "x", color="purple", ms=8, mew=1.8,
                    label="the goal: 0.90 at 1,024, 0.80 at 4,096 ranks (fat-tree)")
        ax.set_title(tree)
        ax.set_xlabel("simulated ranks (1 thread each)")
        ax.set_ylabel("efficiency T(1) / (P T(P))")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=6, ncol=1, frameon=False)
    fig.subplots_adjust(bottom=0.42)
    pc.caption(fig, _caption_lines(doc, "Efficiency against one simulated rank of the same tree and platform.",
                                   baseline if drew_baseline else None))
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


def _weak(rows, doc, out):
    """Weak scaling: a tree per rank count (about 4.1 M nodes a rank), its
    efficiency (nodes / rate) / (P T(P)) against ranks, the 0.9 line."""
    fig, axes = pc.panels(1, width=5.6, height=5.2)
    ax = axes[0][0]
    seen = {}
    for r in rows:
        seen.setdefault((r["platform"], r["mode"]), []).append(r)
    for (pl, mode), pts in seen.items():
        pts = sorted(pts, key=lambda p: p["ranks"])
        ax.plot([p["ranks"] for p in pts], [p["efficiency"] for p in pts], STYLES.get(pl, ":"),
                color=COLORS.get(mode, "k"), marker="o", ms=4, lw=1.2,
                label="weak series, %s, %s" % (LABEL.get(pl, pl), mode))
        for p in pts:
            ax.annotate("%s\n%.2f G" % (p["tree"], p["nodes"] / 1e9), (p["ranks"], p["efficiency"]),
                        textcoords="offset points", xytext=(0, -22), ha="center", fontsize=6, color="0.3")
    ax.axhline(0.9, color="purple", lw=0.9, ls="--", label="0.9")
    ax.axhline(1.0, color="0.8", lw=0.8)
    pc.log2_axis(ax, sorted({r["ranks"] for r in rows}))
    ax.set_ylim(0, 1.08)
    ax.set_title("Weak scaling: T1XXL's family, depth + 1 per 4x ranks")
    ax.set_xlabel("simulated ranks (1 thread each)")
    ax.set_ylabel("weak efficiency (nodes / rate) / (P T(P))")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=6.5, frameon=False)
    fig.subplots_adjust(bottom=0.36)
    pc.caption(fig, _caption_lines(doc, "Weak scaling: geometric trees -t 1 -a 3 -b 4 -r 19 at depth 12 (16 ranks) "
                                        "to 16 (4,096 ranks), about 4.1 M nodes a rank (configs/smpi/weak-trees.csv, "
                                        "each point checked against it). Weak efficiency = T(1) / (P T(P)) with "
                                        "T(1) = nodes / rate, what one modelled rank takes."))
    return pc.save(fig, out, "weak")
