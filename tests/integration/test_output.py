#!/usr/bin/env python3
"""Output contract (docs/output.md): text lines, JSON, CSV, --output, --verify,
--max-nodes, informational flags.

usage: test_output.py UTS_BINARY
"""
import csv
import io
import json
import os
import platform
import re
import sys
import tempfile

from uts_check import Tally, run_uts

T1 = ["-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"]


MEMORY = ("peak_rss_bytes", "start_peak_rss_bytes", "start_rss_bytes")
# A tree whose depth-first stack holds some 300,000 nodes once --max-nodes
# stops it (geometric, 5 children on average, depth unbounded in practice):
# tens of MiB more than T1's, whose stack never holds more than a few dozen.
WIDE_DEEP = ["-t", "1", "-a", "3", "-b", "5", "-d", "1000000", "-r", "1", "--max-nodes", "400000"]


def memory_fields_ok(mem):
    """JSON memory (docs/output.md, section 4d): every figure present, a
    positive number, the peak at least the start's."""
    return (isinstance(mem, dict) and all(isinstance(mem.get(k), int) and mem[k] > 0 for k in MEMORY)
            and mem["peak_rss_bytes"] >= mem["start_peak_rss_bytes"] >= mem["start_rss_bytes"] // 2
            and mem.get("peak_rss_source") in ("VmHWM", "ru_maxrss"))


def check_memory(binary, tally):
    """The peak resident memory in every record: each engine (sequential,
    parallel, the pool), each format (text, JSON, CSV, --output)."""
    pool = ["--workload", "pool", "--threads", "2", "--ops", "2000", "--fill", "100", "--trials", "1"]
    for name, args in (("sequential", T1 + ["--sequential"]), ("parallel", T1 + ["--threads", "2"]),
                       ("pool", pool)):
        p = run_uts(binary, args + ["--format", "json"])
        rec = json.loads(p.stdout) if p.returncode == 0 else {}
        tally.check(memory_fields_ok(rec.get("memory")), "memory: JSON memory present, non-zero (%s)" % name,
                    str(rec.get("memory")) + p.stderr)
        p = run_uts(binary, args + ["--format", "csv"])
        rows = list(csv.DictReader(io.StringIO(p.stdout))) if p.returncode == 0 else []
        tally.check(len(rows) >= 1 and all(r.get(k, "").isdigit() and int(r[k]) > 0 for r in rows for k in MEMORY)
                    and all(r.get("peak_rss_source") in ("VmHWM", "ru_maxrss") for r in rows),
                    "memory: CSV columns present, non-zero (%s)" % name, p.stdout[-600:] + p.stderr)
        p = run_uts(binary, args)
        m = re.search(r"^Peak memory = ([0-9.]+) MiB resident.*, ([0-9.]+) MiB before the (run|trials)$",
                      p.stdout, re.M)
        tally.check(p.returncode == 0 and m is not None and float(m.group(1)) > 0 and float(m.group(2)) > 0,
                    "memory: text Peak memory line (%s)" % name, p.stdout[-600:])
        with tempfile.TemporaryDirectory() as d:
            for fmt, path in (("json", os.path.join(d, "r.jsonl")), ("csv", os.path.join(d, "r.csv"))):
                p = run_uts(binary, args + ["--format", fmt, "--output", path])
                text = open(path).read() if p.returncode == 0 and os.path.exists(path) else ""
                if fmt == "json":
                    ok = bool(text) and memory_fields_ok(json.loads(text.splitlines()[0]).get("memory"))
                else:
                    rows = list(csv.DictReader(io.StringIO(text)))
                    ok = len(rows) >= 1 and all(r.get("peak_rss_bytes", "").isdigit() and int(r["peak_rss_bytes"]) > 0
                                                for r in rows)
                tally.check(ok, "memory: --output %s record has the peak (%s)" % (fmt, name), text[-400:] + p.stderr)
    # A tree that holds more nodes uses more memory: compared as sizes, not times.
    small = run_uts(binary, T1 + ["--sequential", "--format", "json"])
    wide = run_uts(binary, WIDE_DEEP + ["--sequential", "--format", "json"])
    sm = json.loads(small.stdout).get("memory", {}) if small.returncode == 0 else {}
    wm = json.loads(wide.stdout).get("memory", {}) if wide.returncode == 0 else {}
    tally.check(memory_fields_ok(sm) and memory_fields_ok(wm)
                and wm["peak_rss_bytes"] > sm["peak_rss_bytes"] + (16 << 20)
                and wm["peak_rss_bytes"] - wm["start_rss_bytes"] > (16 << 20),
                "memory: a 300,000-node stack raises the peak by more than 16 MiB over T1's (--sequential)",
                "T1 %s, wide %s" % (sm, wm))


def main():
    binary = sys.argv[1]
    tally = Tally()
    check_memory(binary, tally)

    p = run_uts(binary, T1 + ["--threads", "2", "-v"])
    tally.check(p.returncode == 0 and re.search(
        r"^Tree size = 4130071, tree depth = 10, num leaves = 3305118 \(80\.03%\)$", p.stdout, re.M) is not None,
        "text: the reference's tree size line")
    tally.check(re.search(r"^Wallclock time = [0-9.]+ sec, performance = [0-9]+ nodes/sec "
                          r"\([0-9]+ nodes/sec per PE\)$", p.stdout, re.M) is not None,
                "text: the reference's wallclock line")
    tally.check(len(re.findall(r"^\s+[01] +\d+ ", p.stdout, re.M)) == 2, "text -v: one row per thread")
    # --sha1 auto's measurement: both kernel rates above zero where the CPU
    # has both (printed by -v and in JSON), absent when a path is named.
    probe = run_uts(binary, T1 + ["--format", "json"])
    eng = json.loads(probe.stdout)["engine"]
    both = "sha1_auto_avx512_rate" in eng or "sha1_auto_shani_rate" in eng
    if both:
        tally.check(eng.get("sha1_auto_avx512_rate", 0) > 0 and eng.get("sha1_auto_shani_rate", 0) > 0
                    and re.search(r"^SHA-1: %s, chosen by --sha1 auto \(measured at start-up: AVX-512 [1-9][0-9.]*, "
                                  r"SHA-NI [1-9][0-9.]* M blocks/s" % eng["sha1"], p.stdout, re.M) is not None,
                    "--sha1 auto: both kernel rates measured, non-zero, in JSON and -v", str(eng) + p.stdout[-400:])
    else:
        tally.check(re.search(r"^SHA-1: %s, chosen by --sha1 auto \(the fastest kernel this CPU has\)$" % eng["sha1"],
                              p.stdout, re.M) is not None,
                    "--sha1 auto without both kernels: -v says so, no rates", p.stdout[-400:])
    named = json.loads(run_uts(binary, T1 + ["--format", "json", "--sha1", "cryptopp"]).stdout)["engine"]
    tally.check("sha1_auto_avx512_rate" not in named and "sha1_auto_shani_rate" not in named
                and named["sha1"] == "cryptopp", "--sha1 named: no calibration rates recorded", str(named))

    # The engine line says what ran, for every protocol; stealing is off only with -s 0.
    for proto, steal in (("split", "half"), ("locked", "chunk:20"), ("request", "half"), ("chaselev", "one")):
        p = run_uts(binary, T1 + ["--threads", "2", "--protocol", proto])
        line = next((l for l in p.stdout.splitlines() if l.startswith("Engine:")), "")
        tally.check("--protocol " + proto in line and "steal " + steal in line and "stealing off" not in line,
                    "text: engine line names --protocol %s and its steal amount" % proto, line)
    p = run_uts(binary, T1 + ["--threads", "2", "-s", "0"])
    tally.check("work stealing off (-s 0)" in p.stdout, "text: engine line says when -s 0 turned stealing off")

    # The UTS reference's parallel flags: accepted, exact T1.
    p = run_uts(binary, ["-c", "20", "-T", "2", "-v", "2", "-x", "0", "-i", "8", "-I", "16", "-s", "1"] + T1)
    tally.check(p.returncode == 0 and re.search(
        r"^Tree size = 4130071, tree depth = 10, num leaves = 3305118 \(80\.03%\)$", p.stdout, re.M) is not None,
        "reference flags -c -T -v N -x -i -I -s: exact T1", p.stdout + p.stderr)
    tally.check("2 threads, steal chunk:20" in p.stdout and len(re.findall(r"^\s+[01] +\d+ ", p.stdout, re.M)) == 2,
                "reference flags: -c 20 is chunk:20, -T 2 two threads, -v 2 the per-thread table", p.stdout)
    tally.check(all(re.search(r"^%s .*not applicable" % flag, p.stdout, re.M) for flag in ("-i 8", "-I 16", "-x 0")),
                "reference flags: -i, -I, -x reported as not applicable", p.stdout)
    p = run_uts(binary, ["-c", "20", "-T", "2", "-x", "0", "-i", "8", "-I", "16", "-s", "1", "--format", "json"] + T1)
    rec = json.loads(p.stdout) if p.returncode == 0 else {}
    tally.check(rec.get("results", {}).get("size") == 4130071 and rec["engine"]["steal"] == "chunk:20"
                and rec["engine"]["threads"] == 2 and rec["engine"]["stealing"] is True
                and rec["engine"]["not_applicable"] == {"barrier_interval": 8, "poll_interval": 16, "debug_level": 0},
                "reference flags in JSON", p.stdout[:300] + p.stderr)
    p = run_uts(binary, ["-v", "--preset", "T1", "--threads", "2"])
    q = run_uts(binary, ["--preset", "T1", "--threads", "2", "-v"])
    tally.check(p.returncode == 0 and q.returncode == 0 and all(
        len(re.findall(r"^\s+[01] +\d+ ", r.stdout, re.M)) == 2 for r in (p, q)),
        "-v before and after --preset: level 1, per-thread table")

    p = run_uts(binary, T1 + ["--threads", "3", "--format", "json"])
    rec = json.loads(p.stdout)
    tally.check(p.returncode == 0 and rec["status"] == "complete" and rec["results"]["size"] == 4130071,
                "json: one object with results")
    keys = {"nodes", "steal_attempts", "steals", "nodes_stolen", "deques_examined", "shares", "reclaims",
            "idle_seconds"}
    tally.check(len(rec["threads"]) == 3 and all(keys <= set(t) for t in rec["threads"]),
                "json: per-thread statistics")
    tally.check(sum(t["nodes"] for t in rec["threads"]) == rec["results"]["size"],
                "json: per-thread nodes sum to the tree size")
    agg = rec["aggregates"]
    tally.check({"steal_success_rate", "nodes_per_steal", "node_share_variance",
                 "node_share_relative_variance"} <= set(agg), "json: aggregates")
    # x86 kernels print a family and a model; others may not ("unknown").
    sig_re = r"(\S+ )?family \d+ model \d+( stepping \d+)?" + ("" if platform.machine() in ("x86_64", "i686") else "|unknown")
    tally.check(re.fullmatch(sig_re, rec["machine"].get("cpu_signature") or "") is not None,
                "json: machine.cpu_signature is family, model and stepping: %r" % rec["machine"].get("cpu_signature"))
    tally.check({"cpu_model", "cpu_signature", "sha_ni", "hosts", "topology"} <= set(rec["machine"]) and
                {"openmp_runtime", "compiler", "commit", "compiler_flags"} <= set(rec["build"]),
                "json: machine and build facts")
    tally.check(rec["parameters"]["tree"] == "geometric" and rec["engine"]["threads"] == 3,
                "json: parameters and engine")

    p = run_uts(binary, T1 + ["--sequential", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    tally.check(p.returncode == 0 and len(rows) == 1 and rows[0]["size"] == "4130071"
                and rows[0]["engine"] == "sequential", "csv: header and one row")

    with tempfile.TemporaryDirectory() as tmp:
        out_csv = os.path.join(tmp, "runs.csv")
        for _ in range(2):
            run_uts(binary, ["-t", "3", "-d", "4", "-b", "3", "--format", "csv", "--output", out_csv])
        with open(out_csv) as f:
            rows = list(csv.DictReader(f))
        tally.check(len(rows) == 2 and all(r["size"] == "121" for r in rows),
                    "--output appends csv rows under one header")
        out_json = os.path.join(tmp, "runs.jsonl")
        for _ in range(2):
            run_uts(binary, ["-t", "3", "-d", "4", "-b", "3", "--output", out_json])
        with open(out_json) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        tally.check(len(recs) == 2 and recs[1]["results"]["leaves"] == 81, "--output appends json records")

    p = run_uts(binary, ["--preset", "T1", "--verify", "--threads", "2"])
    tally.check(p.returncode == 0 and "Verify: OK" in p.stdout, "--verify passes on T1")
    p = run_uts(binary, ["--preset", "T1", "--verify", "--expect-size", "4130072"])
    tally.check(p.returncode == 1 and "MISMATCH" in p.stdout, "--verify mismatch exits 1")

    for engine in (["--sequential"], ["--threads", "4"]):
        p = run_uts(binary, ["--preset", "T1L", "--max-nodes", "100000", "--format", "json"] + engine)
        rec = json.loads(p.stdout)
        size = rec["results"]["size"]
        tally.check(p.returncode == 0 and rec["status"] == "max-nodes" and 100000 <= size < 10 ** 7,
                    "--max-nodes stops early and says so %s" % engine, "size=%d" % size)

    p = run_uts(binary, ["--list-presets"])
    tally.check(p.returncode == 0 and all(n in p.stdout for n in ["T1 ", "T1L", "T3XXL", "T5"]),
                "--list-presets lists the presets")
    tally.check(all(re.search(r"^%s " % n, p.stdout, re.M) for n in ["T2XXL", "T1WL", "T2WL", "T3WL"]),
                "--list-presets lists T2XXL, T1WL, T2WL, T3WL", p.stdout)
    # Each large preset loads (stopped early) and carries its expected values.
    for name, size in (("T2XXL", 10612052303), ("T1WL", 270751679750), ("T2WL", 295393891003),
                       ("T3WL", 157063495159)):
        p = run_uts(binary, ["--preset", name, "--max-nodes", "100000", "--threads", "2", "--format", "json"])
        rec = json.loads(p.stdout) if p.returncode == 0 else {}
        tally.check(rec.get("status") == "max-nodes" and rec["expected"]["size"] == size,
                    "preset %s loads, expected size %d" % (name, size), p.stdout[:300] + p.stderr)
    p = run_uts(binary, ["--version"])
    tally.check(p.returncode == 0 and p.stdout.startswith("uts ") and "(commit " in p.stdout and
                (" with MPI)" in p.stdout or " without MPI)" in p.stdout), "--version (commit, and whether MPI is in)")
    p = run_uts(binary, ["--help"])
    tally.check(p.returncode == 0 and "--steal" in p.stdout and "-t, --tree" in p.stdout, "--help")
    tally.check(all(f in p.stdout for f in ("-c, --chunk", "-s, --stealing", "-T N", "-i, --barrier-interval",
                                            "-I, --poll-interval", "-x, --debug", "-v, --verbose")),
                "--help lists the reference's parallel flags")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
