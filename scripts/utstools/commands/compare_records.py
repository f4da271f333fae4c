"""Compare the records two uts binaries print for the same runs: text, JSON
and CSV, apart from timing and machine fields.

For each tree (T1, T3 and three small trees), protocol, victim policy and
thread count (1, 2, 8), and under 2 MPI ranks (with --mpi), both binaries run
the same command in each format. What must be equal:
  - text: every line but the timing line, with the numbers of the statistics
    lines masked where they vary from run to run (more than one thread or
    rank); the tree, engine, result, checksum and verdict lines exactly;
  - JSON: the parsed objects (key order aside), timing and machine fields
    masked, statistics masked to "a number" or "null" where they vary;
  - CSV: the header exactly, and the row field by field under the same masks.
The batch job and the OMP_*, GOMP_*, KMP_* variables (JSON batch and
runtime_env, their CSV columns, -v's Batch: and Environment: lines) are left
out: they say where a run ran, and an older binary has none. So is the
resident memory (JSON memory, the ranks' memory fields, the CSV columns,
the Peak memory lines): a measurement, and an older binary has none.
At one thread and one rank every statistic is deterministic and compared
exactly. Exit status 1 when any record differs.

usage: scripts/compare-records --old BINARY --new BINARY [--mpi] [--quick]
       [--trees T1,T3,bin,geo-cyclic,hybrid] [--threads 1,2,8]
"""
import csv
import importlib.util
import io
import json
import os
import re
import subprocess
import sys

from utstools.common import ROOT, Parser


def small_trees():
    """The integration tests' small trees (tests/integration/small_trees.py,
    read from the checkout by its path: the tests are not a package, and a
    copy here could drift from them)."""
    path = os.path.join(ROOT, "tests", "integration", "small_trees.py")
    spec = importlib.util.spec_from_file_location("small_trees", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except OSError:
        return []  # not a checkout: T1 and T3 only
    return module.SMALL_TREES


TREES = {"T1": "-t 1 -a 3 -d 10 -b 4 -r 19", "T3": "-t 0 -b 2000 -q 0.124875 -m 8 -r 42"}
TREES.update({name: args for name, args, _ in small_trees()})
PROTOCOLS = ["split", "locked", "request", "chaselev"]
VICTIMS = ["random", "linear", "tree", "hier"]

TIMING = {"seconds", "nodes_per_sec", "nodes_per_sec_per_thread", "nodes_per_sec_per_pe", "idle_seconds",
          "request_wait_seconds", "mean_request_wait_seconds", "timestamp_utc", "hostname", "openmp_runtime",
          # --sha1 auto's start-up measurement of the kernels (blocks/s)
          "sha1_auto_avx512_rate", "sha1_auto_shani_rate",
          # each thread's time by phase (the time breakdown) and what derives from it
          "time_work", "time_search", "time_claim", "time_idle", "time_termination", "time_agent", "time_total",
          "work_baseline_seconds", "work_inflation",
          # across ranks: times of the global protocol (steals and termination)
          "dormant_seconds", "dormant_fraction", "termination_latency_seconds", "last_work_seconds",
          "finish_known_seconds", "global_dormant_seconds"}
# Provenance (where, how, by which build and command line it ran): differs
# between two binaries and, for placement, between two runs.
PROVENANCE = {"build", "placement", "command_line"}
PROVENANCE_CSV = {"commit", "commit_dirty", "build_type", "compiler", "compiler_flags", "openmp_library",
                  "mpi_library", "command_line", "hosts", "topology", "oversubscribed", "pus_available", "pus_used",
                  "placement"}
PROVENANCE_TEXT = re.compile(r"^(Topology: |Placement: |  thread \d+|Build: |MPI library: |Command line: )")
# The batch job and the OMP_*, GOMP_*, KMP_* variables a run had
# (docs/output.md, section 4a): where it ran, not what it computed; and a
# binary older than these fields prints none of them, so they are left out
# of the comparison altogether (JSON keys, CSV columns, -v lines), not masked.
ENVIRONMENT = {"batch", "runtime_env"}
ENVIRONMENT_CSV = {"batch_system", "batch_job_id", "batch_nodes", "batch_tasks", "batch_cpus_per_task",
                   "batch_cpu_bind", "runtime_env"}
ENVIRONMENT_TEXT = re.compile(r"^(Batch: |Environment: )")
# Resident memory (docs/output.md, section 4d): a measurement that varies
# from run to run and between builds, and that an older binary does not
# print: left out like the environment (JSON memory and each rank's memory
# fields, the CSV columns, the text's Peak memory lines).
MEMORY_FIELDS = {"peak_rss_bytes", "start_peak_rss_bytes", "start_rss_bytes", "peak_rss_source", "peak_rss_bytes_sum"}
ENVIRONMENT_CSV |= MEMORY_FIELDS
ENVIRONMENT_TEXT = re.compile(r"^(Batch: |Environment: |Peak memory = |Peak memory per rank )")
# Values that are the same in every run of the same command.
FIXED_KEYS = {"thread", "rank", "rank_thread", "domain", "threads", "count", "source"}
NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")
DECIMAL = re.compile(r"-?\d+\.\d+(e[-+]?\d+)?")


def run(binary, args, mpi):
    cmd = (["mpirun", "--oversubscribe", "--bind-to", "none", "-np", "2"] if mpi else []) + [binary] + args
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    return p.returncode, p.stdout


def mask_json(value, path, varies):
    if isinstance(value, dict) and not path:
        value = {k: v for k, v in value.items() if k not in ENVIRONMENT and k != "memory"}
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in MEMORY_FIELDS}
        return {k: mask_json(v, path + [k], varies) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_json(v, path, varies) for v in value]
    key = path[-1] if path else ""
    if path and path[0] == "machine":
        return "<machine>"
    if path and path[0] in PROVENANCE:
        return "<provenance>"
    if key in TIMING:
        return "<timing>" if value is not None else None
    statistic = path and path[0] in ("threads", "aggregates", "domains", "ranks")
    if varies and statistic and key not in FIXED_KEYS and isinstance(value, (int, float)) \
            and not isinstance(value, bool):
        return "<number>"
    return value


TEXT_EXACT = re.compile(r"^(UTS |Tree: |Engine: |Tree size = |Checksum = |Verify: |\*\*\* |Domains: |thread |domain |rank |"
                        r"-[iIx] \d+ )")


def mask_text(text, varies):
    out = []
    for line in text.splitlines():
        if ENVIRONMENT_TEXT.match(line):
            continue
        if PROVENANCE_TEXT.match(line):
            line = "<provenance>"
        elif line.startswith("Wallclock time"):
            line = NUMBER.sub("#", line)
        elif not TEXT_EXACT.match(line):
            # Numbers of another width shift the columns: compare the tokens.
            # At one thread the counts are exact; times (decimals) never are.
            line = " ".join((NUMBER if varies else DECIMAL).sub("#", line).split())
        out.append(line)
    return out


def mask_csv(text, varies):
    rows = list(csv.reader(io.StringIO(text)))
    header, row = rows[0], rows[1] if len(rows) > 1 else []
    kept = [i for i, name in enumerate(header) if name not in ENVIRONMENT_CSV]
    header, row = [header[i] for i in kept], [row[i] for i in kept if i < len(row)]
    statistic = {"steal_attempts", "steals", "nodes_stolen", "deques_examined", "shares", "reclaims", "nodes_shared",
                 "nodes_reclaimed", "sleeps", "steal_success_rate", "nodes_per_steal", "deques_examined_per_attempt",
                 "node_share_variance", "node_share_relative_variance", "requests_sent", "requests_answered",
                 "requests_refused", "requests_withdrawn", "local_steal_attempts", "local_steals",
                 "local_steal_nodes", "remote_steal_attempts", "remote_steals", "remote_steal_nodes",
                 "domain_node_share_variance", "global_requests_sent", "global_steals", "global_nodes_stolen",
                 "global_lifeline_requests", "global_pushes", "global_push_nodes", "global_messages_per_steal",
                 "termination_waves", "global_lifeline_requests_received", "global_pushes_sent",
                 "global_push_nodes_sent"}
    fields = {}
    for name, v in zip(header, row):
        if name in TIMING:
            v = "<timing>" if v else ""
        elif name in PROVENANCE_CSV:
            v = "<provenance>"
        elif varies and name in statistic and v != "":
            v = "<number>"
        fields[name] = v
    return header, fields


def compare(args):
    trees = args.trees.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    configs = []
    for tree in trees:
        for proto in PROTOCOLS:
            for victim in VICTIMS:
                for t in threads:
                    configs.append((tree, ["--protocol", proto, "--victim", victim, "--threads", str(t)], t > 1, False))
            if args.mpi:
                configs.append((tree, ["--protocol", proto, "--threads", "1"], True, True))
    compared = differ = 0
    key_order_changed = 0
    for tree, flags, varies, mpi in configs:
        base = TREES[tree].split() + flags
        if "hier" in flags:
            base += ["--domains", "2"] if "--threads" in flags and flags[flags.index("--threads") + 1] != "1" else []
        label = "%s %s%s" % (tree, " ".join(flags), " (2 ranks)" if mpi else "")
        problems = []
        outs = {}
        for fmt in ("text", "json", "csv"):
            for which, binary in (("old", args.old), ("new", args.new)):
                code, out = run(binary, base + ["--format", fmt, "-v"], mpi)
                if code != 0:
                    problems.append("%s %s exited %d" % (which, fmt, code))
                outs[(which, fmt)] = out
        if not problems:
            if mask_text(outs[("old", "text")], varies) != mask_text(outs[("new", "text")], varies):
                a, b = mask_text(outs[("old", "text")], varies), mask_text(outs[("new", "text")], varies)
                diff = [(x, y) for x, y in zip(a, b) if x != y][:2] or [("%d lines" % len(a), "%d lines" % len(b))]
                problems.append("text differs: %r" % (diff,))
            jo, jn = json.loads(outs[("old", "json")]), json.loads(outs[("new", "json")])
            if mask_json(jo, [], varies) != mask_json(jn, [], varies):
                mo, mn = mask_json(jo, [], varies), mask_json(jn, [], varies)
                keys = sorted(k for k in set(mo) | set(mn) if mo.get(k) != mn.get(k))
                problems.append("JSON differs in %s" % keys)
            if [k for k in jo if k not in ENVIRONMENT] != [k for k in jn if k not in ENVIRONMENT] or \
                    list(jo.get("engine", {})) != list(jn.get("engine", {})):
                key_order_changed += 1
            ho, co = mask_csv(outs[("old", "csv")], varies)
            hn, cn = mask_csv(outs[("new", "csv")], varies)
            if ho != hn:
                problems.append("CSV header differs")
            elif co != cn:
                problems.append("CSV differs in %s" % sorted(k for k in co if co[k] != cn.get(k)))
        compared += 1
        if problems:
            differ += 1
            print("DIFF  %s: %s" % (label, "; ".join(problems)))
        elif args.verbose:
            print("same  %s" % label)
    print("compare-records: %d configurations (%d records each side), %d differ; JSON key order differs in %d "
          "(objects compared as parsed: key order is not part of JSON)" % (compared, 3 * compared, differ,
                                                                          key_order_changed))
    return 1 if differ else 0


def main(argv=None):
    ap = Parser(prog="compare-records", description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--mpi", action="store_true", help="also 2 MPI ranks per tree and protocol")
    ap.add_argument("--quick", action="store_true", help="T3 and two small trees, 1 and 2 threads")
    ap.add_argument("--trees", default="T1,T3,bin,geo-cyclic,hybrid")
    ap.add_argument("--threads", default="1,2,8")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the configurations that match too")
    args = ap.parse_args(argv)
    if args.quick:
        args.trees, args.threads = "T3,bin,hybrid", "1,2"
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
