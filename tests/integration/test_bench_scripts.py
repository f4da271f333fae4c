#!/usr/bin/env python3
"""The bench scripts (scripts/bench-*) on tiny inputs: each writes its text,
a CSV whose every column its --help documents, and a JSON file that parses
and agrees with the CSV; the numbers in them obey their definitions (CI
around the median, speedup of the 1-thread run 1, efficiency = speedup /
PUs used); --out never overwrites; bad usage is one line and exit 2.
Nothing here judges speed.

usage: test_bench_scripts.py SOURCE_ROOT UTS_BINARY
"""
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from uts_check import Tally, signal_on_line

T = Tally()
SUMMARY_KEYS = ["n", "median", "mean", "std", "cv", "min", "max", "ci_low", "ci_high", "confidence", "ci_method"]
RATIO_KEYS = ["n", "n_baseline", "n_run", "speedup", "ratio", "ci_low", "ci_high", "confidence", "ci_method"]


def run(root, script, args, timeout=120):
    cmd = [sys.executable, os.path.join(root, "scripts", script)] + args
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, -1, "", "timed out after %ds" % timeout)


def num(v):
    return None if v in ("", None) else float(v)


def documented(help_text, column):
    """A column is documented when --help names it, or names its prefix as
    prefix_{...} and the rest is a summary or ratio key."""
    if re.search(r"(?<![\w{])%s(?![\w])" % re.escape(column), help_text):
        return True
    for key in SUMMARY_KEYS + RATIO_KEYS:
        if column.endswith("_" + key) and (column[:-len(key) - 1] + "_{") in help_text:
            return True
    # efficiency_vs_1thread_ci_low documented as efficiency_vs_1thread{,_ci_low,_ci_high}
    m = re.match(r"(.*?)(_ci_low|_ci_high)$", column)
    return bool(m and re.search(re.escape(m.group(1)) + r"\{[^}]*" + m.group(2), help_text))


def check_outputs(root, script, args, out, expect_rows, extra_csv=()):
    """Run script with --out; check its files. Returns (csv rows, json doc)."""
    p = run(root, script, args + ["--out", out])
    T.check(p.returncode == 0, "%s %s: exit 0" % (script, " ".join(args)), p.stderr.strip()[-400:])
    if p.returncode != 0:
        return [], {}
    T.check("statistics: median over" in p.stdout and "bootstrap percentile CI" in p.stdout,
            script + ": stdout still carries the text, with the statistics line")
    names = [script + ext for ext in (".txt", ".csv", ".json")] + list(extra_csv)
    T.check(all(os.path.isfile(os.path.join(out, n)) for n in names), script + ": wrote " + ", ".join(names),
            str(os.listdir(out)))
    with open(os.path.join(out, script + ".txt")) as f:
        text = f.read()
    T.check(text.strip() == p.stdout.strip(), script + ": .txt holds the text printed on stdout")
    helptext = run(root, script, ["--help"]).stdout
    docs = {}
    for name in [script + ".csv"] + list(extra_csv):
        with open(os.path.join(out, name), newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            cols = reader.fieldnames or []
        undocumented = [c for c in cols if not documented(helptext, c)]
        T.check(not undocumented, "%s: every one of its %d columns is documented in --help" % (name, len(cols)),
                "undocumented: %s" % undocumented)
        docs[name] = rows
    rows = docs[script + ".csv"]
    T.check(len(rows) == expect_rows, "%s.csv: %d rows" % (script, expect_rows), "got %d" % len(rows))
    with open(os.path.join(out, script + ".json")) as f:
        doc = json.load(f)
    T.check(doc.get("script") == script and doc.get("uts_version", "").startswith("uts ")
            and isinstance(doc.get("command_line"), list) and doc["statistics"]["confidence"] == 0.95,
            script + ".json: script, uts --version, command line, statistics settings")
    T.check(len(doc["tables"]["main"]) == len(rows), script + ".json: as many summary rows as the CSV")
    return rows, doc


def check_summary(script, rows, prefix):
    bad = []
    for r in rows:
        lo, med, hi = num(r[prefix + "_ci_low"]), num(r[prefix + "_median"]), num(r[prefix + "_ci_high"])
        mn, mx = num(r[prefix + "_min"]), num(r[prefix + "_max"])
        # 6 significant digits in the CSV
        tol = 1e-5 * abs(med)
        if not (mn - tol <= lo <= med + tol and med - tol <= hi <= mx + tol):
            bad.append((lo, med, hi, mn, mx))
        if int(r[prefix + "_n"]) != 2 or "bootstrap percentile" not in r[prefix + "_ci_method"]:
            bad.append(r[prefix + "_ci_method"])
    T.check(not bad, "%s: %s min <= CI low <= median <= CI high <= max, n 2, method named" % (script, prefix),
            str(bad[:3]))


def close(a, b, rel=2e-5):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def test_parallel(root, build, tmp, allowed):
    out = os.path.join(tmp, "par")
    rows, doc = check_outputs(root, "bench-parallel", ["--build", build, "--trees", "T1", "--reps", "2",
                                                        "--max-threads", "2", "--extra", "3"], out, 4)
    if not rows:
        return
    check_summary("bench-parallel", rows, "time_s")
    by = {r["config"]: r for r in rows}
    T.check(set(by) == {"seq", "1", "2", "3"}, "bench-parallel: rows seq, 1, 2, 3", str(sorted(by)))
    T.check(num(by["1"]["speedup_vs_1thread_speedup"]) == 1.0 and num(by["seq"]["speedup_vs_seq_speedup"]) == 1.0,
            "bench-parallel: 1 thread against itself and seq against itself are speedup 1")
    ok, detail = True, []
    for r in rows:
        pus = int(r["pus_used"])
        placement = doc["placements"].get("T1 new %s" % r["config"])
        threads = int(r["threads"])
        want = 1 if r["config"] == "seq" else (placement or {}).get("pus_used") or min(threads, allowed)
        if pus != want:
            ok = False
            detail.append("%s: pus_used %d, expected %d" % (r["config"], pus, want))
        for base in ("1thread", "seq"):
            e, s = num(r["efficiency_vs_" + base]), num(r["speedup_vs_%s_speedup" % base])
            if not close(e, s / pus):
                ok = False
                detail.append("%s: efficiency_vs_%s %r != %r / %d" % (r["config"], base, e, s, pus))
    T.check(ok, "bench-parallel: pus_used from the record (else min(threads, %d allowed PUs)); efficiency = "
            "speedup / pus_used against 1 thread and against seq" % allowed, "; ".join(detail))
    over = by["3"]["oversubscribed"]
    T.check(over == ("true" if allowed < 3 else "false"), "bench-parallel: 3 threads on %d PUs oversubscribed=%s"
            % (allowed, over))
    T.check(len(doc["runs"]) == 2 * 4, "bench-parallel.json: 8 timed runs (2 reps x 4 configurations), warm-up "
            "runs not among them", str(len(doc["runs"])))
    reps = [r["rep"] for r in doc["runs"]]
    T.check(reps == sorted(reps) and [r["config"] for r in doc["runs"][:4]] == ["seq", "1", "2", "3"],
            "bench-parallel: repetitions interleaved (rep 0 of every configuration before rep 1)")

    p = run(root, "bench-parallel", ["--build", build, "--trees", "T1", "--reps", "2", "--out", out])
    T.check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "exists" in p.stderr,
            "bench-parallel: an --out with earlier results is refused, one line, exit 2", p.stderr.strip())

    out2 = os.path.join(tmp, "proto")
    rows, _ = check_outputs(root, "bench-parallel", ["--build", build, "--trees", "T1", "--reps", "2",
                                                      "--max-threads", "2", "--warmup", "0", "--protocols",
                                                      "split,request"], out2, 4)
    if rows:
        check_summary("bench-parallel --protocols", rows, "time_s")
        req = [r for r in rows if r["protocol"] == "request" and r["threads"] == "2"]
        spl = [r for r in rows if r["protocol"] == "split"]
        T.check(req and req[0]["requests_sent_median"] != "" and all(r["requests_sent_median"] == "" for r in spl),
                "bench-parallel --protocols: request columns filled for request, empty for split")
        T.check(all(close(num(r["efficiency_vs_1thread"]), num(r["speedup_vs_1thread_speedup"]) / int(r["pus_used"]))
                    for r in rows), "bench-parallel --protocols: efficiency = speedup / pus_used")


def test_sequential(root, build, tmp):
    out = os.path.join(tmp, "seq")
    rows, doc = check_outputs(root, "bench-sequential", ["--build", build, "--trees", "T1", "--reps", "2",
                                                          "--sha1", "cryptopp", "--blocks", "200000"], out, 3,
                              extra_csv=["bench-sequential-raw.csv"])
    if not rows:
        return
    check_summary("bench-sequential", rows, "nodes_per_sec")
    T.check([r["engine"] for r in rows] == ["seq", "1 thread", "2 threads"]
            and all(r["sha1_ran"] == "cryptopp" for r in rows),
            "bench-sequential: seq, 1 thread, 2 threads rows, each ran cryptopp")
    with open(os.path.join(out, "bench-sequential-raw.csv"), newline="") as f:
        raw = {r["rate"]: r for r in csv.DictReader(f)}
    T.check("chained" in raw and "independent" in raw, "bench-sequential-raw.csv: chained and independent rates")
    r = rows[0]
    want = num(r["hashes_per_sec_median"]) / num(raw["chained"]["blocks_per_sec_median"])
    T.check(close(num(r["vs_chained_ratio"]), want, 1e-4), "bench-sequential: vs_chained = median hashes/s / "
            "median chained rate (%.4f)" % want, r["vs_chained_ratio"])


def test_sequential_interrupted(root, build, tmp):
    """SIGTERM (what `timeout` sends) after a whole repetition: the finished
    repetitions are summarized and written, the one in progress is dropped,
    exit status 130."""
    out = os.path.join(tmp, "seq-stop")
    cmd = [sys.executable, os.path.join(root, "scripts", "bench-sequential"), "--build", build, "--trees", "T1",
           "--reps", "1000", "--warmup", "0", "--sha1", "cryptopp", "--blocks", "200000", "--out", out]
    with open(os.path.join(tmp, "seq-stop.stdout"), "w+") as so:
        rc, err = signal_on_line(cmd, "rep 2/1000 done", signal.SIGTERM, stdout=so)
        so.seek(0)
        stdout = so.read()
    T.check(rc == 130, "bench-sequential, SIGTERM after 2 repetitions: exit 130",
            "exit %s: %s" % (rc, err[-400:]))
    if rc != 130:
        return
    with open(os.path.join(out, "bench-sequential.json")) as f:
        doc = json.load(f)
    stop = doc.get("interrupted") or {}
    done = stop.get("finished_reps")
    T.check(stop.get("planned_reps") == 1000 and isinstance(done, int) and 2 <= done < 1000 and doc["reps"] == done,
            "bench-sequential.json: interrupted {planned_reps 1000, finished_reps >= 2} and reps = finished",
            str(stop) + " reps %s" % doc.get("reps"))
    with open(os.path.join(out, "bench-sequential.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    T.check(len(rows) == 3 and all(int(r["time_s_n"]) == done and int(r["speedup_vs_seq_n"]) == done for r in rows),
            "bench-sequential.csv: 3 rows, each summarizing exactly the finished repetitions (n = %s)" % done,
            str([(r["time_s_n"], r["speedup_vs_seq_n"]) for r in rows]))
    runs = [r for r in doc["runs"] if r.get("kind") == "traversal"]
    T.check(len(runs) == 3 * done and max(r["rep"] for r in runs) == done - 1,
            "bench-sequential.json: the runs of the repetition in progress are dropped",
            "%d traversal runs, reps up to %d" % (len(runs), max(r["rep"] for r in runs)))
    T.check(("interrupted: %d of 1000 repetitions done" % done) in stdout and
            ("median over %d timed repetitions" % done) in stdout,
            "bench-sequential: the text says it was interrupted and over how many repetitions")


def test_idle(root, build, tmp):
    out = os.path.join(tmp, "idle")
    rows, doc = check_outputs(root, "bench-idle", ["--build", build, "--reps", "2", "--threads", "1,2",
                                                    "--q", "0.99999"], out, 2)
    if not rows:
        return
    check_summary("bench-idle", rows, "wall_s")
    T.check(rows[0]["wall_vs_first_ratio"] == "1" and len({r["size"] for r in rows}) == 1,
            "bench-idle: first count against itself is 1; one size for every count")


def test_mpi(root, build, tmp, uts):
    version = subprocess.run([uts, "--version"], capture_output=True, text=True).stdout
    if "with MPI" not in version or "without MPI" in version or shutil.which("mpirun") is None:
        print("skip  bench-mpi: uts built without MPI or no mpirun (%s)" % version.strip())
        return
    out = os.path.join(tmp, "mpi")
    rows, doc = check_outputs(root, "bench-mpi", ["--build", build, "--trees", "T1", "--reps", "2", "--polls", "",
                                                   "--mpirun-args=--oversubscribe --mca btl self,vader"], out, 3)
    if not rows:
        return
    check_summary("bench-mpi", rows, "time_s")
    by = {r["config"]: r for r in rows}
    T.check(by["plain"]["vs_plain_ratio"] == "1" and by["1 rank"]["speedup_vs_1rank_speedup"] == "1"
            and by["2 ranks"]["ranks"] == "2", "bench-mpi: plain, 1 rank and 2 ranks rows; ratios against themselves 1")


def test_ranks(root, build, tmp, uts):
    version = subprocess.run([uts, "--version"], capture_output=True, text=True).stdout
    if "with MPI" not in version or "without MPI" in version or shutil.which("mpirun") is None:
        print("skip  bench-ranks: uts built without MPI or no mpirun (%s)" % version.strip())
        return
    out = os.path.join(tmp, "ranks")
    rows, doc = check_outputs(root, "bench-ranks", ["--build", build, "--trees", "T1", "--reps", "2", "--warmup", "0",
                                                     "--ranks", "2,6", "--modes", "random/ring,lifeline/tree"],
                              out, 4, extra_csv=("bench-ranks-fit.csv",))
    if not rows:
        return
    check_summary("bench-ranks", rows, "time_s")
    by = {(r["ranks"], r["mode"]): r for r in rows}
    T.check(set(by) == {("2", "random/ring"), ("6", "random/ring"), ("2", "lifeline/tree"), ("6", "lifeline/tree")}
            and by[("2", "random/ring")]["vs_random_ring_ratio"] == ""
            and num(by[("2", "lifeline/tree")]["vs_random_ring_ratio"]) > 0,
            "bench-ranks: a row per rank count and mode; the baseline has no ratio, the others do")
    T.check(all(num(r["steals_median"]) + num(r["pushes_median"]) > 0 and num(r["termination_waves_median"]) >= 1
                and num(r["termination_latency_s_median"]) >= 0 for r in rows),
            "bench-ranks: steals or pushes, waves and a latency in every row")
    T.check(all(r["dormant_fraction_median"] == "" for r in rows if r["mode"] == "random/ring")
            and all(r["lifeline_requests_median"] == "0" for r in rows if r["mode"] == "random/ring"),
            "bench-ranks: no lifeline figures under random stealing")
    fits = doc.get("tables", {}).get("fit", [])
    T.check(len(fits) == 4 and {f["predict_ranks"] for f in fits} == {1024, 16384}
            and {f["x"] for f in fits} == {"P", "D"},
            "bench-ranks: the latency fit predicts 1024 and 16384 ranks for ring (x = P) and tree (x = D; 2 and 6 ranks "
            "have depths 1 and 2)", str(fits))


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def test_sha1_rate(build):
    """uts-sha1-rate (the kernel rates bench-sequential divides by): each
    documented line once, every rate positive, a kernel's lines exactly where
    the CPU has it (and none when it is forced off), the fold independent of
    timing, bad BLOCKS one line and exit 2."""
    tool = os.path.join(build, "uts-sha1-rate")
    if not os.path.exists(tool):
        T.check(False, "uts-sha1-rate is built beside uts", tool)
        return
    shani = ["shani_lanes_%d" % l for l in range(1, 7)]
    avx512 = ["avx512_lanes_16", "avx512_independent", "avx512_pair"]

    def rates(env_off):
        env = dict(os.environ)
        env.pop("UTS_SHA1_NO_SHANI", None)
        env.pop("UTS_SHA1_NO_AVX512", None)
        env.update({k: "1" for k in env_off})
        p = subprocess.run([tool, "40000"], capture_output=True, text=True, env=env, timeout=120)
        keys = [line.partition(" ")[0] for line in p.stdout.splitlines()]
        T.check(len(keys) == len(set(keys)), "uts-sha1-rate: each line once", str(keys))
        return p.returncode, dict(line.partition(" ")[::2] for line in p.stdout.splitlines())

    flags = cpu_flags()
    for off in ([], ["UTS_SHA1_NO_SHANI", "UTS_SHA1_NO_AVX512"]):
        rc, out = rates(off)
        what = "uts-sha1-rate" + (" with " + ", ".join(off) if off else "")
        T.check(rc == 0, what + ": exit 0", str(rc))
        has_shani = not off and flags is not None and "sha_ni" in flags
        has_avx512 = not off and flags is not None and {"avx512f", "avx512vl"} <= flags
        want = ["chained", "independent"] + (shani if has_shani else []) + (avx512 if has_avx512 else [])
        got = [k[:-len("_blocks_per_sec")] for k in out if k.endswith("_blocks_per_sec")]
        if flags is not None:
            T.check(got == want, what + ": the rate lines this CPU has, in order", str(got))
        T.check(all(num(out[k]) > 0 for k in out if k.endswith("_blocks_per_sec")), what + ": every rate > 0")
        T.check(out.get("blocks") == "40000", what + ": blocks echoed", out.get("blocks"))
        fast = "avx512" if has_avx512 else "shani" if has_shani else "cryptopp"
        if off or not (has_avx512 and has_shani):  # with both, a calibration decides
            T.check(out.get("auto_path") == fast, what + ": auto_path " + fast, out.get("auto_path"))
        else:
            T.check(out.get("auto_path") in ("avx512", "shani"), what + ": auto_path a fast path", out.get("auto_path"))
        T.check(re.fullmatch(r"[0-9a-f]{8}", out.get("fold", "")) is not None, what + ": fold is 8 hex digits")
        if not off:
            rc2, again = rates(off)
            T.check(again.get("fold") == out.get("fold"), what + ": the same fold twice (it hashes, not times)",
                    "%s %s" % (out.get("fold"), again.get("fold")))
    p = subprocess.run([tool, "000000000000000000016"], capture_output=True, text=True, timeout=60)
    T.check(p.returncode == 0 and "blocks 16\n" in p.stdout, "uts-sha1-rate 000000000000000000016: leading zeros are "
            "fine (16 blocks)", "exit %d, %r" % (p.returncode, p.stderr))
    for bad in (["0"], ["x"], ["-3"], ["12z"], [""], ["1000000000001"], ["99999999999999999999999"], ["5", "6"]):
        p = subprocess.run([tool] + bad, capture_output=True, text=True, timeout=60)
        T.check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and p.stdout == "",
                "uts-sha1-rate %s: one line, exit 2" % " ".join(bad), "exit %d, stderr %r" % (p.returncode, p.stderr))


def test_usage(root, build):
    for script, args in (("bench-parallel", ["--reps", "0"]), ("bench-sequential", ["--trees", "NOPE"]),
                         ("bench-sequential", ["--blocks", "2000000000000"]),
                         ("bench-idle", ["--threads", "x"]), ("bench-mpi", ["--confidence", "95"]),
                         ("bench-ranks", ["--modes", "random/star"]), ("bench-ranks", ["--ranks", "1"]),
                         ("bench-parallel", ["--protocols", "split", "--compare", build])):
        p = run(root, script, ["--build", build] + args)
        T.check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr,
                "%s %s: one line, exit 2: %s" % (script, " ".join(args), p.stderr.strip()),
                "exit %d, stderr %r" % (p.returncode, p.stderr))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root, uts = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    build = os.path.dirname(uts)
    allowed = len(os.sched_getaffinity(0))
    tmp = tempfile.mkdtemp(prefix="uts-bench-test-")
    try:
        test_usage(root, build)
        test_sha1_rate(build)
        test_parallel(root, build, tmp, allowed)
        test_sequential(root, build, tmp)
        test_sequential_interrupted(root, build, tmp)
        test_idle(root, build, tmp)
        test_mpi(root, build, tmp, uts)
        test_ranks(root, build, tmp, uts)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.finish()


if __name__ == "__main__":
    sys.exit(main())
