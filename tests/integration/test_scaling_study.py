#!/usr/bin/env python3
"""scripts/study scaling and scripts/plot-results on a tiny tree (3280
nodes): runs.csv with warm-up runs flagged, each run once, repetitions in
rounds; the placement uts reports (where the binary has --bind);
summary.csv's statistics recomputed from runs.csv (median, CI bounds,
speedups against the 1-thread and the --sequential cell paired by
repetition, efficiency = speedup / PUs used); machine.json (schema 1);
every figure, and plot-results redrawing them; the time breakdown in
runs.csv and summary.csv with the work inflation against the
--sequential cell and its figures (or, for an older binary, empty columns
and no breakdown figure). The protocol axis (each
protocol's own steal and victim), the locality axes (1 thread in 2 domains
skipped; the hierarchy figures; no speedup figures without a baseline),
the ranks axis under mpirun (where mpirun and an MPI build exist); a wrong
expected value exits 1; a bad study and a combination uts rejects exit 2.

usage: PYTHONPATH=REPO_ROOT/scripts test_scaling_study.py REPO_ROOT UTS_BINARY (meson test sets PYTHONPATH)
"""
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from uts_check import Tally

# A balanced ternary tree of depth 7: (3^8 - 1) / 2 nodes, 3^7 leaves.
TINY = """description = balanced ternary tree, depth 7
tree = balanced
b0 = 3
depth = 7
expect-size = 3280
expect-depth = 7
expect-leaves = 2187
"""

BASE_FIGURES = ["speedup", "efficiency", "speedup_sequential", "efficiency_sequential", "nodes_per_sec",
                "work_share", "steal_stats"]
HIER_FIGURES = ["hier_time", "hier_remote_steals", "hier_nodes_per_remote_steal", "hier_domain_share"]
RANKS_FIGURES = ["ranks_speedup", "ranks_global_steals"]
BREAKDOWN_FIGURES = ["breakdown", "breakdown_seconds", "work_inflation"]
BREAKDOWN_PARTS = ["time_work", "time_search", "time_claim", "time_idle", "time_termination", "time_agent"]


# The main study draws PNG and SVG (the default); the other studies and the
# redraws SVG only (UTS_FIGURE_FORMATS), which halves their drawing time.
SVG_ONLY = dict(os.environ, UTS_FIGURE_FORMATS="svg")


def figures_written(folder, names, exts=("png", "svg")):
    missing = []
    for name in names:
        for ext in exts:
            path = os.path.join(folder, "%s.%s" % (name, ext))
            ok = os.path.isfile(path) and os.path.getsize(path) > 1000
            if ok and ext == "png":
                with open(path, "rb") as f:
                    ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
            if not ok:
                missing.append(os.path.basename(path))
    return missing


def read(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def close(a, b, rel=1e-4):
    return abs(float(a) - float(b)) <= rel * max(abs(float(a)), abs(float(b)), 1e-12)


def has_breakdown(binary):
    """Whether the binary reports the time breakdown (binaries before it do not)."""
    p = subprocess.run([binary, "-t", "balanced", "-b", "1", "-d", "0", "--format", "json", "--no-progress"],
                       capture_output=True, text=True, timeout=60)
    try:
        return "time_total" in json.loads(p.stdout)["aggregates"]
    except (ValueError, KeyError):
        return False


def check_breakdown(tally, out, runs, summary, stderr, breakdown):
    """The time breakdown in runs.csv and summary.csv, the work inflation
    against the sequential cell, and the breakdown figures; or, for a binary
    without the breakdown, empty columns and no figures."""
    measured = [r for r in runs if r["warmup"] == "0"]
    if not breakdown:
        print("SKIP: breakdown values: the binary reports no time breakdown (older than it)")
        tally.check(all(r["time_total"] == "" and r["time_work"] == "" for r in runs)
                    and all(r["work_inflation"] == "" and r["time_work_median"] == "" for r in summary)
                    and "breakdown, breakdown_seconds not drawn" in stderr
                    and figures_written(out, BREAKDOWN_FIGURES) == [x + "." + e for x in BREAKDOWN_FIGURES
                                                                    for e in ("png", "svg")],
                    "no breakdown from the binary: the columns empty, no breakdown figure, said on stderr")
        return
    ok = True
    for r in runs:
        total = float(r["time_total"])
        parts = sum(float(r[c]) for c in BREAKDOWN_PARTS)
        ok &= total > 0 and abs(parts - total) <= 0.01 * total
    tally.check(ok, "runs.csv: each run's breakdown, the parts adding up to time_total within 1%")
    seq = [r for r in runs if r["engine"] == "sequential"]
    tally.check(all(abs(float(r["time_work"]) - float(r["time_total"])) <= 0.01 * float(r["time_total"])
                    for r in seq), "runs.csv: a --sequential run's time is all work")
    by = {r["cell"]: r for r in summary}
    seq_cell = next(c for c in by if by[c]["engine"] == "sequential")
    seq_median = statistics.median(float(r["seconds"]) for r in measured if r["cell"] == seq_cell)
    ok_med, ok_infl = True, True
    for cell, row in by.items():
        work = [float(r["time_work"]) for r in measured if r["cell"] == cell]
        total = [float(r["time_total"]) for r in measured if r["cell"] == cell]
        ok_med &= close(row["time_work_median"], statistics.median(work)) and close(row["time_total_median"],
                                                                                    statistics.median(total))
        ok_infl &= (close(row["work_inflation"], statistics.median(work) / seq_median)
                    and row["work_inflation_n"] == "3"
                    and float(row["work_inflation_ci_low"]) <= float(row["work_inflation_ci_high"]))
    tally.check(ok_med, "summary.csv: the medians of the breakdown parts per cell")
    tally.check(ok_infl, "summary.csv: work inflation = median time_work / the --sequential cell's median time, "
                "n = 3 pairs", str([(c, by[c]["work_inflation"]) for c in by]))
    missing = figures_written(out, BREAKDOWN_FIGURES)
    tally.check(not missing, "breakdown, breakdown_seconds and work_inflation figures written", ", ".join(missing))
    if not missing:
        with open(os.path.join(out, "breakdown.svg")) as f:
            svg = f.read()
        tally.check("n = 3" in svg and "mean over" in svg and "victim=tree" in svg and "termination" in svg
                    and "Machine:" in svg, "breakdown figure: a panel per policy, the parts, a caption with n and "
                    "the statistic")


def check_main(tally, study, plot, binary, presets, tmp, study_data, has_bind):
    out = os.path.join(tmp, "main")
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--threads", "1,2,4", "--victim", "random,tree",
                        "--reps", "3", "--warmup", "1", "--order-seed", "7", "--out", out, "--uts", binary,
                        "--preset-dir", presets], capture_output=True, text=True, timeout=300)
    # 2 victims x 3 thread counts + 1 sequential cell = 7 cells, x (1 warm-up + 3 reps) = 28 runs
    tally.check(p.returncode == 0 and "[run 28/28]" in p.stderr, "study on a tiny tree: 28 runs", p.stderr[-2000:])
    if p.returncode != 0:
        return
    header, runs = read(os.path.join(out, "runs.csv"))
    tally.check(header == study_data.RUN_COLUMNS, "runs.csv header", str(header))
    keys = [(r["cell"], r["warmup"], r["rep"]) for r in runs]
    tally.check(len(runs) == 28 and len(set(keys)) == 28, "runs.csv: 28 runs, each (cell, warmup, rep) once")
    cells = sorted({r["cell"] for r in runs})
    warm = [r for r in runs if r["warmup"] == "1"]
    measured = [r for r in runs if r["warmup"] == "0"]
    tally.check(len(cells) == 7 and len(warm) == 7 and all(r["rep"] == "1" for r in warm) and len(measured) == 21
                and all(sorted(r["rep"] for r in measured if r["cell"] == c) == ["1", "2", "3"] for c in cells),
                "runs.csv: one warm-up run (warmup=1) and 3 measured reps per cell")
    tally.check(all(r["size"] == "3280" and r["checksum"] == runs[0]["checksum"] for r in runs),
                "runs.csv: every run exact, one checksum")
    seq = [r for r in runs if r["engine"] == "sequential"]
    tally.check(len(seq) == 4 and all(r["threads"] == "1" and r["steal"] == "" and r["victim"] == ""
                                      and r["steals"] == "" for r in seq),
                "runs.csv: the --sequential cell, its steal columns empty",
                str([(r["steal"], r["victim"], r["steals"]) for r in seq]))
    by_order = sorted(runs, key=lambda r: int(r["order"]))
    rounds = [("1", "1")] + [("0", str(k)) for k in (1, 2, 3)]
    sequence = [(r["warmup"], r["rep"]) for r in by_order]
    tally.check(sequence == [x for x in rounds for _ in range(7)] and [int(r["order"]) for r in by_order]
                == list(range(1, 29)), "runs go in rounds: the warm-up round, then rep 1, 2, 3 of every cell")
    orders = [[r["cell"] for r in by_order[i * 7:(i + 1) * 7]] for i in range(4)]
    tally.check(len({tuple(o) for o in orders}) > 1, "the cell order is shuffled per round (seed 7)",
                str(orders))
    if has_bind:
        par = [r for r in runs if r["engine"] == "parallel"]
        ok = all(r["bind"] == "compact" and r["pinning"].startswith("uts --bind compact")
                 and len(r["placement"].split()) == int(r["threads"])
                 and all(e.split(":")[1].isdigit() for e in r["placement"].split())
                 and 1 <= int(r["pus_used"]) <= int(r["pus_available"])
                 and (r["oversubscribed"] == "true") == (int(r["threads"]) > int(r["pus_available"]))
                 for r in par)
        tally.check(ok, "runs.csv: bind compact; a PU per thread; pus_used; oversubscribed iff threads > PUs",
                    str([(r["threads"], r["bind"], r["placement"], r["pus_used"], r["pus_available"],
                          r["oversubscribed"]) for r in par[:6]]))
        tally.check(all(r["hosts"] for r in runs), "runs.csv: the host of every run")
    else:
        print("SKIP: placement columns: %s has no --bind (older than it)" % binary)

    sheader, summary = read(os.path.join(out, "summary.csv"))
    tally.check(sheader == study_data.SUMMARY_COLUMNS, "summary.csv header", str(sheader))
    by = {r["cell"]: r for r in summary}
    times = {c: {r["rep"]: float(r["seconds"]) for r in measured if r["cell"] == c} for c in cells}
    tally.check(set(by) == set(cells) and all(r["seconds_n"] == "3" for r in summary)
                and all(close(by[c]["seconds_median"], statistics.median(times[c].values())) for c in cells)
                and all(close(by[c]["seconds_mean"], statistics.mean(times[c].values())) for c in cells)
                and all(float(r["seconds_ci_low"]) <= float(r["seconds_median"]) * (1 + 1e-5)
                        and float(r["seconds_median"]) <= float(r["seconds_ci_high"]) * (1 + 1e-5)
                        and float(r["seconds_min"]) <= float(r["seconds_ci_low"]) * (1 + 1e-5) for r in summary),
                "summary.csv: median and mean of the 3 measured runs (warm-up left out); min <= CI low <= median "
                "<= CI high", str([(r["seconds_median"], r["seconds_ci_low"], r["seconds_ci_high"]) for r in summary]))
    seq_cell = next(c for c in cells if c.endswith("sequential"))
    ok_1pe, ok_seq, ok_eff = True, True, True
    for c in cells:
        row = by[c]
        if row["engine"] != "parallel":
            continue
        one = next(k for k in cells if by[k]["engine"] == "parallel" and by[k]["victim"] == row["victim"]
                   and by[k]["threads"] == "1")
        want = statistics.median(times[one].values()) / statistics.median(times[c].values())
        ok_1pe &= close(row["speedup_vs_1pe"], want) and row["speedup_vs_1pe_n"] == "3" and (
            float(row["speedup_vs_1pe_ci_low"]) <= float(row["speedup_vs_1pe_ci_high"]))
        want = statistics.median(times[seq_cell].values()) / statistics.median(times[c].values())
        ok_seq &= close(row["speedup_vs_seq"], want) and row["speedup_vs_seq_n"] == "3"
        ok_eff &= close(row["efficiency_vs_1pe"], float(row["speedup_vs_1pe"]) / int(row["pus_used"])) and close(
            row["efficiency_vs_seq_ci_high"], float(row["speedup_vs_seq_ci_high"]) / int(row["pus_used"]))
        if has_bind:
            cell_runs = [r for r in measured if r["cell"] == c]
            ok_eff &= row["pus_used"] == str(max(int(r["pus_used"]) for r in cell_runs))
    tally.check(ok_1pe, "summary.csv: speedup vs the 1-thread cell = ratio of medians, n = 3 pairs")
    tally.check(ok_seq, "summary.csv: speedup vs the --sequential cell = ratio of medians")
    tally.check(ok_eff, "summary.csv: efficiency = speedup / pus_used (CI bounds too)")
    ones = [r for r in summary if r["engine"] == "parallel" and r["threads"] == "1"]
    tally.check(all(float(r["speedup_vs_1pe"]) == 1.0 and float(r["speedup_vs_1pe_ci_low"]) == 1.0 for r in ones)
                and by[seq_cell]["speedup_vs_1pe"] == "" and float(by[seq_cell]["speedup_vs_seq"]) == 1.0,
                "summary.csv: the baselines' own speedups are 1; no 1-thread speedup for the sequential cell")

    with open(os.path.join(out, "machine.json")) as f:
        m = json.load(f)
    need = ("schema", "study", "command_line", "started_utc", "finished_utc", "config", "definition", "binary",
            "build", "machine", "placement", "fallbacks", "software", "runs")
    tally.check(all(k in m for k in need) and m["schema"] == 1 and m["study"] == "scaling"
                and m["finished_utc"] and "trees" in m["config"]["text"] and m["definition"]["order_seed"] == 7
                and m["definition"]["trees"] == ["tiny"] and m["runs"]["planned"] == 28,
                "machine.json: schema 1, the study, its config text, definition and seed", str(sorted(m)))
    tally.check(m["machine"]["affinity_cpus"] == sorted(os.sched_getaffinity(0))
                and all(m["software"].get(k) for k in ("python", "numpy", "matplotlib"))
                and isinstance(m["fallbacks"], list) and m["machine"]["topology"].get("pus"),
                "machine.json: affinity CPUs, library versions, topology, fallbacks", json.dumps(m["software"]))
    sig = m["machine"].get("cpu_signature")
    tally.check(isinstance(sig, str) and (sig == "unknown"
                                          or re.fullmatch(r"\S+ family \d+ model \d+ stepping \d+", sig)),
                "machine.json: the CPU's signature from the binary's record (vendor, family, model, stepping)",
                repr(sig))
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    if m["build"] is not None:
        tally.check(len(m["build"].get("commit") or "") >= 7 and m["build"]["commit"] in version,
                    "machine.json: the commit is the binary's (as --version prints it)", version)
    else:
        tally.check("build_note" in m and any("build" in f["missing"] for f in m["fallbacks"]),
                    "machine.json: a binary without provenance is said to be one")
    breakdown = has_breakdown(binary)
    check_breakdown(tally, out, runs, summary, p.stderr, breakdown)
    missing = figures_written(out, BASE_FIGURES)
    tally.check(not missing, "every figure written (PNG and SVG)", ", ".join(missing))
    with open(os.path.join(out, "speedup.svg")) as f:
        svg = f.read()
    tally.check("n = 3" in svg and "95% bootstrap" in svg and "Machine:" in svg and "cores" in svg,
                "speedup figure: caption with n, the statistic, the error bars and the machine line; core line")
    if isinstance(sig, str) and sig != "unknown":
        tally.check("(%s)" % sig in svg, "speedup figure: the machine line names the CPU's signature", sig)
    redrawn = BASE_FIGURES + (BREAKDOWN_FIGURES if breakdown else [])
    for name in redrawn:
        os.remove(os.path.join(out, name + ".svg"))
    p = subprocess.run([plot, out], capture_output=True, text=True, timeout=300, env=SVG_ONLY)
    tally.check(p.returncode == 0 and not figures_written(out, redrawn, ("svg",)), "plot-results redraws them",
                p.stderr[-1000:])


def check_protocols(tally, study, binary, presets, tmp):
    pout = os.path.join(tmp, "protocols")
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--threads", "1,2", "--protocol", "request,chaselev",
                        "--reps", "1", "--warmup", "0", "--sequential", "no", "--out", pout, "--uts", binary,
                        "--preset-dir", presets], capture_output=True, text=True, timeout=300, env=SVG_ONLY)
    tally.check(p.returncode == 0 and "[run 4/4]" in p.stderr, "study over two protocols succeeds", p.stderr[-2000:])
    if p.returncode != 0:
        return
    _, rows = read(os.path.join(pout, "runs.csv"))
    by = {(r["protocol"], r["threads"]): r for r in rows}
    tally.check(len(rows) == 4 and all(by[("request", t)]["steal"] == "half" and by[("chaselev", t)]["steal"] == "one"
                                       and by[(pr, t)]["victim"] == "random" for pr in ("request", "chaselev")
                                       for t in ("1", "2")),
                "runs.csv: each protocol with its own steal and victim (the config's steal = half not passed)",
                str(sorted(by)))
    req, cl = by[("request", "2")], by[("chaselev", "2")]
    tally.check(req["requests_sent"] != "" and cl["requests_sent"] == "" and cl["shares"] == "",
                "runs.csv: request columns for protocol request only")
    with open(os.path.join(pout, "speedup.svg")) as f:
        svg = f.read()
    tally.check(svg.count("protocol=request") == 1 and svg.count("protocol=chaselev") == 1,
                "speedup figure: one legend line per protocol")
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--threads", "1", "--protocol", "chaselev", "--steal",
                        "half", "--out", os.path.join(tmp, "rejected"), "--uts", binary, "--preset-dir", presets],
                       capture_output=True, text=True, timeout=60)
    tally.check(p.returncode == 2 and "rejects" in p.stderr and len(p.stderr.strip().splitlines()) == 1
                and not os.path.exists(os.path.join(tmp, "rejected")),
                "a combination uts rejects: one line, exit 2, nothing written", p.stderr)


def check_locality(tally, study, plot, binary, presets, tmp):
    hout = os.path.join(tmp, "hier")
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--threads", "1,2", "--victim", "random,hier",
                        "--domains", "2", "--remote-delay", "0,2000", "--reps", "2", "--warmup", "0",
                        "--sequential", "no", "--out", hout, "--uts", binary, "--preset-dir", presets],
                       capture_output=True, text=True, timeout=300, env=SVG_ONLY)
    tally.check(p.returncode == 0 and "[run 8/8]" in p.stderr and "skipping threads 1 with domains=2" in p.stderr
                and "speedup not drawn" in p.stderr,
                "locality study: 1 thread in 2 domains skipped; no speedup figure without a baseline",
                p.stderr[-2000:])
    if p.returncode != 0:
        return
    _, rows = read(os.path.join(hout, "runs.csv"))
    tally.check(all(r["threads"] == "2" and r["domains"] == "2" and r["remote_steals"] != ""
                    and int(r["local_steals"]) + int(r["remote_steals"]) == int(r["steals"])
                    and sum(int(x) for x in r["domain_nodes"].split(";")) == 3280 for r in rows)
                and {r["steal_local"] for r in rows if r["victim"] == "hier"} == {"one"},
                "runs.csv: local + remote = steals; domain nodes sum to the tree; hier's steal_local")
    _, summary = read(os.path.join(hout, "summary.csv"))
    tally.check(len(summary) == 4 and all(r["speedup_vs_1pe"] == "" and r["remote_steals_median"] != ""
                                          for r in summary),
                "summary.csv: a cell per victim and delay, remote steal medians, no 1-thread speedup")
    missing = figures_written(hout, HIER_FIGURES, ("svg",))
    tally.check(not missing and not os.path.exists(os.path.join(hout, "speedup.svg")),
                "hierarchy figures written; no empty speedup figure", ", ".join(missing))
    with open(os.path.join(hout, "hier_time.svg")) as f:
        svg = f.read()
    tally.check("2 µs" in svg and "us)" not in svg, "remote delays in µs")
    for name in HIER_FIGURES:
        os.remove(os.path.join(hout, name + ".svg"))
    p = subprocess.run([plot, hout], capture_output=True, text=True, timeout=300, env=SVG_ONLY)
    tally.check(p.returncode == 0 and not figures_written(hout, HIER_FIGURES, ("svg",)), "plot-results redraws them",
                p.stderr[-1000:])


def check_ranks(tally, study, binary, presets, tmp):
    if not shutil.which("mpirun"):
        p = subprocess.run([study, "scaling", "--trees", "tiny", "--ranks", "1,2", "--out", os.path.join(tmp, "r"),
                            "--uts", binary, "--preset-dir", presets], capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and "mpirun" in p.stderr, "--ranks without mpirun: exit 2", p.stderr)
        return
    if "without MPI" in subprocess.run([binary, "--version"], capture_output=True, text=True).stdout:
        print("SKIP: the ranks study: %s is built without MPI" % binary)
        return
    rout = os.path.join(tmp, "ranks")
    p = subprocess.run([study, "scaling", "--trees", "tiny", "--threads", "1,2", "--ranks", "1,2", "--victim",
                        "random", "--reps", "1",
                        "--warmup", "0", "--out", rout, "--uts", binary, "--preset-dir", presets],
                       capture_output=True, text=True, timeout=300, env=SVG_ONLY)
    tally.check(p.returncode == 0 and "[run 5/5]" in p.stderr, "ranks study (1,2 ranks x 1,2 threads + sequential)",
                p.stderr[-2000:])
    if p.returncode != 0:
        return
    _, rows = read(os.path.join(rout, "runs.csv"))
    par = [r for r in rows if r["engine"] == "parallel"]
    tally.check(len(par) == 4 and all(int(r["pes"]) == int(r["ranks"]) * int(r["threads"])
                                      and len(r["thread_nodes"].split(";")) == int(r["pes"]) for r in par)
                and all(r["pinning"].startswith("mpirun") for r in par),
                "runs.csv: pes = ranks x threads; every PE's nodes; the mpirun launch per run")
    tally.check(all(r["hosts"] for r in par), "runs.csv: every rank's host",
                str([r["hosts"] for r in par]))
    with open(os.path.join(rout, "machine.json")) as f:
        m = json.load(f)
    tally.check(set((m.get("mpirun") or {}).get("launches", {})) == {"ranks=%d threads=%d" % (r, t)
                                                                      for r in (1, 2) for t in (1, 2)}
                and m["machine"]["hosts"], "machine.json: mpirun, each cell's launch, the hosts")
    missing = figures_written(rout, RANKS_FIGURES, ("svg",))
    tally.check(not missing, "ranks figures written", ", ".join(missing))


def main():
    root, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    study = os.path.join(root, "scripts", "study")
    plot = os.path.join(root, "scripts", "plot-results")
    from utstools import study_data  # PYTHONPATH=scripts (tests/meson.build)
    has_bind = "--bind" in subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        presets = os.path.join(tmp, "presets")
        os.makedirs(presets)
        with open(os.path.join(presets, "tiny.conf"), "w") as f:
            f.write(TINY)
        with open(os.path.join(presets, "tinybad.conf"), "w") as f:
            f.write(TINY.replace("expect-size = 3280", "expect-size = 3281"))
        check_main(tally, study, plot, binary, presets, tmp, study_data, has_bind)
        check_protocols(tally, study, binary, presets, tmp)
        check_locality(tally, study, plot, binary, presets, tmp)
        check_ranks(tally, study, binary, presets, tmp)
        bad = subprocess.run([study, "scaling", "--trees", "tinybad", "--threads", "1,2", "--reps", "1",
                              "--out", os.path.join(tmp, "bad"), "--uts", binary, "--preset-dir", presets],
                             capture_output=True, text=True, timeout=300)
        tally.check(bad.returncode == 1 and "MISMATCH" in bad.stderr and "3281" in bad.stderr
                    and "--resume" in bad.stderr, "a wrong expected value stops the study with exit 1",
                    "rc=%d %s" % (bad.returncode, bad.stderr[-500:]))
        p = subprocess.run([study, "scaling", "--trees", "tiny", "--threads", "0", "--out", os.path.join(tmp, "z"),
                            "--uts", binary], capture_output=True, text=True, timeout=60)
        tally.check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
                    and not os.path.exists(os.path.join(tmp, "z")), "a bad study definition: one line, exit 2",
                    p.stderr)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
