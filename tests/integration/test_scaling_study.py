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
configs/studies/hierarchy.conf names the study's axes. The ranks axis (MPI,
where mpirun is on PATH): 1 and 2 ranks x 1 and 2 threads under mpirun, the
ranks, pes and global columns at the end of runs.csv, the mpirun pinning per
run, summary.csv a cell per ranks value with speedup against 1 rank x 1
thread, the ranks plots (and plot-results redrawing them);
configs/studies/ranks.conf names its axes; and without mpirun on PATH
--ranks exits 2 with one line before any run.

usage: test_scaling_study.py REPO_ROOT UTS_BINARY
"""
import csv
import json
import os
import shutil
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
RANKS_RUN_COLUMNS = ["ranks", "pes", "global_requests_sent", "global_steals", "global_nodes_stolen"]
RANKS_SUMMARY_COLUMNS = ["ranks", "pes", "median_global_requests_sent", "median_global_steals",
                         "median_global_nodes_stolen"]
RANKS_PLOTS = ["%s.%s" % (n, e) for n in ("ranks_speedup", "ranks_global_steals") for e in ("png", "svg")]
BASE_PLOTS = ["%s.%s" % (n, e) for n in ("speedup", "efficiency", "nodes_per_sec", "work_share", "steal_stats")
              for e in ("png", "svg")]


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
    tally.check(header == study_data.RUN_COLUMNS
                and header[first:first + len(LOCALITY_RUN_COLUMNS)] == LOCALITY_RUN_COLUMNS,
                "runs.csv: the locality columns after the protocol ones", str(header))
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
    at = sheader.index("domains") if "domains" in sheader else -1
    tally.check(sheader == study_data.SUMMARY_COLUMNS and sheader[at:at + len(LOCALITY_SUMMARY_COLUMNS)]
                == LOCALITY_SUMMARY_COLUMNS, "summary.csv: the locality columns after the protocol one", str(sheader))
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


def check_ranks(tally, study, plot, binary, presets, tmp, flat_out, root, study_data):
    """The ranks axis on the tiny tree: 1 and 2 ranks x 1 and 2 threads under mpirun."""
    conf = study_data.read_key_values(os.path.join(root, "configs", "studies", "ranks.conf"))
    tally.check("T1L" in study_data.parse_list(conf["trees"]) and study_data.parse_threads(conf["threads"], 2) == [1, 2]
                and study_data.parse_ranks(conf["ranks"]) == [1, 2] and conf["reps"] == "3"
                and conf["protocol"] == "split",
                "configs/studies/ranks.conf: T1L, threads 1,2, ranks 1,2, 3 reps, protocol split", str(conf))
    # The runs without ranks (the first study): 1 rank, PEs = threads, no global columns, no ranks plots.
    with open(os.path.join(flat_out, "runs.csv")) as f:
        flat = list(csv.DictReader(f))
    with open(os.path.join(flat_out, "summary.csv")) as f:
        flat_sum = list(csv.DictReader(f))
    tally.check(all(r["ranks"] == "1" and r["pes"] == r["threads"] and r["pinning"] in ("numactl", "omp")
                    and all(r[c] == "" for c in RANKS_RUN_COLUMNS[2:]) for r in flat)
                and all(r["ranks"] == "1" and r["pes"] == r["threads"] and r["median_global_steals"] == ""
                        for r in flat_sum)
                and not any(os.path.exists(os.path.join(flat_out, n)) for n in RANKS_PLOTS),
                "a study without ranks: ranks 1, pes = threads, empty global columns, no ranks plots",
                str([(r["ranks"], r["pes"], r["pinning"], r["global_steals"]) for r in flat]))

    # --ranks without mpirun on PATH: exit 2, one line, before any run. PATH keeps what the script
    # could otherwise reach for (python3, numactl, git, lscpu), so only mpirun is missing.
    nompi = os.path.join(tmp, "nompi-bin")
    os.makedirs(nompi)
    for tool in ("python3", "numactl", "git", "lscpu", "bash", "sh"):
        found = shutil.which(tool)
        if found:
            os.symlink(found, os.path.join(nompi, tool))
    env = dict(os.environ, PATH=nompi)
    bad_out = os.path.join(tmp, "nompi")
    p = subprocess.run([study, "--trees", "tiny", "--threads", "1", "--ranks", "1,2", "--out", bad_out,
                        "--uts", binary, "--preset-dir", presets], capture_output=True, text=True, timeout=60, env=env)
    tally.check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "mpirun" in p.stderr
                and not os.path.exists(os.path.join(bad_out, "runs.csv")),
                "--ranks without mpirun on PATH exits 2 with one line, before any run",
                "rc=%d %r" % (p.returncode, p.stderr[-500:]))
    for ranks, what in (("0,1", "ranks 0"), ("1,x", "ranks that are not numbers")):
        p = subprocess.run([study, "--trees", "tiny", "--threads", "1", "--ranks", ranks, "--out", bad_out,
                            "--uts", binary, "--preset-dir", presets], capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
                    and not os.path.exists(os.path.join(bad_out, "runs.csv")),
                    "%s: exit 2 with one line" % what, p.stderr[-500:])

    if not shutil.which("mpirun"):
        print("SKIP: the ranks study itself: no mpirun on PATH")
        return
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    if "built without MPI" in version:  # the clang and sanitizer builds (-Dmpi=disabled); the main one has MPI
        print("SKIP: the ranks study itself: %s" % version.strip())
        return
    rout = os.path.join(tmp, "ranks")
    p = subprocess.run([study, "--trees", "tiny", "--threads", "1,2", "--ranks", "1,2", "--victim", "random",
                        "--reps", "1", "--out", rout, "--uts", binary, "--preset-dir", presets],
                       capture_output=True, text=True, timeout=300)
    tally.check(p.returncode == 0 and "[run 4/4]" in p.stderr and "ranks=2 threads=2" in p.stderr,
                "ranks study (1,2 ranks x 1,2 threads under mpirun) succeeds", p.stderr[-2000:])
    if p.returncode != 0:
        return
    with open(os.path.join(rout, "runs.csv")) as f:
        reader = csv.DictReader(f)
        runs = list(reader)
        header = reader.fieldnames
    tally.check(header == study_data.RUN_COLUMNS and header[-len(RANKS_RUN_COLUMNS):] == RANKS_RUN_COLUMNS,
                "runs.csv: the ranks columns at the end", str(header))
    by = {(r["ranks"], r["threads"]): r for r in runs}
    tally.check(len(runs) == 4 and set(by) == {(r, t) for r in ("1", "2") for t in ("1", "2")}
                and all(r["size"] == "3280" and int(r["pes"]) == int(r["ranks"]) * int(r["threads"])
                        and len(r["thread_nodes"].split(";")) == int(r["pes"])
                        and sum(int(x) for x in r["thread_nodes"].split(";")) == 3280 for r in runs),
                "runs.csv: one exact row per ranks and threads; pes = ranks x threads; every PE's nodes",
                str([(r["ranks"], r["threads"], r["pes"], r["thread_nodes"]) for r in runs]))
    tally.check(all(r[c] != "" and int(r[c]) >= 0 for r in runs for c in RANKS_RUN_COLUMNS[2:])
                and all(int(by[("1", t)][c]) == 0 for t in ("1", "2") for c in RANKS_RUN_COLUMNS[2:])
                and all(int(by[("2", t)]["global_steals"]) <= int(by[("2", t)]["global_requests_sent"])
                        and (int(by[("2", t)]["global_steals"]) > 0) == (int(by[("2", t)]["global_nodes_stolen"]) > 0)
                        for t in ("1", "2")),
                "runs.csv: global columns filled; none for 1 rank; steals <= requests; nodes stolen with steals",
                str([(r["ranks"], r["threads"]) + tuple(r[c] for c in RANKS_RUN_COLUMNS[2:]) for r in runs]))
    cpus = sorted(os.sched_getaffinity(0))
    cores = set()
    for cpu in cpus:  # physical cores, which mpirun's PE= and --bind-to core count
        topo = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
        try:
            with open(topo + "physical_package_id") as f, open(topo + "core_id") as g:
                cores.add((f.read().strip(), g.read().strip()))
        except OSError:
            cores.add(cpu)
    want = {}
    for (r, t), row in by.items():
        pes = int(r) * int(t)
        want[(r, t)] = ("mpirun " + ("oversubscribe " if pes > len(cpus) or int(r) > len(cores) else "")
                        + ("map-by slot:PE=%s bind-to core" % t if pes <= len(cores) else "bind-to none"))
    tally.check(all(by[k]["pinning"] == want[k] for k in by),
                "runs.csv: the mpirun pinning of each run (bind-to core where it fits, else none)",
                str([(k, by[k]["pinning"], want[k]) for k in sorted(by)]))
    with open(os.path.join(rout, "machine.json")) as f:
        m = json.load(f)
    launches = (m.get("mpirun") or {}).get("launches", {})
    tally.check(m["pinning"].startswith("mpirun") and set(launches) == {"ranks=%s threads=%s" % k for k in by}
                and all(launches["ranks=%s threads=%s" % k]["pinning"] == want[k]
                        and launches["ranks=%s threads=%s" % k]["command"].startswith("mpirun -np %s" % k[0])
                        for k in by),
                "machine.json: mpirun and each cell's exact launch", json.dumps(m.get("mpirun")))
    with open(os.path.join(rout, "summary.csv")) as f:
        reader = csv.DictReader(f)
        summary = list(reader)
        sheader = reader.fieldnames
    tally.check(sheader == study_data.SUMMARY_COLUMNS and sheader[-len(RANKS_SUMMARY_COLUMNS):]
                == RANKS_SUMMARY_COLUMNS, "summary.csv: the ranks columns at the end", str(sheader))
    sby = {(r["ranks"], r["threads"]): r for r in summary}
    one = sby.get(("1", "1"))
    tally.check(len(summary) == 4 and set(sby) == set(by) and one is not None and float(one["speedup"]) == 1.0
                and all(r["pes"] == str(int(r["ranks"]) * int(r["threads"])) and r["runs"] == "1" for r in summary)
                and all(abs(float(r["speedup"]) - float(one["median_seconds"]) / float(r["median_seconds"])) < 1e-3
                        * float(r["speedup"]) and abs(float(r["efficiency"]) - float(r["speedup"]) / int(r["pes"]))
                        < 1e-3 * float(r["efficiency"]) for r in summary),
                "summary.csv: a cell per ranks and threads; speedup against 1 rank x 1 thread, efficiency per PE",
                str([(r["ranks"], r["threads"], r["median_seconds"], r["speedup"], r["efficiency"]) for r in summary]))
    tally.check(all(r["median_global_steals"] == by[(r["ranks"], r["threads"])]["global_steals"] for r in summary),
                "summary.csv: global steal medians", str([r["median_global_steals"] for r in summary]))
    tally.check(plots_written(rout, BASE_PLOTS + RANKS_PLOTS), "ranks study: every plot and the ranks plots written")
    with open(os.path.join(rout, "ranks_speedup.svg")) as f:
        svg = f.read()
    tally.check("1 rank" in svg and "2 ranks" in svg, "ranks_speedup: a line per ranks value")
    with open(os.path.join(rout, "speedup.svg")) as f:
        svg = f.read()
    tally.check("PEs (ranks x threads)" in svg, "speedup plot: PEs on the x axis")
    for name in RANKS_PLOTS:
        os.remove(os.path.join(rout, name))
    p = subprocess.run([plot, rout], capture_output=True, text=True, timeout=300)
    tally.check(p.returncode == 0 and plots_written(rout, RANKS_PLOTS), "plot-results redraws the ranks plots",
                p.stderr[-1000:])


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

        tally.check(plots_written(out, plots), "all plots written as PNG and SVG")
        for name in plots:
            os.remove(os.path.join(out, name))
        p = subprocess.run([plot, out], capture_output=True, text=True, timeout=300)
        tally.check(p.returncode == 0 and plots_written(out, plots), "plot-results redraws them from the CSVs", p.stderr[-1000:])

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
        check_ranks(tally, study, plot, binary, presets, tmp, out, root, study_data)

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
