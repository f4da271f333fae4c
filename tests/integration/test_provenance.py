#!/usr/bin/env python3
"""Provenance and placement in every record (docs/output.md,
"Provenance" and "Presets"): the build's commit, command line, compiler,
topology and per-thread placement in text (-v), JSON and CSV; --bind on
this machine; oversubscription flagged; fields that do not apply absent;
the preset override rule; JSON Lines; --list-presets.

usage: test_provenance.py SOURCE_ROOT UTS_BINARY
"""
import csv
import glob
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally, run_uts

T1_SMALL = ["--preset", "T1", "-d", "6"]


def json_of(binary, args):
    p = run_uts(binary, args + ["--format", "json"])
    if p.returncode != 0:
        raise AssertionError("uts %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def csv_of(binary, args):
    p = run_uts(binary, args + ["--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    if p.returncode != 0 or len(rows) != 1:
        raise AssertionError("uts %s: exit %d" % (" ".join(args), p.returncode))
    return rows[0]


def git(root, *args):
    try:
        return subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except OSError:
        return ""


def main():
    root, binary = sys.argv[1], sys.argv[2]
    tally = Tally()
    usable = sorted(os.sched_getaffinity(0))

    # --- Build provenance -------------------------------------------------
    rec = json_of(binary, T1_SMALL + ["--threads", "2"])
    build = rec.get("build") or {}
    head = git(root, "rev-parse", "HEAD")
    if head:
        tally.check(build.get("commit") == head, "build.commit is the checkout's HEAD (%s)" % head[:12],
                    "record says %r" % build.get("commit"))
        dirty = bool(git(root, "status", "--porcelain", "--untracked-files=no"))
        # A clean checkout must say clean; a dirty one may have been built
        # before or after the edits.
        tally.check(dirty or build.get("commit_dirty") is False, "build.commit_dirty false on a clean checkout")
    else:
        tally.check(build.get("commit") == "unknown", "outside git: build.commit is 'unknown'")
    tally.check(all(build.get(k) for k in ("version", "build_type", "compiler", "compiler_flags", "openmp_runtime")),
                "build: version, build type, compiler, flags and OpenMP runtime present", str(build))
    tally.check("-O" in build.get("compiler_flags", "") and "-std=" in build.get("compiler_flags", ""),
                "build.compiler_flags names the optimisation level and the standard")
    tally.check(rec.get("command_line") == [binary] + T1_SMALL + ["--threads", "2", "--format", "json"],
                "command_line is argv as given")
    p = run_uts(binary, ["--version"])
    tally.check(p.returncode == 0 and re.match(r"^uts \S+ \(commit ([0-9a-f]{40}(-dirty)?|unknown), ", p.stdout)
                and (build.get("commit") or "?") in p.stdout, "--version prints the commit", p.stdout)

    # --- Machine: hosts, topology ----------------------------------------
    m = rec.get("machine") or {}
    topo = m.get("topology") or {}
    tally.check(m.get("hosts") == [m.get("hostname")], "machine.hosts: this host, once")
    tally.check(topo.get("pus", 0) >= len(usable) and topo.get("cores", 0) >= 1 and topo.get("packages", 0) >= 1
                and topo.get("numa_nodes", 0) >= 1 and isinstance(topo.get("caches"), list),
                "machine.topology: packages, NUMA nodes, cores, PUs, caches", str(topo))

    # --- Placement: one entry per thread, valid PUs -------------------------
    for threads in (1, 2, 3):
        r = json_of(binary, T1_SMALL + ["--threads", str(threads)])
        pl = r.get("placement") or {}
        th = pl.get("threads") or []
        tally.check(len(th) == threads and [t["thread"] for t in th] == list(range(threads))
                    and all(t["pu"] in usable for t in th),
                    "%d thread(s): one placement entry each, on a usable PU" % threads, str(th))
        over = threads > len(usable)
        tally.check(pl.get("oversubscribed") is over and pl.get("pus_available") == len(usable)
                    and pl.get("pus_used") == min(threads, len(usable)),
                    "%d thread(s) on %d PUs: oversubscribed %s, PUs used %d" % (threads, len(usable), over,
                                                                                 min(threads, len(usable))), str(pl))
    n = len(usable)
    over_args = T1_SMALL + ["--threads", str(2 * n)]
    r = json_of(binary, over_args)
    c = csv_of(binary, over_args)
    t = run_uts(binary, over_args)
    tally.check(r["placement"]["oversubscribed"] is True and c["oversubscribed"] == "true"
                and re.search(r"^Oversubscribed: %d threads on %d PUs" % (2 * n, n), t.stdout, re.M),
                "%d threads on %d PUs: oversubscribed in JSON, CSV and text (without -v)" % (2 * n, n))
    tally.check(len(c["placement"].split()) == 2 * n and c["hosts"] and c["topology"] and c["commit"]
                and c["command_line"].startswith(binary), "CSV: placement, hosts, topology, commit, command line")

    # --- --bind on this machine -------------------------------------------
    cores = topo.get("cores", 1)
    for policy in ("compact", "scatter"):
        for threads in (1, 2):
            r = json_of(binary, T1_SMALL + ["--threads", str(threads), "--bind", policy])
            th = r["placement"]["threads"]
            bound = all(x["bound_to"] == str(x["pu"]) for x in th) if len(usable) > 1 else True
            distinct = len({x["pu"] for x in th}) == threads or min(cores, len(usable)) < threads
            tally.check(r["placement"]["bind"] == policy and bound and distinct,
                        "--bind %s, %d thread(s): each bound to its own PU and ran there" % (policy, threads), str(th))
        p = run_uts(binary, T1_SMALL + ["--threads", "2", "--bind", policy, "-v"])
        lines = re.findall(r"^  thread (\d+): PU (\d+) \(core (\d+), NUMA node (\d+), package (\d+)\), bound to PU (\d+)$",
                           p.stdout, re.M)
        tally.check(len(lines) == 2 and (lines[0][2] != lines[1][2] or cores < 2)
                    and re.search(r"^Placement: --bind %s, " % policy, p.stdout, re.M),
                    "--bind %s --threads 2 -v: each thread on its own core" % policy, p.stdout[-600:])
        sig = r"(\S+ )?family \d+ model \d+( stepping \d+)?" + ("" if platform.machine() in ("x86_64", "i686") else "|unknown")
        tally.check(re.search(r"^CPU: .+ \((%s)\)$" % sig, p.stdout, re.M) is not None,
                    "-v names the CPU with its family, model and stepping", p.stdout[-600:])
    r = json_of(binary, T1_SMALL + ["--sequential", "--bind", "compact"])
    tally.check(len(r["placement"]["threads"]) == 1 and r["placement"]["threads"][0]["pu"] == usable[0],
                "--sequential --bind compact: the one thread on the first usable PU")
    def with_env(extra, args):
        p = subprocess.run([binary] + T1_SMALL + args + ["--format", "json"], capture_output=True, text=True,
                           env=dict(os.environ, **extra), timeout=120)
        return p, (json.loads(p.stdout) if p.returncode == 0 else {})
    two = ["--threads", str(min(2, len(usable)))]
    for extra in ({"OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}, {"OMP_PROC_BIND": "true"}, {"OMP_PLACES": "cores"}):
        _, r = with_env(extra, two)
        pl = r.get("placement") or {}
        # The runtime binds the initial thread to the first place at start-up:
        # the PUs available must still be all of them.
        tally.check(pl.get("bind") == "omp" and pl.get("pus_available") == len(usable)
                    and pl.get("oversubscribed") is False and pl.get("pus_used") == min(2, len(usable)),
                    "%s and no --bind: bind 'omp', %d PUs available, not oversubscribed" % (extra, len(usable)), str(pl))
        _, r = with_env(extra, two + ["--bind", "compact"])
        th = (r.get("placement") or {}).get("threads") or []
        tally.check(len({x["pu"] for x in th}) == min(2, len(usable), cores),
                    "%s with --bind compact: threads on different PUs" % extra, str(th))
    _, r = with_env({"OMP_PROC_BIND": "false"}, two)
    tally.check((r.get("placement") or {}).get("bind") == "none", "OMP_PROC_BIND=false: bind 'none'")
    for var, value in (("HWLOC_SYNTHETIC", "pack:2 numa:1 core:4 pu:2"),):
        p, r = with_env({var: value}, two + ["--bind", "compact"])
        th = (r.get("placement") or {}).get("threads") or []
        tally.check(p.returncode == 0 and "not this machine" in p.stderr and p.stderr.count("\n") == 1
                    and all(x["pu"] is None for x in th) and r["results"]["size"] == rec["results"]["size"]
                    and r["placement"]["pus_available"] == len(usable) and r["machine"]["topology"] is None,
                    "%s (another machine's topology): one warning, nothing placed or made up, results exact" % var,
                    p.stderr + str(th))
    for bad, why in ((["--bind", "tight"], "--bind"), (["--smt"], "--smt"), (["--bind", "numa", "--smt"], "--smt")):
        p = run_uts(binary, T1_SMALL + bad)
        tally.check(p.returncode == 2 and p.stderr.count("\n") == 1 and why in p.stderr,
                    "uts %s: exit 2, one line" % " ".join(bad), p.stderr)

    # --- Fields that do not apply are absent ------------------------------
    r = json_of(binary, T1_SMALL + ["--sequential"])
    c = csv_of(binary, T1_SMALL + ["--sequential"])
    tally.check(all(r["engine"][k] is None for k in ("steal", "victim", "init", "protocol"))
                and all(c[k] == "" for k in ("steal", "victim", "init", "protocol")),
                "--sequential: steal, victim, init, protocol null in JSON, empty in CSV")
    r = json_of(binary, ["-t", "0", "-b", "20", "-q", "0.2", "-m", "4", "-r", "3"])
    c = csv_of(binary, ["-t", "0", "-b", "20", "-q", "0.2", "-m", "4", "-r", "3"])
    tally.check(r["parameters"]["shape"] is None and r["parameters"]["depth"] is None
                and c["shape"] == "" and c["depth"] == "" and c["tree_depth"] != "",
                "binomial tree: shape and depth parameter null/empty (the tree's measured depth kept)")
    r = json_of(binary, ["-t", "3", "-b", "3", "-d", "4"])
    tally.check(r["parameters"]["shape"] is None and r["parameters"]["depth"] == 4,
                "balanced tree: no shape, its depth parameter kept")

    # --- Presets: the override rule --------------------------------------
    r = json_of(binary, ["--preset", "T1", "-d", "8"])
    tally.check(r["parameters"]["preset"] is None and r["parameters"]["preset_base"] == "T1"
                and all(v is None for v in r["expected"].values()) and r["verified"] is None,
                "--preset T1 -d 8: no preset name, preset_base T1, T1's expected values dropped", str(r["parameters"]))
    c = csv_of(binary, ["--preset", "T1", "-d", "8"])
    tally.check(c["preset"] == "" and c["preset_base"] == "T1", "CSV: preset empty, preset_base T1")
    t = run_uts(binary, ["--preset", "T1", "-d", "8"])
    tally.check("from preset T1, tree changed" in t.stdout.splitlines()[0], "text names the preset it started from")
    r = json_of(binary, ["--preset", "T1", "-d", "8", "--expect-size", "257042", "--verify"])
    tally.check(r["expected"]["size"] == 257042 and r["verified"] is True and r["parameters"]["preset"] is None,
                "an overridden preset keeps expected values given explicitly, and verifies against them")
    p = run_uts(binary, ["--preset", "T1", "-d", "8", "--verify"])
    tally.check(p.returncode == 2 and p.stderr.count("\n") == 1 and "expected values" in p.stderr,
                "--preset T1 -d 8 --verify: exit 2 (nothing to verify against)", p.stderr)
    r = json_of(binary, ["--preset", "T1", "-d", "10", "--threads", "2"])
    tally.check(r["parameters"]["preset"] == "T1" and r["parameters"]["preset_base"] is None
                and r["expected"]["size"] == 4130071, "a tree option equal to the preset's keeps the preset")
    for same in (["-g", "2"], ["-q", "0.3", "-m", "7"], ["-f", "0.9"]):
        r = json_of(binary, ["--preset", "T1", "--threads", "2", "--verify"] + same)
        tally.check(r["parameters"]["preset"] == "T1" and r["verified"] is True,
                    "--preset T1 %s (the same tree: granularity, or parameters geometric trees ignore) keeps T1"
                    % " ".join(same))
    p = run_uts(binary, ["--preset", "T1", "-d", "8", "--verify"])
    tally.check("changed preset T1's tree" in p.stderr, "--verify on a changed preset says why it has nothing to check")
    with tempfile.TemporaryDirectory() as tmp:
        conf = os.path.join(tmp, "deeper.conf")
        with open(conf, "w") as f:
            f.write("depth = 7\n")
        r = json_of(binary, ["--preset", "T1", "--config", conf])
        tally.check(r["parameters"]["preset"] is None and r["parameters"]["preset_base"] == "T1"
                    and r["results"]["depth"] == 7, "a --config file that changes the tree drops the preset too")
    r = json_of(binary, ["--preset", "t1", "--threads", "2"])
    tally.check(r["parameters"]["preset"] == "T1" and r["expected"]["size"] == 4130071,
                "preset names are case-insensitive (t1 is T1, recorded as T1)")
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "Mine.conf"), "w") as f:
            f.write("tree = geo\ndepth = 3\n")
        env = dict(os.environ, UTS_PRESET_DIR=tmp)
        outs = [subprocess.run([binary, "--preset", name, "--format", "json", "--threads", "1"], capture_output=True,
                               text=True, env=env, timeout=60) for name in ("mine", "t1")]
        tally.check(all(o.returncode == 0 for o in outs)
                    and [json.loads(o.stdout)["parameters"]["preset"] for o in outs] == ["Mine", "T1"],
                    "case-insensitive lookup in every preset directory (UTS_PRESET_DIR first, then the installed ones)",
                    " ".join(o.stderr for o in outs))
        with open(os.path.join(tmp, "s.conf"), "w") as f:
            f.write("smt = true\n")
        p = run_uts(binary, ["--config", os.path.join(tmp, "s.conf")])
        tally.check(p.returncode == 2 and p.stderr.count("\n") == 1, "smt in a config file: exit 2, one line (a flag)")
    p = run_uts(binary, ["--list-presets"])
    listed = {}
    for line in p.stdout.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 4:
            listed[parts[0]] = parts[1:4]
    files = sorted(glob.glob(os.path.join(root, "configs", "presets", "*.conf")))
    good = bool(files)
    for path in files:
        want = {}
        for line in open(path):
            k, _, v = line.partition("=")
            if k.strip().startswith("expect-"):
                want[k.strip()] = v.split("#")[0].strip()
        name = os.path.basename(path)[:-5]
        got = listed.get(name)
        good = good and got == [want.get("expect-size", "-"), want.get("expect-depth", "-"),
                                want.get("expect-leaves", "-")]
    tally.check(p.returncode == 0 and good and len(listed) == len(files),
                "--list-presets shows every preset's expected size, depth and leaves", p.stdout[:400])

    # --- JSON Lines --------------------------------------------------------
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.jsonl")
        for threads in ("1", "2"):
            run_uts(binary, T1_SMALL + ["--threads", threads, "--format", "json", "--output", out])
        with open(out) as f:
            lines = f.read().splitlines()
        parsed = [json.loads(line) for line in lines]
        tally.check(len(parsed) == 2 and [x["engine"]["threads"] for x in parsed] == [1, 2]
                    and all("\n" not in line for line in lines),
                    "--format json --output F: one JSON object per line (JSON Lines)")

    # --- Odd arguments still give parseable records --------------------------
    with tempfile.TemporaryDirectory() as tmp:
        odd = os.path.join(tmp, "a,b \"c\"\r\nd\xe9.conf")
        with open(odd, "w") as f:
            f.write("depth = 4\n")
        raw = os.fsencode(os.path.join(tmp, "x")) + b"\xff.conf"
        with open(raw, "w") as f:
            f.write("depth = 4\n")
        for path in (odd, raw):
            argv = [os.fsencode(binary), b"--config", os.fsencode(path), b"--threads", b"1"]
            pj = subprocess.run(argv + [b"--format", b"json"], capture_output=True, timeout=60)
            pc = subprocess.run(argv + [b"--format", b"csv"], capture_output=True, timeout=60)
            try:
                rj = json.loads(pj.stdout.decode("utf-8"))
                rows = list(csv.reader(io.StringIO(pc.stdout.decode("utf-8", "replace"), newline="")))
                ok = (rj["command_line"][2].startswith(tmp) and len(rows) == 2 and len(rows[0]) == len(rows[1]))
            except (ValueError, KeyError, IndexError):
                ok = False
            tally.check(ok, "argv with %r: JSON parses (UTF-8), CSV keeps one row of the header's width"
                        % os.path.basename(path))

    # --- The pool's records carry the same provenance -----------------------
    pool = ["--workload", "pool", "--threads", "2", "--trials", "1", "--ops", "200"]
    r = json_of(binary, pool + ["--bind", "compact"])
    c = csv_of_rows = list(csv.DictReader(io.StringIO(run_uts(binary, pool + ["--format", "csv"]).stdout)))
    t = run_uts(binary, pool + ["-v"])
    tally.check(r.get("build", {}).get("commit") == build.get("commit") and r.get("command_line")
                and len(r["placement"]["threads"]) == 2 and r["placement"]["bind"] == "compact"
                and isinstance(r["machine"]["topology"], dict) and r["machine"]["hosts"]
                and c and c[0]["commit"] == build.get("commit") and c[0]["placement"] and c[0]["topology"]
                and "Placement: --bind none" in t.stdout and "Build: uts" in t.stdout and "CPU: " in t.stdout,
                "pool: build, command line, hosts, topology and placement in JSON, CSV and -v")
    del csv_of_rows

    # --- MPI: every rank's host and threads --------------------------------
    mpirun = shutil.which("mpirun")
    build_mpi = " with MPI)" in run_uts(binary, ["--version"]).stdout
    if mpirun and build_mpi:
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        p = subprocess.run([mpirun, "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "-np", "2",
                            binary] + T1_SMALL + ["--threads", "2", "--bind", "compact", "--format", "json"],
                           capture_output=True, text=True, env=env, timeout=300)
        r = json.loads(p.stdout) if p.returncode == 0 else {}
        th = (r.get("placement") or {}).get("threads") or []
        tally.check(len((r.get("machine") or {}).get("hosts") or []) == 2 and len(th) == 4
                    and [(x["rank"], x["rank_thread"]) for x in th] == [(0, 0), (0, 1), (1, 0), (1, 1)]
                    and all(x["pu"] in usable and x["host"] for x in th),
                    "MPI, 2 ranks x 2 threads: two hosts recorded, four placements with rank and host",
                    p.stderr[-300:])
        if len(usable) >= 4:
            tally.check(len({x["pu"] for x in th}) == 4, "MPI --bind compact: ranks of one host take different PUs")
        # Ranks the launcher binds to different PUs of one host add up.
        if len(usable) >= 2:
            p = subprocess.run([mpirun, "--bind-to", "core", "--mca", "btl", "self,vader", "-np", "2", binary]
                               + T1_SMALL + ["--threads", "1", "--format", "json"],
                               capture_output=True, text=True, env=env, timeout=300)
            pl = json.loads(p.stdout)["placement"] if p.returncode == 0 else {}
            tally.check(pl.get("pus_available") == 2 and pl.get("oversubscribed") is False and pl.get("pus_used") == 2,
                        "mpirun --bind-to core, 2 ranks: 2 PUs available and used, not oversubscribed", str(pl))
    else:
        print("skip  MPI placement (no mpirun or a build without MPI)")
    check_hwloc_plugins(binary, tally)
    return tally.finish()


def loaded_hwloc_plugins(binary, env):
    """The hwloc plugins (hwloc_*.so) a small run loads, from ld.so's
    LD_DEBUG=files trace, and the run's topology."""
    p = subprocess.run([binary] + T1_SMALL + ["--threads", "1", "--format", "json"], capture_output=True,
                       text=True, env=dict(env, LD_DEBUG="files"), timeout=120)
    plugins = sorted(set(re.findall(r"file=\S*/(hwloc_\w+)\.so", p.stderr)))
    topo = json.loads(p.stdout)["machine"]["topology"] if p.returncode == 0 else None
    return plugins, topo


def check_hwloc_plugins(binary, tally):
    """uts skips hwloc's I/O and libxml2 plugins (a third of a small run's
    start-up), unless the user chose plugins; the topology is the same."""
    env = {k: v for k, v in os.environ.items() if k not in ("HWLOC_PLUGINS_BLACKLIST", "HWLOC_COMPONENTS")}
    chosen, topo_all = loaded_hwloc_plugins(binary, dict(env, HWLOC_PLUGINS_BLACKLIST=""))
    if not chosen:
        print("skip  hwloc plugins: none installed here (Debian: libhwloc-plugins)")
        return
    default, topo = loaded_hwloc_plugins(binary, env)
    tally.check(default == [] and topo == topo_all and topo is not None,
                "hwloc plugins: none loaded by default (%s with HWLOC_PLUGINS_BLACKLIST set empty, the "
                "user's choice kept), the same topology either way" % ", ".join(chosen),
                "default: %s; topologies equal: %s" % (default, topo == topo_all))


if __name__ == "__main__":
    sys.exit(main())
