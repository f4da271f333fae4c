"""Scaling and hierarchy studies' data: the runs.csv and summary.csv
columns, the study-file value formats, and the summary (utstools/stats.py:
median, mean, sd, CV, bootstrap CI of the median; speedups with paired
bootstrap CIs; efficiency over the PUs the runs really used)."""
import csv

from utstools import stats
from utstools.study_common import PLACEMENT_COLUMNS, RUN_ID_COLUMNS, usable_cpus

# The time breakdown uts reports per run: seconds summed over the
# run's threads (time_total = the threads' wall times summed). Empty for a
# binary older than the breakdown. runs.csv's work_inflation is the binary's
# (null unless uts ran with --work-baseline, which the studies do not pass);
# summary.csv's work_inflation is the study's own: see summarize().
BREAKDOWN_COLUMNS = ["time_work", "time_search", "time_claim", "time_idle", "time_termination", "time_agent",
                     "time_total"]

# One row per run (warm-up runs included, warmup=1). What uts reports it ran
# with, so axes left to uts's defaults are recorded too; empty where a value
# does not apply (steal columns of a --sequential run, request columns of
# other protocols, locality columns of runs without domains, global columns
# of runs without mpirun). threads is per rank; pes = ranks x threads.
RUN_COLUMNS = RUN_ID_COLUMNS + [
    "tree", "engine", "threads", "ranks", "pes",
    "protocol", "steal", "victim", "init", "domains", "remote_delay_ns",
    "seconds", "nodes_per_sec", "size", "depth", "leaves", "checksum",
    "steal_attempts", "steals", "nodes_stolen", "deques_examined", "shares", "reclaims",
    "steal_success_rate", "nodes_per_steal", "deques_examined_per_steal",
    "node_share_variance", "node_share_relative_variance", "idle_seconds", "thread_nodes",
    "requests_sent", "requests_answered", "requests_refused", "requests_withdrawn", "mean_request_wait_seconds",
    "domain_count", "steal_local", "steal_remote",
    "local_steal_attempts", "local_steals", "local_steal_nodes",
    "remote_steal_attempts", "remote_steals", "remote_steal_nodes",
    "domain_node_share_variance", "domain_nodes",
    "global_requests_sent", "global_steals", "global_nodes_stolen",
] + BREAKDOWN_COLUMNS + ["work_inflation"] + PLACEMENT_COLUMNS

CELL_COLUMNS = ["cell", "tree", "engine", "threads", "ranks", "pes", "protocol", "steal", "victim", "init",
                "domains", "remote_delay_ns"]
TIME_COLUMNS = ["seconds_" + c for c in stats.summary_columns()]
CI = ("median", "ci_low", "ci_high")
SPEEDUPS = ("1pe", "seq")
# Medians (with bootstrap CIs of the median) of these per-run measures.
METRICS = ["nodes_per_sec", "steal_success_rate", "nodes_per_steal", "deques_examined_per_steal",
           "node_share_relative_variance", "local_steals", "remote_steals", "nodes_per_remote_steal",
           "domain_node_share_variance", "global_requests_sent", "global_steals", "global_nodes_stolen"
           ] + BREAKDOWN_COLUMNS
# Work inflation = the cell's median time_work / the median time of the
# tree's --sequential cell, with its paired bootstrap CI.
WORK_INFLATION_COLUMNS = ["work_inflation", "work_inflation_ci_low", "work_inflation_ci_high", "work_inflation_n"]
SUMMARY_COLUMNS = (CELL_COLUMNS + TIME_COLUMNS
                   + ["%s_%s" % (w, b) for s in SPEEDUPS for w in ("speedup_vs", "efficiency_vs")
                      for b in (s, s + "_ci_low", s + "_ci_high")]
                   + ["speedup_vs_1pe_n", "speedup_vs_seq_n", "speedup_ci_method",
                      "bind", "pus_used", "pus_available", "oversubscribed", "placement_source"]
                   + ["%s_%s" % (m, c) for m in METRICS for c in CI] + WORK_INFLATION_COLUMNS)
# The speedup/efficiency column names, in the order SUMMARY_COLUMNS has them.
SPEEDUP_COLUMNS = {s: ("speedup_vs_" + s, "speedup_vs_%s_ci_low" % s, "speedup_vs_%s_ci_high" % s) for s in SPEEDUPS}
EFFICIENCY_COLUMNS = {s: ("efficiency_vs_" + s, "efficiency_vs_%s_ci_low" % s, "efficiency_vs_%s_ci_high" % s)
                      for s in SPEEDUPS}

# The policy axes, in the order cells are keyed and labelled.
POLICY_KEYS = ("protocol", "steal", "victim", "init", "domains", "remote_delay_ns")
_LABEL_FORMATS = {"domains": "domains=%s"}


def parse_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_threads(text, cores):
    """'1..all', '1..8', '1,2,4' or a mix: '1,2,4..8'."""
    counts = []
    for item in parse_list(text):
        try:
            if ".." in item:
                lo, hi = item.split("..", 1)
                hi = cores if hi == "all" else int(hi)
                counts.extend(range(int(lo), hi + 1))
            else:
                counts.append(cores if item == "all" else int(item))
        except ValueError:
            raise ValueError("threads %r: expected counts such as 1,2,4, 1..8 or 1..all" % text)
    if not counts or min(counts) < 1:
        raise ValueError("threads must be positive: %r" % text)
    return sorted(set(counts))


def parse_ranks(text):
    """MPI ranks: '1,2,4', '1..4' or a mix; 'none' (alone) means no mpirun
    and returns None."""
    if text.strip() == "none":
        return None
    counts = []
    for item in parse_list(text):
        try:
            if ".." in item:
                lo, hi = item.split("..", 1)
                counts.extend(range(int(lo), int(hi) + 1))
            else:
                counts.append(int(item))
        except ValueError:
            raise ValueError("ranks %r: expected whole numbers such as 1,2,4 (or none)" % text)
    if not counts or min(counts) < 1:
        raise ValueError("ranks must be positive: %r" % text)
    return sorted(set(counts))


def parse_delays(text):
    """Remote delays in ns: '0, 1000, 10000' (or `default`: not passed, None)."""
    delays = []
    for item in parse_list(text):
        if item == "default":
            delays.append(None)
            continue
        try:
            value = int(item)
        except ValueError:
            raise ValueError("remote delay %r is not a whole number of nanoseconds" % item)
        if value < 0:
            raise ValueError("remote delay %r is negative" % item)
        delays.append(value)
    return delays


def delay_text(ns):
    ns = int(ns or 0)
    if ns == 0:
        return "0"
    return "%g µs" % (ns / 1000.0) if ns >= 1000 else "%d ns" % ns


def _axis_text(key, value):
    if key == "domains" and not value:
        return "no domains"
    if key == "remote_delay_ns":
        return "delay " + delay_text(value)
    return _LABEL_FORMATS.get(key, key + "=%s") % value


def policy_label(row, varying):
    parts = [_axis_text(k, row[k]) for k in POLICY_KEYS if k in varying]
    if parts:
        return ", ".join(parts)
    text = "/".join(row[k] for k in POLICY_KEYS[:4] if row.get(k))
    if row.get("domains"):
        text += ", " + _axis_text("domains", row["domains"])
    if row.get("remote_delay_ns") not in (None, "", "0"):
        text += ", " + _axis_text("remote_delay_ns", row["remote_delay_ns"])
    return text


def policy_of(row):
    return tuple(row.get(k) or "" for k in POLICY_KEYS)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _num(v):
    return None if v in (None, "") else float(v)


def _ci(values):
    """median, ci_low, ci_high of values (all three empty if any is missing)."""
    if not values or any(v is None for v in values):
        return {"median": None, "ci_low": None, "ci_high": None}
    s = stats.summarize(values)
    return {"median": s["median"], "ci_low": s["ci_low"], "ci_high": s["ci_high"]}


def _paired(base_runs, runs):
    """Times of the repetitions both cells have, in rep order (paired by rep index)."""
    b = {r["rep"]: float(r["seconds"]) for r in base_runs}
    x = {r["rep"]: float(r["seconds"]) for r in runs}
    reps = sorted(set(b) & set(x), key=int)
    return [b[k] for k in reps], [x[k] for k in reps]


def _placement(runs, fallback_pus):
    """pus_used, pus_available, oversubscribed of a cell and where they come
    from: the uts records, or (a binary without placement) min(PEs, CPUs in
    the affinity mask) and PEs > those CPUs."""
    used = [int(r["pus_used"]) for r in runs if r.get("pus_used")]
    avail = [int(r["pus_available"]) for r in runs if r.get("pus_available")]
    over = [r["oversubscribed"] for r in runs if r.get("oversubscribed")]
    if used and len(used) == len(runs):
        return max(used), (max(avail) if avail else None), ("true" if "true" in over else "false"), "records"
    pes = int(runs[0]["pes"])
    return (min(pes, fallback_pus), fallback_pus, "true" if pes > fallback_pus else "false",
            "estimate: min(PEs, %d affinity CPUs); the binary reports no placement" % fallback_pus)


def summarize(rows):
    """summary.csv rows: one per cell, over its measured runs (warm-up runs
    excluded). Time: stats.summarize. Speedup against the cell of the same
    tree and policy at 1 PE (1 rank x 1 thread), and against the tree's
    --sequential cell: median ratio, 95% CI by paired resampling of the
    repetitions both cells have. Efficiency = speedup / pus_used (the PUs
    uts reports the cell's runs bound to), with the CI bounds divided alike."""
    measured = [r for r in rows if str(r["warmup"]) == "0"]
    cells = {}
    for r in measured:
        cells.setdefault(r["cell"], []).append(r)
    fallback_pus = len(usable_cpus())

    def find(pred):
        for key, runs in cells.items():
            if pred(runs[0]):
                return runs
        return None

    out = []
    for key in sorted(cells, key=lambda k: _order_key(cells[k][0])):
        runs = cells[key]
        first = runs[0]
        row = {c: first.get(c) for c in CELL_COLUMNS}
        t = stats.summarize([float(r["seconds"]) for r in runs])
        row.update(("seconds_" + c, t[c]) for c in stats.summary_columns())
        pus, avail, over, source = _placement(runs, fallback_pus)
        row.update(pus_used=pus, pus_available=avail, oversubscribed=over, placement_source=source,
                   bind=first.get("bind") or first.get("pinning"))
        bases = {"seq": find(lambda b: b["tree"] == first["tree"] and b["engine"] == "sequential")}
        if first["engine"] == "parallel":
            bases["1pe"] = find(lambda b: b["tree"] == first["tree"] and b["engine"] == "parallel"
                                and policy_of(b) == policy_of(first) and b["ranks"] == "1" and b["threads"] == "1")
        methods = set()
        for name, base in bases.items():
            if not base:
                continue
            b, x = _paired(base, runs)
            if not b:
                continue
            s = stats.speedup_ci(b, x, paired=True)
            methods.add(s["ci_method"].split("; all values equal")[0])
            row["speedup_vs_%s_n" % name] = s["n"]
            for col, value in zip(SPEEDUP_COLUMNS[name], (s["speedup"], s["ci_low"], s["ci_high"])):
                row[col] = value
            for col, value in zip(EFFICIENCY_COLUMNS[name], (s["speedup"], s["ci_low"], s["ci_high"])):
                row[col] = None if value is None else stats.efficiency(value, pus)
        row["speedup_ci_method"] = "; ".join(sorted(methods)) or None
        seq = bases.get("seq")
        if seq:
            inflation = work_inflation(seq, runs)
            if inflation:
                row.update(zip(WORK_INFLATION_COLUMNS, inflation))
        for metric in METRICS:
            if metric == "nodes_per_remote_steal":
                values = [float(r["remote_steal_nodes"]) / float(r["remote_steals"]) for r in runs
                          if r.get("remote_steals") not in (None, "", "0")]
            else:
                values = [_num(r.get(metric)) for r in runs]
            for c, v in _ci(values).items():
                row["%s_%s" % (metric, c)] = v
        out.append(row)
    return out


def work_inflation(seq_runs, runs):
    """(inflation, ci_low, ci_high, n): the cell's median summed work time
    (time_work, over its threads) / the --sequential cell's median run time,
    how much longer the same nodes take in parallel; the 95% CI resamples the
    repetitions both cells have, paired by index (stats.speedup_ci of the
    two lists). None where the cell's runs lack time_work (an older uts)."""
    work = {r["rep"]: _num(r.get("time_work")) for r in runs}
    if not work or any(v is None or v <= 0 for v in work.values()):
        return None
    seq = {r["rep"]: float(r["seconds"]) for r in seq_runs}
    reps = sorted(set(work) & set(seq), key=int)
    if not reps:
        return None
    s = stats.speedup_ci([work[k] for k in reps], [seq[k] for k in reps], paired=True)
    return s["speedup"], s["ci_low"], s["ci_high"], s["n"]


def _order_key(r):
    return (r["tree"], r["engine"] != "sequential", policy_of(r), int(r["ranks"] or 1), int(r["threads"]))
