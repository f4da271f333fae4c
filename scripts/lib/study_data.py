"""Scaling-study data: study definitions, the runs.csv and summary.csv
formats, and the summary computation. Standard library only."""
import csv
import os
import statistics

from study_common import write_csv  # noqa: F401  (the studies' CSV writer, re-exported)

# One row per run. Stable column order: scripts and papers parse it.
RUN_COLUMNS = [
    "tree", "threads", "steal", "victim", "init", "rep", "pinning",
    "seconds", "nodes_per_sec", "size", "depth", "leaves", "checksum",
    "steal_attempts", "steals", "nodes_stolen", "deques_examined", "shares", "reclaims",
    "steal_success_rate", "nodes_per_steal", "deques_examined_per_steal",
    "node_share_variance", "node_share_relative_variance", "idle_seconds", "thread_nodes",
    # Added with the protocol axis, at the end so earlier columns keep their place. The request
    # statistics are empty except for --protocol request; shares and reclaims may be empty too.
    "protocol", "requests_sent", "requests_answered", "requests_refused", "requests_withdrawn",
    "mean_request_wait_seconds",
    # Added with the locality axes (domains, remote_delay), at the end likewise. remote_delay_ns is
    # what uts ran with (0 without --remote-delay). The domain columns are empty when the run used
    # no domains (no --victim hier, --domains or nonzero --remote-delay); steal_local and
    # steal_remote are empty except for --victim hier. domain_nodes: each domain's nodes, `;`-joined.
    "domains", "domain_count", "remote_delay_ns", "steal_local", "steal_remote",
    "local_steal_attempts", "local_steals", "local_steal_nodes",
    "remote_steal_attempts", "remote_steals", "remote_steal_nodes",
    "domain_node_share_variance", "domain_nodes",
    # Added with the ranks axis (MPI), at the end likewise. ranks: MPI ranks the run used (1 for a
    # run without mpirun); pes: ranks x threads (threads is per rank). The global columns sum the
    # JSON `ranks` array (steals between ranks: requests sent, steals, nodes received); empty for a
    # run without mpirun.
    "ranks", "pes", "global_requests_sent", "global_steals", "global_nodes_stolen",
]

SUMMARY_COLUMNS = [
    "tree", "steal", "victim", "init", "threads", "runs",
    "median_seconds", "min_seconds", "max_seconds", "median_nodes_per_sec",
    "speedup", "speedup_min", "speedup_max", "efficiency",
    "median_steal_success_rate", "median_nodes_per_steal", "median_deques_examined_per_steal",
    "median_node_share_relative_variance",
    "protocol",  # added with the protocol axis, at the end so earlier columns keep their place
    # Added with the locality axes, at the end likewise: medians over the cell's runs, empty when its
    # runs used no domains; nodes per remote steal over the runs that made a remote steal.
    "domains", "remote_delay_ns",
    "median_remote_steals", "median_remote_steal_nodes", "median_local_steals",
    "median_nodes_per_remote_steal", "median_domain_node_share_variance",
    # Added with the ranks axis, at the end likewise: a cell per ranks value too; speedup is then
    # against 1 PE (1 rank, 1 thread) and efficiency is speedup / pes. The global medians are empty
    # for runs without mpirun.
    "ranks", "pes", "median_global_requests_sent", "median_global_steals", "median_global_nodes_stolen",
]

# The axes of a study besides tree and threads, in the order cells are keyed and labelled.
POLICY_KEYS = ("protocol", "steal", "victim", "init", "domains", "remote_delay_ns")

# How a label names an axis: key=value, or these for the locality axes.
_LABEL_FORMATS = {"domains": "domains=%s", "remote_delay_ns": "delay=%sns"}

# Studies written before the protocol axis ran the split deque, the only protocol then.
LEGACY_PROTOCOL = "split"


def read_key_values(path):
    """`key = value` lines, `#` comments; returns a dict of strings. A
    `[section]` line starts keys meant for another reader (such as the
    `[quick]` part of a file that scripts/hierarchy-study reads too): they
    are skipped up to the end of the file."""
    values = {}
    with open(path) as f:
        in_section = False
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                in_section = True
                continue
            if in_section:
                continue
            if "=" not in line:
                raise ValueError("%s:%d: expected 'key = value'" % (path, number))
            key, value = (part.strip() for part in line.split("=", 1))
            values[key] = value
    return values


def parse_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_threads(text, cores):
    """'1..all', '1..8', '1,2,4' or a mix: '1,2,4..8'."""
    counts = []
    for item in parse_list(text):
        if ".." in item:
            lo, hi = item.split("..", 1)
            hi = cores if hi == "all" else int(hi)
            counts.extend(range(int(lo), hi + 1))
        else:
            counts.append(cores if item == "all" else int(item))
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


def _axis_text(key, value):
    if key == "domains" and not value:
        return "no domains"
    return _LABEL_FORMATS.get(key, key + "=%s") % value


def policy_label(row, varying):
    parts = [_axis_text(k, row[k]) for k in POLICY_KEYS if k in varying]
    if parts:
        return ", ".join(parts)
    # Nothing varies: the four policy values, and the locality axes where in use.
    text = "/".join(row[k] for k in POLICY_KEYS[:4])
    if row.get("domains"):
        text += ", " + _axis_text("domains", row["domains"])
    if row.get("remote_delay_ns") not in (None, "", "0"):
        text += ", " + _axis_text("remote_delay_ns", row["remote_delay_ns"])
    return text


def policy_of(row):
    return tuple(row[k] for k in POLICY_KEYS)


def read_csv(path):
    """Rows as dicts; a runs.csv or summary.csv from before the protocol
    axis reads as protocol split, one from before the locality axes as no
    domains and remote delay 0 (and empty locality columns), one from
    before the ranks axis as 1 rank, PEs = threads, no global steals."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if not r.get("protocol"):
            r["protocol"] = LEGACY_PROTOCOL
        if r.get("domains") is None:
            r["domains"] = ""
        if not r.get("remote_delay_ns"):
            r["remote_delay_ns"] = "0"
        if not r.get("ranks"):
            r["ranks"] = "1"
        if not r.get("pes"):
            r["pes"] = str(int(r["ranks"]) * int(r["threads"]))
    return rows


def summarize(rows):
    """Median, min, max per cell (tree, policy, ranks, threads); speedup
    against the median of the same tree and policy (protocol, steal, victim,
    init, domains, remote delay) at 1 PE: 1 rank x 1 thread, which for a
    study without ranks is its 1-thread cell, as before. The scaling axis
    is PEs = ranks x threads, so efficiency is speedup / PEs. Absent if the
    study has no 1-PE runs (as with 2 or more domains, or ranks without 1)."""
    cells = {}
    for r in rows:
        key = (r["tree"], r.get("protocol") or LEGACY_PROTOCOL, r["steal"], r["victim"], r["init"],
               r.get("domains") or "", int(r.get("remote_delay_ns") or 0), int(r.get("ranks") or 1),
               int(r["threads"]))
        cells.setdefault(key, []).append(r)
    out = []
    for key in sorted(cells):
        tree, protocol, steal, victim, init, domains, delay, ranks, threads = key
        runs = cells[key]
        secs = [float(r["seconds"]) for r in runs]
        base = cells.get(key[:-2] + (1, 1))
        base_median = statistics.median(float(r["seconds"]) for r in base) if base else None

        def med(col):
            return statistics.median(float(r[col]) for r in runs)

        def med_or_empty(col):
            """The median where every run has the column (a run without domains, or without mpirun, has none)."""
            values = [r.get(col) for r in runs]
            return statistics.median(float(v) for v in values) if all(v not in (None, "") for v in values) else ""

        per_remote = [float(r["remote_steal_nodes"]) / float(r["remote_steals"]) for r in runs
                      if r.get("remote_steals") not in (None, "", "0")]
        row = {
            "tree": tree, "protocol": protocol, "steal": steal, "victim": victim, "init": init,
            "domains": domains, "remote_delay_ns": delay,
            "ranks": ranks, "pes": ranks * threads,
            "threads": threads, "runs": len(runs),
            "median_seconds": statistics.median(secs), "min_seconds": min(secs), "max_seconds": max(secs),
            "median_nodes_per_sec": med("nodes_per_sec"),
            "speedup": "", "speedup_min": "", "speedup_max": "", "efficiency": "",
            "median_steal_success_rate": med("steal_success_rate"),
            "median_nodes_per_steal": med("nodes_per_steal"),
            "median_deques_examined_per_steal": med("deques_examined_per_steal"),
            "median_node_share_relative_variance": med("node_share_relative_variance"),
            "median_remote_steals": med_or_empty("remote_steals"),
            "median_remote_steal_nodes": med_or_empty("remote_steal_nodes"),
            "median_local_steals": med_or_empty("local_steals"),
            "median_nodes_per_remote_steal": statistics.median(per_remote) if per_remote else "",
            "median_domain_node_share_variance": med_or_empty("domain_node_share_variance"),
            "median_global_requests_sent": med_or_empty("global_requests_sent"),
            "median_global_steals": med_or_empty("global_steals"),
            "median_global_nodes_stolen": med_or_empty("global_nodes_stolen"),
        }
        if base_median:
            row["speedup"] = base_median / row["median_seconds"]
            row["speedup_min"] = base_median / max(secs)
            row["speedup_max"] = base_median / min(secs)
            row["efficiency"] = row["speedup"] / (ranks * threads)
        out.append(row)
    return out

