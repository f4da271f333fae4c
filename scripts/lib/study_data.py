"""Scaling-study data: study definitions, the runs.csv and summary.csv
formats, and the summary computation. Standard library only."""
import csv
import os
import statistics

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
]

SUMMARY_COLUMNS = [
    "tree", "steal", "victim", "init", "threads", "runs",
    "median_seconds", "min_seconds", "max_seconds", "median_nodes_per_sec",
    "speedup", "speedup_min", "speedup_max", "efficiency",
    "median_steal_success_rate", "median_nodes_per_steal", "median_deques_examined_per_steal",
    "median_node_share_relative_variance",
    "protocol",  # added with the protocol axis, at the end so earlier columns keep their place
]

# The axes of a study, in the order cells are keyed and labelled.
POLICY_KEYS = ("protocol", "steal", "victim", "init")

# Studies written before the protocol axis ran the split deque, the only protocol then.
LEGACY_PROTOCOL = "split"


def read_key_values(path):
    """`key = value` lines, `#` comments; returns a dict of strings."""
    values = {}
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
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


def policy_label(row, varying):
    parts = [("%s=%s" % (k, row[k])) for k in POLICY_KEYS if k in varying]
    return ", ".join(parts) if parts else "/".join(row[k] for k in POLICY_KEYS)


def policy_of(row):
    return tuple(row[k] for k in POLICY_KEYS)


def read_csv(path):
    """Rows as dicts; a runs.csv or summary.csv from before the protocol
    axis reads as protocol split."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if not r.get("protocol"):
            r["protocol"] = LEGACY_PROTOCOL
    return rows


def summarize(rows):
    """Median, min, max per cell; speedup against the 1-thread median of the
    same tree and policy (protocol, steal, victim, init; absent if the study
    has no 1-thread runs)."""
    cells = {}
    for r in rows:
        key = (r["tree"], r.get("protocol") or LEGACY_PROTOCOL, r["steal"], r["victim"], r["init"],
               int(r["threads"]))
        cells.setdefault(key, []).append(r)
    out = []
    for key in sorted(cells):
        tree, protocol, steal, victim, init, threads = key
        runs = cells[key]
        secs = [float(r["seconds"]) for r in runs]
        base = cells.get((tree, protocol, steal, victim, init, 1))
        base_median = statistics.median(float(r["seconds"]) for r in base) if base else None

        def med(col):
            return statistics.median(float(r[col]) for r in runs)

        row = {
            "tree": tree, "protocol": protocol, "steal": steal, "victim": victim, "init": init,
            "threads": threads, "runs": len(runs),
            "median_seconds": statistics.median(secs), "min_seconds": min(secs), "max_seconds": max(secs),
            "median_nodes_per_sec": med("nodes_per_sec"),
            "speedup": "", "speedup_min": "", "speedup_max": "", "efficiency": "",
            "median_steal_success_rate": med("steal_success_rate"),
            "median_nodes_per_steal": med("nodes_per_steal"),
            "median_deques_examined_per_steal": med("deques_examined_per_steal"),
            "median_node_share_relative_variance": med("node_share_relative_variance"),
        }
        if base_median:
            row["speedup"] = base_median / row["median_seconds"]
            row["speedup_min"] = base_median / max(secs)
            row["speedup_max"] = base_median / min(secs)
            row["efficiency"] = row["speedup"] / threads
        out.append(row)
    return out


def write_csv(path, columns, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)  # None (not applicable) is written empty
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
    os.replace(tmp, path)
