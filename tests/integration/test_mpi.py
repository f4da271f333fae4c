#!/usr/bin/env python3
"""MPI ranks (issue 12), on one machine with mpirun --oversubscribe.

  matrix   exactness for ranks {1,2,3,4} x threads {1,2} on T1 and T3 (each
           protocol) and the small trees (half of them at each thread count,
           so every one at every rank count), over the protocols, victims (random, hier) and inits; every
           run's per-rank statistics must balance (each request answered or
           refused once, every node sent received once) and add up to the
           per-thread ones
  stress   N seeded random runs (ranks 1-5, threads 1-4, protocol, steal,
           victim, init, --rank-chunk, --rank-poll); replay with --seed
  faults   bad input printed once and exit 2; --max-nodes across ranks; a rank
           killed with SIGKILL ends the job within 10 s; SIGINT, SIGTERM
           and SIGUSR1 to mpirun stop it with marked partial results;
           without mpirun the binary does not start MPI; 1 rank under mpirun

usage: test_mpi.py UTS_BINARY REFERENCE_CSV [--part matrix|stress|faults|all] [--runs N] [--seed S]
"""
import argparse
import csv
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from small_trees import SMALL_TREES  # noqa: E402
from uts_check import Tally, results_of, run_json  # noqa: E402

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# No binding (threads of a rank must not share one core) and shared memory only.
MPIRUN = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]


def mpirun(ranks, binary, args, timeout=180):
    cmd = MPIRUN + ["-np", str(ranks), binary] + args
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=ENV)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, -1, e.stdout or "", "timed out after %ss" % timeout)


def mpi_json(ranks, binary, args, timeout=180):
    p = mpirun(ranks, binary, args + ["--format", "json"], timeout)
    if p.returncode != 0:
        raise AssertionError("mpirun -np %d %s exited %d: %s" % (ranks, " ".join(args), p.returncode,
                                                                   p.stderr.strip()[-400:]))
    return json.loads(p.stdout)


def balance_problems(rec, ranks, threads):
    """Per-rank statistics that do not add up (empty: all fine)."""
    bad = []
    rk = rec.get("ranks")
    if rec["engine"]["ranks"] != ranks or rec["engine"]["pes"] != ranks * threads or not rec["engine"]["mpi"]:
        bad.append("engine ranks/pes/mpi wrong: %s" % rec["engine"])
    if rk is None or len(rk) != ranks:
        return bad + ["%s per-rank records, expected %d" % (None if rk is None else len(rk), ranks)]
    if len(rec["threads"]) != ranks * threads:
        bad.append("%d thread records, expected %d" % (len(rec["threads"]), ranks * threads))
    if sum(t["nodes"] for t in rec["threads"]) != rec["results"]["size"]:
        bad.append("thread nodes do not add up to the size")
    s = lambda k: sum(r[k] for r in rk)  # noqa: E731
    if s("requests_sent") != s("requests_received"):
        bad.append("requests sent %d != received %d" % (s("requests_sent"), s("requests_received")))
    if s("steals") != s("requests_answered") or s("refusals") != s("requests_refused"):
        bad.append("answers: steals %d/answered %d, refusals %d/refused %d" % (
            s("steals"), s("requests_answered"), s("refusals"), s("requests_refused")))
    if s("nodes_received") != s("nodes_sent"):
        bad.append("nodes received %d != sent %d" % (s("nodes_received"), s("nodes_sent")))
    for r in rk:
        if r["requests_sent"] != r["steals"] + r["refusals"]:
            bad.append("rank %d: sent %d != steals %d + refusals %d" % (r["rank"], r["requests_sent"], r["steals"],
                                                                        r["refusals"]))
        if r["threads"] != threads:
            bad.append("rank %d reports %d threads" % (r["rank"], r["threads"]))
        if r["steals"] > r["nodes_received"] or r["nodes_received"] > r["steals"] * rec["engine"]["rank_chunk"]:
            bad.append("rank %d: %d nodes in %d steals (chunk %d)" % (r["rank"], r["nodes_received"], r["steals"],
                                                                      rec["engine"]["rank_chunk"]))
    # A run ends only after a whole round visited every rank: each passed the token.
    if ranks > 1 and rec["status"] == "complete" and any(r["tokens_passed"] == 0 for r in rk):
        bad.append("a rank never passed the termination token: %s" % [r["tokens_passed"] for r in rk])
    return bad


PROTOCOL_STEALS = {"split": "half", "locked": "chunk:20", "request": "half", "chaselev": "one"}


def part_matrix(binary, trees, expected, tally):
    global_steals = 0
    refusals = 0
    wait = 0.0
    runs = 0
    for ranks in (1, 2, 3, 4):
        for threads in (1, 2):
            failures = []
            k = 0
            cells = []
            for name in ("T1", "T3"):
                for proto in PROTOCOL_STEALS:
                    cells.append((name, proto))
            # Half of the small trees per cell, alternating with the thread
            # count, so each small tree runs at every rank count.
            for j, (name, _, _) in enumerate(SMALL_TREES):
                if j % 2 == threads % 2:
                    cells.append((name, list(PROTOCOL_STEALS)[k % 4]))
                    k += 1
            for i, (name, proto) in enumerate(cells):
                victim = "hier" if i % 3 == 2 else "random"
                init = "balanced" if i % 2 else "root"
                cfg = ["--threads", str(threads), "--protocol", proto, "--victim", victim, "--init", init]
                try:
                    rec = mpi_json(ranks, binary, trees[name] + cfg)
                    got = results_of(rec)
                    bad = balance_problems(rec, ranks, threads)
                    global_steals += sum(r["steals"] for r in rec["ranks"]) if ranks > 1 else 0
                    refusals += sum(r["refusals"] for r in rec["ranks"])
                    wait += sum(r["request_wait_seconds"] for r in rec["ranks"])
                except AssertionError as e:
                    got, bad = str(e), []
                runs += 1
                if got != expected[name] or bad:
                    failures.append("%s %s -> %s %s" % (name, " ".join(cfg), got, "; ".join(bad)))
            tally.check(not failures, "%d ranks x %d threads: %d runs exact (T1, T3 x 4 protocols, %d small trees), "
                        "rank statistics balance" % (ranks, threads, len(cells), len(cells) - 8),
                        " | ".join(failures[:3]))
    tally.check(global_steals > 0 and refusals > 0 and wait > 0,
                "ranks stole from each other in the matrix (%d global steals, %d refusals, %.3f s waiting "
                "for answers in %d runs)" % (global_steals, refusals, wait, runs))


def part_stress(binary, trees, expected, tally, runs, seed):
    rng = random.Random(seed)
    print("stress seed %d (replay with --part stress --seed %d)" % (seed, seed), flush=True)
    steals = {"split": ["half", "one", "chunk:3"], "locked": ["chunk:1", "chunk:20"],
              "request": ["half", "one", "chunk:2"], "chaselev": ["one"]}
    failures = []
    names = ["T1", "T3"] + [n for n, _, _ in SMALL_TREES]
    for _ in range(runs):
        name = rng.choice(names)
        ranks, threads = rng.randint(1, 5), rng.randint(1, 4)
        proto = rng.choice(list(steals))
        cfg = ["--threads", str(threads), "--protocol", proto, "--steal", rng.choice(steals[proto]),
               "--victim", rng.choice(["random", "linear", "tree", "hier"]), "--init", rng.choice(["root", "balanced"]),
               "--rank-chunk", str(rng.choice([1, 2, 16, 1024])), "--rank-poll", str(rng.choice([1, 7, 256, 4096]))]
        try:
            rec = mpi_json(ranks, binary, trees[name] + cfg)
            got, bad = results_of(rec), balance_problems(rec, ranks, threads)
        except AssertionError as e:
            got, bad = str(e), []
        if got != expected[name] or bad:
            failures.append("-np %d %s %s -> %s %s" % (ranks, name, " ".join(cfg), got, "; ".join(bad)))
    tally.check(not failures, "%d randomized oversubscribed MPI runs exact, statistics balance" % runs,
                " | ".join(failures[:3]))


def uts_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("uts:")]


def ranks_of(mpirun_pid, binary):
    """PIDs of the uts processes below mpirun."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if ppid == mpirun_pid and os.path.basename(cmd) == os.path.basename(binary):
            out.append(int(pid))
    return out


def long_job(ranks, binary, trees):
    # T1 repeated: a tree big enough to still run after a few seconds.
    args = ["-t", "1", "-a", "3", "-d", "15", "-b", "4", "-r", "29", "--threads", "1", "--no-progress"]
    cmd = MPIRUN + ["-np", str(ranks), binary] + args
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def wait_ranks(p, binary, ranks, deadline=10.0):
    end = time.time() + deadline
    while time.time() < end:
        pids = ranks_of(p.pid, binary)
        if len(pids) == ranks:
            return pids
        time.sleep(0.1)
    return []


def part_faults(binary, trees, expected, tally):
    # Bad input: one line from rank 0, exit 2.
    for args, what in ((["--threads", "0"], "--threads 0"), (["--rank-chunk", "0"], "--rank-chunk 0"),
                       (["--rank-poll", "x"], "--rank-poll x"), (["--workload", "pool"], "--workload pool"),
                       (["--sequential"], "--sequential"), (["--steal", "lots"], "--steal lots")):
        p = mpirun(3, binary, trees["T1"] + args, timeout=60)
        lines = uts_lines(p.stderr)
        tally.check(p.returncode == 2 and len(lines) == 1,
                    "bad input under mpirun -np 3 (%s): exit 2, one line" % what,
                    "exit %d, lines %s" % (p.returncode, lines))
    # --max-nodes across ranks.
    rec = mpi_json(3, binary, trees["T3"] + ["--threads", "2", "--max-nodes", "1000000"])
    size = rec["results"]["size"]
    tally.check(rec["status"] == "max-nodes" and 1000000 <= size < expected["T3"][0],
                "--max-nodes 1000000 across 3 ranks stops the job (size %d)" % size, rec["status"])
    # Text keeps the reference's two lines, with PEs = ranks x threads; CSV
    # has the ranks column and the ranks' global steals.
    p = mpirun(2, binary, trees["T3"] + ["--threads", "2", "-v"])
    size, depth, leaves, _ = expected["T3"]
    tally.check(p.returncode == 0 and ("Tree size = %d, tree depth = %d, num leaves = %d" % (size, depth, leaves))
                in p.stdout and "nodes/sec per PE)" in p.stdout and "x 2 MPI ranks = 4 PEs" in p.stdout
                and "rank threads  thief:" in p.stdout,
                "text under 2 ranks x 2 threads: the reference lines, 4 PEs, the per-rank table")
    p = mpirun(2, binary, trees["T3"] + ["--threads", "1", "--format", "csv"])
    rows = list(csv.DictReader(p.stdout.splitlines()))
    tally.check(p.returncode == 0 and len(rows) == 1 and rows[0]["ranks"] == "2" and rows[0]["size"] == str(size)
                and rows[0]["global_requests_sent"] != "" and int(rows[0]["global_steals"] or -1) >= 0,
                "CSV under 2 ranks: ranks column 2, global steal columns filled")
    # Domains per rank, side by side in the report.
    rec = mpi_json(2, binary, trees["T3"] + ["--threads", "2", "--victim", "hier", "--domains", "2"])
    doms = rec.get("domains") or {}
    per = doms.get("per_domain", [])
    tally.check(results_of(rec) == expected["T3"] and doms.get("count") == 4 and len(per) == 4
                and [t["domain"] for t in rec["threads"]] == [0, 1, 2, 3]
                and sum(d["nodes"] for d in per) == rec["results"]["size"],
                "2 ranks x 2 threads, 2 domains each: 4 domains reported, their nodes add up")
    # -s 0 across ranks: exact; and --max-nodes still stops the job when rank
    # 0's own share ends first (its thread 0 stays the agent).
    for ranks, threads in ((3, 2), (4, 1)):
        rec = mpi_json(ranks, binary, trees["T3"] + ["--threads", str(threads), "-s", "0", "--init", "balanced"])
        tally.check(results_of(rec) == expected["T3"] and sum(r["requests_sent"] for r in rec["ranks"]) == 0,
                    "-s 0, %d ranks x %d threads: exact, no global requests" % (ranks, threads))
        rec = mpi_json(ranks, binary, ["-t", "0", "-b", "2000", "-q", "0.124875", "-m", "8", "-r", "3", "--threads",
                                       str(threads), "-s", "0", "--init", "balanced", "--max-nodes", "500000"])
        tally.check(rec["status"] == "max-nodes" and rec["results"]["size"] < 1826793,
                    "-s 0, %d ranks x %d threads, --max-nodes 500000 on a 1.8 M-node tree: stopped at %d" % (
                        ranks, threads, rec["results"]["size"]), rec["status"])
    # 1 rank under mpirun: exact, MPI on.
    rec = mpi_json(1, binary, trees["T3"] + ["--threads", "2"])
    tally.check(results_of(rec) == expected["T3"] and rec["engine"]["mpi"] and len(rec["ranks"]) == 1,
                "1 rank under mpirun: exact, one rank record")
    # Without mpirun: no MPI at all.
    p = subprocess.run([binary] + trees["T3"] + ["--threads", "2", "--format", "json"], capture_output=True, text=True)
    rec = json.loads(p.stdout)
    tally.check(p.returncode == 0 and not rec["engine"]["mpi"] and "ranks" not in rec and rec["engine"]["ranks"] == 1
                and results_of(rec) == expected["T3"], "without mpirun: exact, MPI not started, no rank records")
    # A killed rank ends the job with a message.
    for ranks in (2, 3):
        p = long_job(ranks, binary, trees)
        pids = wait_ranks(p, binary, ranks)
        time.sleep(1.0)
        victim = pids[-1] if pids else None
        t0 = time.time()
        if victim:
            os.kill(victim, signal.SIGKILL)
        try:
            _, err = p.communicate(timeout=10)
            dt, rc = time.time() - t0, p.returncode
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            dt, rc, err = None, None, ""
        tally.check(victim is not None and dt is not None and rc != 0 and err.strip() != "",
                    "a rank of %d killed (SIGKILL): mpirun exits %s with a message in %s s" % (
                        ranks, rc, "%.1f" % dt if dt is not None else ">10"))
    # SIGINT to one rank (a terminal's Ctrl-C reaches the ranks): it tells
    # the others to stop; rank 0 prints partial results; exit 130.
    ok, rc, printed, ended, out = signal_job(binary, trees, lambda p, pids: os.kill(pids[-1], signal.SIGINT))
    tally.check(ok and rc == 130 and "PARTIAL RESULTS: run interrupted by SIGINT" in out and printed < 2.0
                and ended < 5.0, "SIGINT to one rank of 3: every rank stops, partial results in %.2f s (< 2), "
                "exit 130 in %.2f s" % (printed, ended), "exit %s" % rc)
    # Signals to mpirun. Open MPI 4 does not forward SIGINT or SIGTERM: it
    # sends the ranks SIGCONT, then SIGTERM (which uts treats as a stop: rank
    # 0 prints the partial results) and SIGKILL about a second later each, and
    # exits 1 itself. SIGUSR1 and SIGUSR2 are forwarded as they are: the job
    # stops like a run on one machine, and mpirun exits with uts's 128 + N.
    # Ranks stopped by a signal leave without MPI_Finalize, which would wait
    # for mpirun's SIGKILL: the results appear right after the SIGTERM.
    for sig, want_rc, want_mark in ((signal.SIGINT, 1, "interrupted by SIGTERM"),
                                    (signal.SIGTERM, 1, "interrupted by SIGTERM"),
                                    (signal.SIGUSR1, 128 + signal.SIGUSR1, "interrupted by SIGUSR1")):
        ok, rc, printed, ended, out = signal_job(binary, trees, lambda p, pids: p.send_signal(sig))
        tally.check(ok and rc == want_rc and "PARTIAL RESULTS: run " + want_mark in out and printed < 2.0
                    and ended < 5.0, "%s to mpirun: partial results (%s) in %.2f s (< 2), exit %s in %.2f s" % (
                        sig.name, want_mark, printed, rc, ended), out[-300:])
    # mpirun forwards the ranks' stdout and does not check its own writes
    # (exit 0 with stdout on /dev/full: documented); --output is written by
    # rank 0 itself and checked.
    p = mpirun(2, binary, trees["T3"] + ["--threads", "1", "--output", "/dev/full"], timeout=60)
    lines = uts_lines(p.stderr)
    tally.check(p.returncode == 4 and len(lines) == 1 and "--output" in lines[0],
                "--output /dev/full under mpirun -np 2: exit 4, one line", "exit %d, lines %s" % (p.returncode, lines))


def signal_job(binary, trees, send):
    """A 3-rank job, running for a second, then send(popen, rank_pids).
    Returns (started, exit status or None, seconds from the signal to the
    partial results on mpirun's stdout, to mpirun's exit, stdout)."""
    p = long_job(3, binary, trees)
    pids = wait_ranks(p, binary, 3)
    time.sleep(1.0)
    t0 = time.time()
    printed = [99.0]
    lines = []

    def read():
        for line in p.stdout:
            lines.append(line)
            if line.startswith("Checksum"):  # the last line of the results
                printed[0] = time.time() - t0
    reader = threading.Thread(target=read)
    reader.start()
    if pids:
        send(p, pids)
    try:
        p.wait(timeout=10)
        ended = time.time() - t0
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        ended = 99.0
    reader.join()
    p.stderr.read()
    return bool(pids), (p.returncode if ended < 99 else None), printed[0], ended, "".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("csv")
    ap.add_argument("--part", default="all", choices=["matrix", "stress", "faults", "all"])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    with open(args.csv) as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    trees = {"T1": rows["T1"]["args"].split(), "T3": rows["T3"]["args"].split()}
    trees.update({n: a.split() for n, a, _ in SMALL_TREES})
    expected = {}
    for name, targs in trees.items():
        seq = results_of(run_json(args.binary, targs + ["--sequential"]))
        if name in rows:  # the sample trees: the published sizes too
            r = rows[name]
            assert seq[:3] == (int(r["size"]), int(r["depth"]), int(r["leaves"])), (name, seq)
        expected[name] = seq
    tally = Tally()
    if args.part in ("matrix", "all"):
        part_matrix(args.binary, trees, expected, tally)
    if args.part in ("stress", "all"):
        part_stress(args.binary, trees, expected, tally, args.runs,
                    args.seed if args.seed is not None else int(time.time()))
    if args.part in ("faults", "all"):
        part_faults(args.binary, trees, expected, tally)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
