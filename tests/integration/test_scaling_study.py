#!/usr/bin/env python3
"""scripts/scaling-study and scripts/plot-results on a tiny tree: well-formed
CSVs, machine facts and non-empty plots; an injected mismatch (a preset with a
wrong expected size) stops the study with exit status 1. The protocol axis:
two protocols, each with its own steal and victim defaults (the default
study's steal = half not passed), a protocol column, one plotted line per
protocol; a combination uts rejects exits 2 before any run; plot-results
still draws a study from before the protocol columns. The locality axes:
victims random and hier over 2 virtual domains at remote delays 0 and 2000
ns, the locality columns at the end of runs.csv and summary.csv, remote
steals for hier, the hierarchy plots (and plot-results redrawing them), a
1-thread cell skipped, bad delays and too many domains exit 2; and
configs/studies/hierarchy.conf names the study's axes.

usage: test_scaling_study.py REPO_ROOT UTS_BINARY
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uts_check import Tally  # noqa: E402

# A balanced ternary tree of depth 7: (3^8 - 1) / 2 nodes, 3^7 leaves.
TINY = """description = balanced ternary tree, depth 7
tree = balanced
b0 = 3
depth = 7
expect-size = 3280
expect-depth = 7
expect-leaves = 2187
"""


LOCALITY_RUN_COLUMNS = [
    "domains", "domain_count", "remote_delay_ns", "steal_local", "steal_remote",
    "local_steal_attempts", "local_steals", "local_steal_nodes",
    "remote_steal_attempts", "remote_steals", "remote_steal_nodes",
    "domain_node_share_variance", "domain_nodes"]
LOCALITY_SUMMARY_COLUMNS = [
    "domains", "remote_delay_ns", "median_remote_steals", "median_remote_steal_nodes", "median_local_steals",
    "median_nodes_per_remote_steal", "median_domain_node_share_variance"]
HIER_PLOTS = ["%s.%s" % (n, e) for n in ("hier_time", "hier_remote_steals", "hier_nodes_per_remote_steal",
                                         "hier_domain_share") for e in ("png", "svg")]


def plots_written(folder, names):
    for name in names:
        path = os.path.join(folder, name)
        if not os.path.isfile(path) or os.path.getsize(path) < 1000:
            return False
        with open(path, "rb") as f:
            head = f.read(8)
        if name.endswith(".png") and head != b"\x89PNG\r\n\x1a\n":
            return False
    return True


def check_locality(tally, study, plot, binary, presets, tmp, flat_out, root, study_data):
    """The domains and remote_delay axes and victim hier on the tiny tree."""
    hout = os.path.join(tmp, "hier")
    p = subprocess.run([study, "--trees", "tiny", "--threads", "1,2", "--victim", "random,hier", "--domains", "2",
                        "--remote-delay", "0,2000", "--reps", "1", "--out", hout, "--uts", binary,
                        "--preset-dir", presets], capture_output=True, text=True, timeout=300)
    tally.check(p.returncode == 0 and "[run 4/4]" in p.stderr and "skipping threads 1 with domains=2" in p.stderr,
                "locality study (random/hier, 2 domains, delays 0/2000) succeeds; 1 thread in 2 domains skipped",
                p.stderr[-2000:])
    with open(os.path.join(hout, "runs.csv")) as f:
        reader = csv.DictReader(f)
        runs = list(reader)
        header = reader.fieldnames
    first = header.index("mean_request_wait_seconds") + 1 if "mean_request_wait_seconds" in header else -1
    tally.check(header == study_data.RUN_COLUMNS and header[first:] == LOCALITY_RUN_COLUMNS,
                "runs.csv: the locality columns at the end", str(header))
    by = {(r["victim"], r["remote_delay_ns"]): r for r in runs}
    tally.check(len(runs) == 4 and set(by) == {(v, d) for v in ("random", "hier") for d in ("0", "2000")}
                and all(r["threads"] == "2" and r["size"] == "3280" and r["domains"] == "2"
                        and r["domain_count"] == "2" for r in runs),
                "runs.csv: one exact row per victim and delay, 2 threads in 2 domains", str(sorted(by)))
    tally.check(all(r["remote_steals"] != "" and r["local_steals"] != ""
                    and int(r["local_steals"]) + int(r["remote_steals"]) == int(r["steals"])
                    and sum(int(x) for x in r["domain_nodes"].split(";")) == 3280
                    and len(r["domain_nodes"].split(";")) == 2 and r["domain_node_share_variance"] != ""
                    for r in runs),
                "runs.csv: remote steals filled; local + remote = steals; domain nodes sum to the tree",
                str([(r["victim"], r["steals"], r["local_steals"], r["remote_steals"], r["domain_nodes"])
                     for r in runs]))
    tally.check(all(by[("hier", d)]["steal_local"] == "one" and by[("hier", d)]["steal_remote"] == "half"
                    and by[("random", d)]["steal_local"] == "" for d in ("0", "2000")),
                "runs.csv: steal_local/steal_remote for hier only")
    with open(os.path.join(hout, "summary.csv")) as f:
        reader = csv.DictReader(f)
        summary = list(reader)
        sheader = reader.fieldnames
    tally.check(sheader == study_data.SUMMARY_COLUMNS and sheader[-len(LOCALITY_SUMMARY_COLUMNS):]
                == LOCALITY_SUMMARY_COLUMNS, "summary.csv: the locality columns at the end", str(sheader))
    cells = sorted((r["victim"], r["domains"], r["remote_delay_ns"]) for r in summary)
    tally.check(cells == [(v, "2", d) for v in ("hier", "random") for d in ("0", "2000")]
                and all(r["median_remote_steals"] != "" and r["median_local_steals"] != ""
                        and r["median_domain_node_share_variance"] != "" and r["speedup"] == "" for r in summary),
                "summary.csv: a cell per victim and delay with remote steal medians (no 1-thread speedup)",
                str(summary))
    tally.check(plots_written(hout, HIER_PLOTS), "hierarchy plots written as PNG and SVG")
    with open(os.path.join(hout, "hier_time.svg")) as f:
        svg = f.read()
    tally.check("victim=hier" in svg and "victim=random" in svg, "hier_time: a line per victim policy")
    for name in HIER_PLOTS:
        os.remove(os.path.join(hout, name))
    p = subprocess.run([plot, hout], capture_output=True, text=True, timeout=300)
    tally.check(p.returncode == 0 and plots_written(hout, HIER_PLOTS), "plot-results redraws the hierarchy plots",
                p.stderr[-1000:])
    # The earlier one-delay study: no hierarchy plots; its locality columns say no domains, no delay.
    with open(os.path.join(flat_out, "runs.csv")) as f:
        flat = list(csv.DictReader(f))
    tally.check(not any(os.path.exists(os.path.join(flat_out, n)) for n in HIER_PLOTS)
                and all(r["domains"] == "" and r["remote_delay_ns"] == "0" and r["remote_steals"] == ""
                        for r in flat), "a study with one delay: no hierarchy plots, empty locality columns")
    for args, what in ((["--threads", "2", "--remote-delay", "0,-5"], "a negative remote delay"),
                       (["--threads", "2", "--remote-delay", "1us"], "a remote delay that is not a number"),
                       (["--threads", "1,2", "--domains", "4"], "more virtual domains than any thread count")):
        p = subprocess.run([study, "--trees", "tiny"] + args + ["--out", os.path.join(tmp, "badloc"), "--uts", binary,
                            "--preset-dir", presets], capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and not os.path.exists(os.path.join(tmp, "badloc", "runs.csv")),
                    "%s exits 2 before any run" % what, p.stderr[-500:])
    conf = study_data.read_key_values(os.path.join(root, "configs", "studies", "hierarchy.conf"))
    tally.check(study_data.parse_list(conf["trees"]) == ["T1L", "T3L"]
                and study_data.parse_threads(conf["threads"], 2) == [4]
                and study_data.parse_list(conf["victims"]) == ["random", "hier"] and conf["domains"] == "2"
                and study_data.parse_delays(conf["remote_delays"]) == [0, 1000, 10000, 100000]
                and conf["reps"] == "3" and "protocol" not in conf,
                "configs/studies/hierarchy.conf: the study's axes (its [quick] section skipped)", str(conf))


def main():
    root, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    study = os.path.join(root, "scripts", "scaling-study")
    plot = os.path.join(root, "scripts", "plot-results")
    sys.path.insert(0, os.path.join(root, "scripts", "lib"))
    import study_data
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        presets = os.path.join(tmp, "presets")
        os.makedirs(presets)
        with open(os.path.join(presets, "tiny.conf"), "w") as f:
            f.write(TINY)
        with open(os.path.join(presets, "tinybad.conf"), "w") as f:
            f.write(TINY.replace("expect-size = 3280", "expect-size = 3281"))
        out = os.path.join(tmp, "out")

        def study_cmd(tree, folder):
            return [study, "--trees", tree, "--threads", "1,2", "--victim", "random,tree", "--reps", "1",
                    "--out", folder, "--uts", binary, "--preset-dir", presets]

        p = subprocess.run(study_cmd("tiny", out), capture_output=True, text=True, timeout=300)
        tally.check(p.returncode == 0, "study on a tiny tree succeeds", p.stderr[-2000:])
        tally.check("[run 4/4]" in p.stderr, "progress names the run and the total", p.stderr[-500:])

        with open(os.path.join(out, "runs.csv")) as f:
            reader = csv.DictReader(f)
            runs = list(reader)
            header = reader.fieldnames
        tally.check(header == study_data.RUN_COLUMNS, "runs.csv header", str(header))
        tally.check(len(runs) == 4 and all(r["size"] == "3280" for r in runs), "runs.csv: one exact row per run")
        tally.check({r["threads"] for r in runs} == {"1", "2"} and {r["victim"] for r in runs} == {"random", "tree"},
                    "runs.csv covers the requested cells")
        with open(os.path.join(out, "summary.csv")) as f:
            reader = csv.DictReader(f)
            summary = list(reader)
        tally.check(reader.fieldnames == study_data.SUMMARY_COLUMNS, "summary.csv header", str(reader.fieldnames))
        one = [r for r in summary if r["threads"] == "1"]
        tally.check(len(summary) == 4 and all(float(r["speedup"]) == 1.0 for r in one)
                    and all(float(r["efficiency"]) > 0 for r in summary), "summary.csv: speedup against 1 thread")
        with open(os.path.join(out, "machine.json")) as f:
            m = json.load(f)
        tally.check(all(k in m for k in ("lscpu", "numactl_hardware", "compiler", "openmp_runtime", "commit",
                                         "pinning")), "machine.json facts")
        plots = ["%s.%s" % (n, e) for n in ("speedup", "efficiency", "nodes_per_sec", "work_share", "steal_stats")
                 for e in ("png", "svg")]

        def plots_ok():
            for name in plots:
                path = os.path.join(out, name)
                if not os.path.isfile(path) or os.path.getsize(path) < 1000:
                    return False
                with open(path, "rb") as f:
                    head = f.read(8)
                if name.endswith(".png") and head != b"\x89PNG\r\n\x1a\n":
                    return False
            return True

        tally.check(plots_ok(), "all plots written as PNG and SVG")
        for name in plots:
            os.remove(os.path.join(out, name))
        p = subprocess.run([plot, out], capture_output=True, text=True, timeout=300)
        tally.check(p.returncode == 0 and plots_ok(), "plot-results redraws them from the CSVs", p.stderr[-1000:])

        # A study from before the protocol axis: no protocol or request columns; read as protocol split.
        legacy = os.path.join(tmp, "legacy")
        os.makedirs(legacy)
        for name, columns in (("runs.csv", study_data.RUN_COLUMNS), ("summary.csv", study_data.SUMMARY_COLUMNS)):
            with open(os.path.join(out, name)) as f:
                rows = list(csv.DictReader(f))
            old = columns[:columns.index("protocol")]
            with open(os.path.join(legacy, name), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=old, extrasaction="ignore")
                w.writeheader()
                w.writerows(rows)
        p = subprocess.run([plot, legacy], capture_output=True, text=True, timeout=300)
        tally.check(p.returncode == 0 and os.path.getsize(os.path.join(legacy, "speedup.svg")) > 1000,
                    "plot-results draws a study from before the protocol columns", p.stderr[-1000:])

        # The protocol axis. request and chaselev: chaselev rejects --steal half, which the default
        # study file names, so this also shows steal and victim are left to each protocol.
        pout = os.path.join(tmp, "protocols")
        p = subprocess.run([study, "--trees", "tiny", "--threads", "1,2", "--protocol", "request,chaselev",
                            "--reps", "1", "--out", pout, "--uts", binary, "--preset-dir", presets],
                           capture_output=True, text=True, timeout=300)
        tally.check(p.returncode == 0 and "[run 4/4]" in p.stderr, "study over two protocols succeeds",
                    p.stderr[-2000:])
        with open(os.path.join(pout, "runs.csv")) as f:
            prow = list(csv.DictReader(f))
        by = {(r["protocol"], r["threads"]): r for r in prow}
        tally.check(len(prow) == 4 and set(by) == {(pr, t) for pr in ("request", "chaselev") for t in ("1", "2")}
                    and all(r["size"] == "3280" for r in prow), "runs.csv: one exact row per protocol and threads",
                    str(sorted(by)))
        tally.check(all(by[("request", t)]["steal"] == "half" and by[("chaselev", t)]["steal"] == "one"
                        and by[(pr, t)]["victim"] == "random" for pr in ("request", "chaselev") for t in ("1", "2")),
                    "runs.csv: each protocol ran with its own steal and victim defaults",
                    str([(r["protocol"], r["steal"], r["victim"]) for r in prow]))
        req, cl = by[("request", "2")], by[("chaselev", "2")]
        tally.check(req["requests_sent"] != "" and req["mean_request_wait_seconds"] != "" and req["reclaims"] == ""
                    and int(req["requests_sent"]) == sum(int(req[k]) for k in ("requests_answered",
                                                                             "requests_refused", "requests_withdrawn"))
                    and cl["requests_sent"] == "" and cl["shares"] == "" and cl["reclaims"] == "",
                    "runs.csv: request columns for protocol request only; shares/reclaims empty where not applicable",
                    str((req, cl)))
        with open(os.path.join(pout, "summary.csv")) as f:
            reader = csv.DictReader(f)
            psum = list(reader)
        tally.check(reader.fieldnames == study_data.SUMMARY_COLUMNS and "protocol" in reader.fieldnames,
                    "summary.csv has a protocol column", str(reader.fieldnames))
        tally.check(sorted((r["protocol"], r["threads"]) for r in psum)
                    == [("chaselev", "1"), ("chaselev", "2"), ("request", "1"), ("request", "2")]
                    and all(float(r["speedup"]) == 1.0 for r in psum if r["threads"] == "1"),
                    "summary.csv: one row per protocol and threads, speedup against the protocol's own 1 thread",
                    str(psum))
        counts = {}
        for name in ("speedup", "efficiency", "nodes_per_sec"):
            with open(os.path.join(pout, name + ".svg")) as f:
                svg = f.read()
            counts[name] = [svg.count("protocol=" + pr) for pr in ("request", "chaselev")]
        tally.check(all(c == [1, 1] for c in counts.values()),
                    "speedup, efficiency and nodes/s plots: one legend line per protocol", str(counts))
        p = subprocess.run([study, "--trees", "tiny", "--threads", "1", "--protocol", "chaselev", "--steal", "half",
                            "--out", os.path.join(tmp, "rejected"), "--uts", binary, "--preset-dir", presets],
                           capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and "rejects" in p.stderr
                    and not os.path.exists(os.path.join(tmp, "rejected", "runs.csv")),
                    "a protocol/steal combination uts rejects exits 2 before any run", p.stderr)

        check_locality(tally, study, plot, binary, presets, tmp, out, root, study_data)

        bad = subprocess.run(study_cmd("tinybad", os.path.join(tmp, "bad")), capture_output=True, text=True,
                             timeout=300)
        tally.check(bad.returncode == 1 and "MISMATCH" in bad.stderr and "3281" in bad.stderr,
                    "a wrong expected value stops the study with exit 1", "rc=%d %s" % (bad.returncode,
                                                                                     bad.stderr[-500:]))
        p = subprocess.run([study, "--trees", "tiny", "--threads", "0", "--out", out, "--uts", binary],
                           capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2, "bad study definition exits 2", p.stderr)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
