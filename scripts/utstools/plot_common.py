"""What every study figure shares (docs/studies.md, "Figures"): the Agg
backend (no display needed), PNG + SVG (or the formats named in
UTS_FIGURE_FORMATS, e.g. "pdf" or "svg,pdf"), log-2 thread axes with a labelled
tick at each power of two, the core-count (and package, SMT) boundary
lines from machine.json's topology, oversubscribed points hollow and not
joined to the curve, and the caption under the figure: n, the statistic,
what the error bars are, and the machine line. Needs matplotlib (Debian:
python3-matplotlib)."""
import math
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from utstools import figure_formats

FORMATS = figure_formats.formats()
plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "legend.fontsize": 7.5, "svg.fonttype": "none"})


def save(fig, out_dir, name):
    """Writes NAME.png and NAME.svg (or the FORMATS chosen) into out_dir,
    closes the figure, returns the paths."""
    files = []
    for fmt in FORMATS:
        path = os.path.join(out_dir, "%s.%s" % (name, fmt))
        fig.savefig(path, dpi=150, bbox_inches="tight", pad_inches=0.1)
        files.append(path)
    plt.close(fig)
    return files


def panels(n, rows=1, width=5.0, height=3.9):
    fig, axes = plt.subplots(rows, n, figsize=(width * n, height * rows), squeeze=False)
    return fig, axes


def _number(v):
    """A tick label: 0.5 as 1/2, 0.25 as 1/4 (powers of two below 1), else %g."""
    if 0 < v < 1:
        inv = 1.0 / v
        if abs(inv - round(inv)) < 1e-9:
            return "1/%d" % round(inv)
    return "%g" % v


def log2_axis(ax, values, which="x"):
    """A log-2 axis over `values` (> 0): a labelled tick at each power of two
    in range and at each value given, no unlabelled minor ticks."""
    values = sorted({float(v) for v in values if v and v > 0})
    if not values:
        return
    lo, hi = values[0], values[-1]
    powers = [2.0 ** k for k in range(int(math.floor(math.log2(lo))), int(math.ceil(math.log2(hi))) + 1)]
    ticks = sorted(set(powers) | (set(values) if len(values) <= 10 else set()))
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=2)
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _p: _number(v)))
    axis.set_minor_locator(NullLocator())
    pad = 2 ** 0.3
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo / pad, hi * pad)


def log2_speedup_axis(ax, lows, highs):
    """A log-2 y axis for speedups: labelled ticks at powers of two and, when
    the range spans at most four octaves, at 1.5 x each power too."""
    vals = [v for v in list(lows) + list(highs) + [1.0] if v and v > 0]
    lo, hi = min(vals) / 1.15, max(vals) * 1.15
    ax.set_yscale("log", base=2)
    k0, k1 = int(math.floor(math.log2(lo))), int(math.ceil(math.log2(hi)))
    step = 1 if k1 - k0 <= 8 else 2
    ticks = [2.0 ** k for k in range(k0, k1 + 1) if (k - k0) % step == 0 or k == 0]
    if k1 - k0 <= 4:
        ticks += [1.5 * 2.0 ** k for k in range(k0, k1 + 1)]
    ticks = sorted(t for t in ticks if lo <= t <= hi)
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: _number(v)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(lo, hi)


def topology(machine):
    return ((machine or {}).get("machine") or {}).get("topology") or {}


def boundary_lines(ax, machine, xmax):
    """Vertical lines at the core count and, where the topology has them, at
    one package's cores and at the PU count (SMT), each in the legend; a
    boundary past the largest x drawn is left out (the caption's machine
    line gives the topology). Returns the core count (None if unknown)."""
    topo = topology(machine)
    cores, pus, packages = topo.get("cores"), topo.get("pus"), topo.get("packages")
    allowed = topo.get("allowed_pus")
    limit = xmax * 1.01

    def line(x, label, **kw):
        if x and x <= limit:
            ax.axvline(x, label=label, **kw)

    if packages and packages > 1 and cores:
        line(cores // packages, "1 package: %d cores" % (cores // packages), color="0.45", linestyle="-.",
             linewidth=0.9)
    if cores:
        line(cores, "%d cores%s" % (cores, " = %d PUs" % pus if pus == cores else ""), color="0.25",
             linestyle=":", linewidth=1.3)
    if pus and cores and pus > cores:
        line(pus, "%d PUs (SMT)" % pus, color="0.55", linestyle=":", linewidth=1.1)
    if allowed and pus and allowed < pus:
        line(allowed, "%d PUs allowed to this study" % allowed, color="tab:red", linestyle=":", linewidth=1.0)
    return cores


def dodge(i, n, log2=True, step=0.045):
    """A function moving series i of n slightly sideways, so that the error
    bars of several series at one x do not hide each other: x * 2**d on a
    log-2 axis, x + d otherwise (d = step x (i - (n - 1) / 2))."""
    d = step * (i - (n - 1) / 2.0)
    return (lambda x: x * 2.0 ** d) if log2 else (lambda x: x + d)


DODGE_NOTE = "Series that share an x are drawn slightly apart sideways, so that their error bars do not overlap."


def series(ax, points, color, label, marker="o", linestyle="-", join_over=False, shift=None):
    """points: [(x, y, lo, hi, oversubscribed)] (lo/hi None: no bar). The
    points that fit the PUs are joined by a line; oversubscribed points are
    drawn hollow, with their bars, and not joined (join_over: a line whose
    x is not the thread count, e.g. the remote delay, joins them too).
    shift: dodge()'s function, applied to x."""
    shift = shift or (lambda x: x)
    points = sorted(((shift(p[0]),) + tuple(p[1:]) for p in points), key=lambda p: p[0])
    if join_over and points:
        ax.plot([p[0] for p in points], [p[1] for p in points], color=color, linestyle=linestyle, linewidth=1.2)
    for over in (False, True):
        pts = [p for p in points if bool(p[4]) == over]
        if not pts:
            continue
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        yerr = [[max(0.0, p[1] - p[2]) if p[2] is not None else 0.0 for p in pts],
                [max(0.0, p[3] - p[1]) if p[3] is not None else 0.0 for p in pts]]
        kw = dict(color=color, marker=marker, markersize=5, capsize=2.5, elinewidth=0.8, linewidth=1.4)
        if over:
            ax.errorbar(xs, ys, yerr=yerr, linestyle="none", markerfacecolor="white", markeredgewidth=1.2,
                        label=None, **kw)
        else:
            ax.errorbar(xs, ys, yerr=yerr, linestyle=linestyle, label=label, **kw)
    if not any(not p[4] for p in points):  # only oversubscribed points: still name the series
        ax.plot([], [], color=color, marker=marker, markerfacecolor="white",
                linestyle=linestyle if join_over else "none", label=label)


def hollow_legend(ax, any_over, joined=False):
    """A legend entry that says what hollow markers are."""
    if any_over:
        ax.plot([], [], marker="o", color="0.3", markerfacecolor="white", linestyle="none",
                label="hollow: oversubscribed" + ("" if joined else " (not joined)"))


def machine_line(machine, pus_used=None, pinning=None):
    """CPU, PUs used/available, topology, compiler, commit from the binary,
    and how the runs were pinned (`pinning`: what the runs report, else the
    study's bind)."""
    m = machine or {}
    mach = m.get("machine") or {}
    topo = mach.get("topology") or {}
    build = m.get("build")
    signature = mach.get("cpu_signature")
    parts = [(mach.get("cpu_model") or "unknown CPU")
             + (" (%s)" % signature if signature and signature != "unknown" else "")]
    avail = topo.get("allowed_pus") or len(mach.get("affinity_cpus") or []) or None
    shape = ", ".join("%s %s%s" % (topo[k], name, "" if topo[k] == 1 else "s")
                      for k, name in (("packages", "package"), ("numa_nodes", "NUMA node"), ("cores", "core"),
                                      ("pus", "PU")) if topo.get(k))
    used = ("up to %s of %s PUs used" % (pus_used, avail)) if pus_used else ("%s PUs available" % avail)
    parts.append(used + (" (%s)" % shape if shape else ""))
    hosts = mach.get("hosts") or []
    if len(hosts) > 1:
        parts.append("%d hosts" % len(hosts))
    if build:
        commit = build.get("commit") or "unknown"
        parts.append("uts %s commit %s%s (from the binary)" % (build.get("version", ""), commit[:12],
                                                              "-dirty" if build.get("commit_dirty") else ""))
        parts.append("%s %s, %s" % (build.get("compiler") or "?", build.get("build_type") or "",
                                    build.get("openmp_runtime") or mach.get("openmp_runtime") or "?"))
    else:
        sha = ((m.get("binary") or {}).get("sha256") or "")[:12]
        parts.append("uts binary sha256 %s (its record has no commit)" % sha)
        parts.append("%s, %s" % (mach.get("compiler") or "?", mach.get("openmp_runtime") or "?"))
    d = m.get("definition") or {}
    pinning = sorted({p for p in (pinning or []) if p})
    if pinning:
        parts.append("pinning: " + ", ".join(pinning))
    elif d.get("bind"):
        parts.append("bind %s%s" % (d["bind"], " +smt" if d.get("smt") else ""))
    return "Machine: " + "; ".join(parts) + "."


def n_text(ns):
    ns = sorted({int(n) for n in ns if n not in (None, "")})
    if not ns:
        return "n = ?"
    return "n = %d" % ns[0] if len(ns) == 1 else "n = %d-%d" % (ns[0], ns[-1])


def warmup_text(machine):
    w = ((machine or {}).get("definition") or {}).get("warmup")
    if not w:
        return "no warm-up runs"
    return "after %d warm-up run%s per cell, not counted" % (w, "" if w == 1 else "s")


def caption(fig, lines, width_chars=None):
    """The caption under the figure: each line wrapped to the figure's width."""
    if width_chars is None:
        width_chars = int(fig.get_figwidth() * 72 / (7.0 * 0.52))
    text = "\n".join(textwrap.fill(line, width=max(60, width_chars)) for line in lines if line)
    fig.text(0.005, -0.01, text, ha="left", va="top", fontsize=7.0, color="0.15", transform=fig.transFigure)
