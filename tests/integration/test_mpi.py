#!/usr/bin/env python3
"""MPI ranks, on one machine with mpirun --oversubscribe.

  matrix   exactness (size, depth, leaves, checksum as --sequential) over the
           axes ranks {1,2,3,5,8,16,32} x threads {1,2} x --rank-steal
           {random,lifeline} x --rank-termination {ring,tree} x --protocol
           {split,locked,request,chaselev} x --init {root,balanced} (and
           --victim {random,hier}, --rank-split {levels,shallowest}, the busy
           poll fixed or adaptive), on T1, T3 and the small trees (T3 only
           below 8 ranks). CI runs a covering design, not the cross product:
           every pair of values of any two of those axes, every triple
           (ranks, rank-steal, termination) on a big tree (T1/T3) and on a
           small one, and every tree with each rank band (2-5, 8-32),
           rank-steal, termination, protocol, init, threads and victim;
           built greedily (AETG) from a fixed seed, so the same runs each
           time. CI's design stops at 16 ranks (80 runs, about 1.5 min on
           the 2-core development machine under CI's load): each 32-rank
           run is 32 MPI starts on 2 cores, about 7 s under load, and the 11
           runs at 32 took 79 of the matrix's 180 s. With
           UTS_TEST_EXTENDED=1 (scripts/test --extended) the design takes
           32 ranks too (84 runs), as matrix-full always does. Every run's
           per-rank statistics must balance (balance_problems: each request
           answered or refused once, every node sent received once, lifeline
           requests, pushes and pushed nodes conserved, only the counters of
           the termination scheme in use)
  matrix-full (or --part matrix --full; NOT run by CI) the whole cross
           product of the six axes above (448 cells), each cell on T1, on T3
           below 8 ranks and on one small tree (drawn from a fixed seed, as
           is the victim): 1152 runs, 12 min on the 2-core development
           machine (714 s; the 128 runs at 32 ranks take 200 s of it);
           --slice I/N runs only cells I, I+N, ... (to split it up)
  stress   N seeded random runs (ranks 1-8, now and then 16 on a tiny tree,
           threads 1-4, protocol, steal, victim, init, --rank-chunk,
           --rank-poll, --rank-poll-max, --rank-split, --rank-steal,
           --rank-w 0-6, --rank-l 2-8,
           --rank-termination; --rank-steal and --rank-termination now and
           then left out, for the defaults);
           default 30 runs, a fresh seed each time (about 40 s under CI's
           load on the 2-core machine; 100 with UTS_TEST_EXTENDED=1,
           scripts/test --extended);
           replay with --seed (a failure also prints its command line)
  options  bad input printed once and exit 2 (the rank options included);
           --max-nodes across ranks in every rank-steal x termination mode,
           the stopped runs' statistics balance too; text, CSV and -v
           under ranks; domains per rank; -s 0 across ranks; without
           mpirun the binary does not start MPI; 1 rank under mpirun
  faults   (times kills and signals: alone on the machine) a rank killed with
           SIGKILL ends the job within 10 s and SIGINT to one rank or to
           mpirun stops it with marked partial results, in every mode, and
           SIGTERM and SIGUSR1 to mpirun (two modes each), the partial
           records' statistics balancing (--output); mpirun's stdout on
           /dev/full, --output checked

usage: test_mpi.py UTS_BINARY REFERENCE_CSV [--part matrix|matrix-full|stress|options|faults|all]
                   [--full] [--slice I/N] [--runs N] [--seed S]
"""
import argparse
import csv
import io
import itertools
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

from small_trees import SMALL_TREES
from uts_check import Tally, covering_design, results_of, run_json, until

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# No binding (threads of a rank must not share one core) and shared memory only.
MPIRUN = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]


def mpirun(ranks, binary, args, timeout=180):
    """Run a job; a hang past timeout kills mpirun and its ranks (its own
    process group) and reads as exit -1, stderr ending "HANG: timed out"."""
    cmd = MPIRUN + ["-np", str(ranks), binary] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        return subprocess.CompletedProcess(cmd, -1, out or "", "%s\nHANG: timed out after %s s" % (err or "", timeout))


def command_line(ranks, binary, args):
    """The job as a shell line, for a failure's reproducer."""
    return " ".join(MPIRUN + ["-np", str(ranks), binary] + args)


def mpi_json(ranks, binary, args, timeout=180):
    p = mpirun(ranks, binary, args + ["--format", "json"], timeout)
    if p.returncode != 0:
        raise AssertionError("mpirun -np %d %s exited %d: %s" % (ranks, " ".join(args), p.returncode,
                                                                   p.stderr.strip()[-400:]))
    return json.loads(p.stdout)


LIFELINE_FIELDS = ("lifeline_requests_sent", "lifeline_requests_received", "pushes_sent", "pushes_received",
                   "push_nodes_sent", "push_nodes_received")


def balance_problems(rec, ranks, threads, rank_steal=None, rank_termination=None, rank_w=None, rank_l=None):
    """Per-rank statistics that do not add up (empty: all fine). They must
    add up on stopped runs too (SIGINT, --max-nodes: nodes arriving while the
    ranks close are counted as received and dropped). rank_steal, ...: what
    the run asked for (None: the defaults, lifeline, tree, 4, 4)."""
    bad = []
    rk = rec.get("ranks")
    eng = rec["engine"]
    if eng["ranks"] != ranks or eng["pes"] != ranks * threads or not eng["mpi"]:
        bad.append("engine ranks/pes/mpi wrong: %s" % eng)
    want_steal = rank_steal or "lifeline"
    want_term = rank_termination or "tree"
    want_wl = ((1 if rank_w is None else rank_w), (4 if rank_l is None else rank_l)) if want_steal == "lifeline" \
        else (None, None)
    got_wl = (eng.get("rank_w"), eng.get("rank_l"))
    if eng.get("rank_steal") != want_steal or eng.get("rank_termination") != want_term or got_wl != want_wl:
        bad.append("engine says rank_steal %s, rank_termination %s, rank_w/rank_l %s; asked for %s, %s, %s" % (
            eng.get("rank_steal"), eng.get("rank_termination"), got_wl, want_steal, want_term, want_wl))
    if rk is None or len(rk) != ranks:
        return bad + ["%s per-rank records, expected %d" % (None if rk is None else len(rk), ranks)]
    complete = rec["status"] == "complete"
    if len(rec["threads"]) != ranks * threads:
        bad.append("%d thread records, expected %d" % (len(rec["threads"]), ranks * threads))
    if sum(t["nodes"] for t in rec["threads"]) != rec["results"]["size"]:
        bad.append("thread nodes %d do not add up to the size %d" % (sum(t["nodes"] for t in rec["threads"]),
                                                                      rec["results"]["size"]))
    s = lambda k: sum(r[k] for r in rk)  # noqa: E731
    if s("requests_sent") != s("requests_received"):
        bad.append("requests sent %d != received %d" % (s("requests_sent"), s("requests_received")))
    if s("steals") != s("requests_answered") or s("refusals") != s("requests_refused"):
        bad.append("answers: steals %d/answered %d, refusals %d/refused %d" % (
            s("steals"), s("requests_answered"), s("refusals"), s("requests_refused")))
    if s("nodes_received") != s("nodes_sent"):
        bad.append("nodes received %d != sent %d" % (s("nodes_received"), s("nodes_sent")))
    # Lifelines: every lifeline request, push and pushed node is received
    # once. Pushes may outnumber the lifeline requests received (with --init
    # root the ranks other than 0 start registered as thieves, no message).
    for sent, received, what in (("lifeline_requests_sent", "lifeline_requests_received", "lifeline requests"),
                                 ("pushes_sent", "pushes_received", "pushes"),
                                 ("push_nodes_sent", "push_nodes_received", "pushed nodes")):
        if s(sent) != s(received):
            bad.append("%s sent %d != received %d (per rank sent %s, received %s)" % (
                what, s(sent), s(received), [r[sent] for r in rk], [r[received] for r in rk]))
    for r in rk:
        if r["requests_sent"] != r["steals"] + r["refusals"]:
            bad.append("rank %d: sent %d != steals %d + refusals %d" % (r["rank"], r["requests_sent"], r["steals"],
                                                                        r["refusals"]))
        if r["threads"] != threads:
            bad.append("rank %d reports %d threads" % (r["rank"], r["threads"]))
        if r["steals"] > r["nodes_received"] or r["nodes_received"] > r["steals"] * eng["rank_chunk"]:
            bad.append("rank %d: %d nodes in %d steals (chunk %d)" % (r["rank"], r["nodes_received"], r["steals"],
                                                                      eng["rank_chunk"]))
        if r["push_nodes_received"] < r["pushes_received"] or r["push_nodes_sent"] < r["pushes_sent"]:
            bad.append("rank %d: a push without nodes: %d pushes received with %d nodes, %d sent with %d" % (
                r["rank"], r["pushes_received"], r["push_nodes_received"], r["pushes_sent"], r["push_nodes_sent"]))
        if want_steal == "random" and any(r[k] != 0 for k in LIFELINE_FIELDS):
            bad.append("rank %d: lifeline/push counters under --rank-steal random: %s" % (
                r["rank"], {k: r[k] for k in LIFELINE_FIELDS if r[k]}))
        if want_term == "ring" and r["waves"] != 0:
            bad.append("rank %d: %d termination waves under --rank-termination ring" % (r["rank"], r["waves"]))
        if want_term == "tree" and r["tokens_passed"] != 0:
            bad.append("rank %d: passed the ring token %d times under --rank-termination tree" % (
                r["rank"], r["tokens_passed"]))
        if not r["finish_known_seconds"] >= 0:
            bad.append("rank %d: finish_known_seconds %s < 0" % (r["rank"], r["finish_known_seconds"]))
        if not r["dormant_seconds"] >= 0:
            bad.append("rank %d: dormant_seconds %s < 0" % (r["rank"], r["dormant_seconds"]))
    if ranks > 1 and complete:
        # A ring run ends only after a whole round visited every rank: each
        # passed the token. A tree run concludes after two waves at least,
        # each with a report from every rank.
        if want_term == "ring" and any(r["tokens_passed"] == 0 for r in rk):
            bad.append("a rank never passed the termination token: %s" % [r["tokens_passed"] for r in rk])
        if want_term == "tree" and rk[0]["waves"] < 2:
            bad.append("rank 0 concluded after %d termination waves (< 2)" % rk[0]["waves"])
        if want_term == "tree" and any(r["waves"] < 2 for r in rk[1:]):
            bad.append("a rank reported in fewer than 2 termination waves: %s" % [r["waves"] for r in rk])
    agg = rec.get("aggregates") or {}
    if ranks > 1:
        r0 = rk[0]["waves"] if want_term == "tree" else rk[0]["tokens_passed"]
        if agg.get("termination_waves") != r0:
            bad.append("aggregates.termination_waves %s != rank 0's %s %d" % (
                agg.get("termination_waves"), "waves" if want_term == "tree" else "tokens passed", r0))
    lat = agg.get("termination_latency_seconds", "absent")
    if not complete and lat is not None:
        bad.append("termination_latency_seconds %s on a stopped run (want null)" % lat)
    if complete and ranks > 1 and not (isinstance(lat, (int, float)) and lat > 0):
        # > 0: the last rank to stop working learns of the end after it stopped.
        bad.append("termination_latency_seconds %s on a complete run (want > 0)" % lat)
    if complete and ranks > 1:
        # Every rank learned of the end after the start, and some thread
        # worked after it: times stuck at zero would fail here.
        if any(not r["finish_known_seconds"] > 0 for r in rk):
            bad.append("finish_known_seconds not > 0: %s" % [r["finish_known_seconds"] for r in rk])
        if any(not (isinstance(r.get("closing_seconds"), (int, float)) and r["closing_seconds"] > 0) for r in rk):
            bad.append("closing_seconds not > 0: %s" % [r.get("closing_seconds") for r in rk])
        for r in rk:
            got = r.get("first_nodes_seconds", "absent")
            fed = (r.get("steals") or 0) + (r.get("pushes_received") or 0) > 0
            if fed and not (isinstance(got, (int, float)) and 0 < got <= r["finish_known_seconds"]):
                bad.append("rank %d: received nodes, first_nodes_seconds %s (want in (0, finish_known_seconds])" % (
                    r["rank"], got))
            if not fed and got is not None:
                bad.append("rank %d: never received nodes, first_nodes_seconds %s (want null)" % (r["rank"], got))
        if not max(r["last_work_seconds"] for r in rk) > 0:
            bad.append("last_work_seconds all 0: %s" % [r["last_work_seconds"] for r in rk])
        if isinstance(lat, (int, float)) and lat > max(r["finish_known_seconds"] for r in rk) + 1e-3:
            bad.append("termination latency %s longer than the latest finish_known_seconds %s" % (
                lat, max(r["finish_known_seconds"] for r in rk)))
    mps = agg.get("global_messages_per_steal")
    if mps is not None and not mps >= 1:
        bad.append("global_messages_per_steal %s < 1 (every success is a message at least)" % mps)
    frac = agg.get("dormant_fraction")
    if frac is not None and not 0 <= frac <= 1:
        bad.append("dormant_fraction %s outside [0, 1]" % frac)
    return bad


PROTOCOL_STEALS = {"split": "half", "locked": "chunk:20", "request": "half", "chaselev": "one"}
RANKS = (1, 2, 3, 5, 8, 16, 32)
# The CI design's rank counts (see the docstring: 32 ranks cost most).
CI_RANKS = RANKS if os.environ.get("UTS_TEST_EXTENDED") == "1" else RANKS[:-1]
MANY_RANKS = 8        # from here on: T1 and the small trees only (not T3)
THREADS = (1, 2)
RANK_STEALS = ("random", "lifeline")
TERMINATIONS = ("ring", "tree")
INITS = ("root", "balanced")
VICTIMS = ("random", "hier")
SPLITS = ("levels", "shallowest")  # --rank-split
# The busy rank's polling: fixed (the shortest interval only) or adaptive
# (doubling from 16 to 4096 expansions, back to 16 when asked).
POLLS = ("fixed", "adaptive")
POLL_ARGS = {"fixed": ["--rank-poll", "64"], "adaptive": ["--rank-poll", "16", "--rank-poll-max", "4096"]}
SMALL_NAMES = [n for n, _, _ in SMALL_TREES]
TREE_NAMES = ["T1", "T3"] + SMALL_NAMES


def band(ranks):
    return "1" if ranks == 1 else "2-5" if ranks < MANY_RANKS else "8-32"


def tree_allowed(name, ranks):
    return name != "T3" or ranks < MANY_RANKS


def matrix_axes(ranks=RANKS):
    return [("ranks", ranks), ("band", ("1", "2-5", "8-32")), ("threads", THREADS), ("rank_steal", RANK_STEALS),
            ("termination", TERMINATIONS), ("protocol", tuple(PROTOCOL_STEALS)), ("init", INITS),
            ("victim", VICTIMS), ("tree", tuple(TREE_NAMES)), ("size", ("big", "small")), ("split", SPLITS),
            ("poll", POLLS)]


def matrix_allowed(row):
    if "ranks" in row and "band" in row and band(row["ranks"]) != row["band"]:
        return False
    if row.get("tree") == "T3" and (row.get("band") == "8-32" or row.get("ranks", 1) >= MANY_RANKS):
        return False
    if "tree" in row and "size" in row and (row["tree"] in ("T1", "T3")) != (row["size"] == "big"):
        return False
    return True


def ci_matrix_rows():
    """The CI matrix: every pair of values of any two of the axes (ranks,
    threads, rank-steal, termination, protocol, init, victim), every triple
    (ranks, rank-steal, termination) on a big tree (T1 or T3: thousands of
    messages) and on a small one, and each tree with each rank band (2-5 and
    8-32), rank-steal, termination, protocol, init, threads and victim."""
    main = ["ranks", "threads", "rank_steal", "termination", "protocol", "init", "victim", "split", "poll"]
    groups = [tuple(g) for g in itertools.combinations(main, 2)]
    groups.append(("ranks", "rank_steal", "termination"))
    groups.append(("size", "ranks", "rank_steal", "termination"))
    groups += [("tree", a) for a in ("band", "rank_steal", "termination", "protocol", "init", "threads", "victim")]
    # Each tree at one rank is no news: the band pairs ask for 2-5 and 8-32.
    rows = covering_design(matrix_axes(CI_RANKS), groups, matrix_allowed, lambda c: c.get("band") != "1" or "tree" not in c)
    # The slow big jobs first, so a run's time shows early.
    return sorted(rows, key=lambda r: (-r["ranks"], -r["threads"], r["tree"]))


def full_matrix_rows():
    """The whole cross product of ranks, threads, rank-steal, termination,
    protocol and init; each cell on T1, on T3 below MANY_RANKS and on one
    small tree; the small tree and the victim drawn from a fixed seed."""
    rng = random.Random(7)
    rows = []
    for ranks, threads, steal, term, proto, init in itertools.product(
            RANKS, THREADS, RANK_STEALS, TERMINATIONS, PROTOCOL_STEALS, INITS):
        small, victim = rng.choice(SMALL_NAMES), rng.choice(VICTIMS)
        for tree in ["T1"] + (["T3"] if ranks < MANY_RANKS else []) + [small]:
            rows.append(dict(ranks=ranks, threads=threads, rank_steal=steal, termination=term, protocol=proto,
                             init=init, victim=victim, tree=tree))
    return rows


def matrix_cfg(row):
    cfg = ["--threads", str(row["threads"]), "--protocol", row["protocol"], "--victim", row["victim"],
           "--init", row["init"], "--rank-steal", row["rank_steal"], "--rank-termination", row["termination"]]
    if "split" in row:
        cfg += ["--rank-split", row["split"]]
    if "poll" in row:
        cfg += POLL_ARGS[row["poll"]]
    return cfg


def run_case(binary, trees, expected, name, ranks, threads, cfg, timeout=180, **want):
    """One job, checked: exact and balanced. Returns (the failure with its
    command line, or None; the record or None)."""
    args = trees[name] + cfg
    t0 = time.time()
    try:
        rec = mpi_json(ranks, binary, args, timeout)
        got, bad = results_of(rec), balance_problems(rec, ranks, threads, **want)
        if rec["status"] != "complete":
            bad.append("status %s" % rec["status"])
    except (AssertionError, ValueError, KeyError, TypeError) as e:
        rec, got, bad = None, "error", [str(e)[-500:]]
    if got != expected[name] or bad:
        what = "NOT EXACT: got %s, want %s; " % (got, expected[name]) if got not in ("error", expected[name]) else ""
        return "%s [%s] %s%s (%.1f s)" % (name, command_line(ranks, binary, args + ["--format", "json"]), what,
                                         "; ".join(bad), time.time() - t0), rec
    return None, rec


def run_matrix(binary, trees, expected, tally, rows, label):
    totals = dict(steals=0, refusals=0, wait=0.0, lifeline=0, pushes=0, push_nodes=0, tokens=0, waves=0,
                  dormant=0.0)
    by_ranks = {}
    t_start = time.time()
    for n, row in enumerate(rows):
        if n and n % 100 == 0:
            print("  %d of %d runs, %.0f s" % (n, len(rows), time.time() - t_start), flush=True)
        t0 = time.time()
        fail, rec = run_case(binary, trees, expected, row["tree"], row["ranks"], row["threads"], matrix_cfg(row),
                             rank_steal=row["rank_steal"], rank_termination=row["termination"])
        cell = by_ranks.setdefault(row["ranks"], dict(runs=0, failures=[], seconds=0.0, values={}))
        cell["runs"] += 1
        cell["seconds"] += time.time() - t0
        for k in ("threads", "rank_steal", "termination", "protocol", "init"):
            cell["values"].setdefault(k, set()).add(row[k])
        if fail:
            cell["failures"].append(fail)
            print("  failed: " + fail, flush=True)
        if rec is not None and row["ranks"] > 1:
            rk = rec["ranks"]
            totals["steals"] += sum(r["steals"] for r in rk)
            totals["refusals"] += sum(r["refusals"] for r in rk)
            totals["wait"] += sum(r["request_wait_seconds"] for r in rk)
            totals["lifeline"] += sum(r["lifeline_requests_sent"] for r in rk)
            totals["pushes"] += sum(r["pushes_sent"] for r in rk)
            totals["push_nodes"] += sum(r["push_nodes_sent"] for r in rk)
            totals["tokens"] += sum(r["tokens_passed"] for r in rk)
            totals["waves"] += sum(r["waves"] for r in rk)
            totals["dormant"] += sum(r["dormant_seconds"] for r in rk)
    for ranks in sorted(by_ranks):
        c = by_ranks[ranks]
        vals = ", ".join("%s %s" % (k, "/".join(sorted(str(x) for x in v))) for k, v in c["values"].items())
        tally.check(not c["failures"], "%s, %d ranks: %d runs exact, rank statistics balance (%s; %.0f s)" % (
            label, ranks, c["runs"], vals, c["seconds"]), " | ".join(c["failures"][:3]))
    tally.check(totals["steals"] > 0 and totals["refusals"] > 0 and totals["wait"] > 0,
                "ranks stole from each other in the %s (%d global steals, %d refusals, %.3f s waiting for answers)"
                % (label, totals["steals"], totals["refusals"], totals["wait"]))
    tally.check(totals["lifeline"] > 0 and totals["pushes"] > 0 and totals["dormant"] > 0,
                "lifelines worked in the %s (%d lifeline requests, %d pushes of %d nodes, %.3f s dormant)" % (
                    label, totals["lifeline"], totals["pushes"], totals["push_nodes"], totals["dormant"]))
    tally.check(totals["tokens"] > 0 and totals["waves"] > 0,
                "both termination schemes ran in the %s (%d ring token passes, %d tree waves); %d runs in %.0f s" % (
                    label, totals["tokens"], totals["waves"], len(rows), time.time() - t_start))


def part_matrix(binary, trees, expected, tally):
    rows = ci_matrix_rows()
    print("matrix: a covering design of %d runs (--part matrix-full: the cross product)" % len(rows), flush=True)
    run_matrix(binary, trees, expected, tally, rows, "matrix")


CELL_AXES = ("ranks", "threads", "rank_steal", "termination", "protocol", "init")


def part_matrix_full(binary, trees, expected, tally, piece):
    rows = full_matrix_rows()
    i, n = piece
    # Sliced by cell (in the cross product's order), a cell's trees together.
    order = {}
    for r in rows:
        order.setdefault(tuple(r[k] for k in CELL_AXES), len(order))
    mine = [r for r in rows if order[tuple(r[k] for k in CELL_AXES)] % n == i]
    print("matrix-full: %d cells, %d runs; slice %d/%d: %d runs" % (len(order), len(rows), i, n, len(mine)),
          flush=True)
    run_matrix(binary, trees, expected, tally, mine, "full matrix")


# Trees of at most a few thousand nodes, for 16 ranks in the stress runs.
TINY_TREES = ("bin-frac-b0", "geo-expdec", "geo-cyclic", "geo-fixed", "hybrid-shift", "balanced",
              "paper2003-short-id", "paper2003-bin", "negative-seed")


def stress_case(rng):
    """One random job from rng: (tree, ranks, threads, arguments, what to
    expect of the engine). The draws come in a fixed order, so a seed
    replays the same jobs."""
    steals = {"split": ["half", "one", "chunk:3"], "locked": ["chunk:1", "chunk:20"],
              "request": ["half", "one", "chunk:2"], "chaselev": ["one"]}
    names = ["T1", "T3"] + SMALL_NAMES
    if rng.random() < 0.1:  # now and then many ranks, on a tiny tree
        name, ranks, threads = rng.choice(TINY_TREES), 16, rng.randint(1, 2)
    else:
        name, ranks, threads = rng.choice(names), rng.randint(1, 8), rng.randint(1, 4)
    proto = rng.choice(list(steals))
    cfg = ["--threads", str(threads), "--protocol", proto, "--steal", rng.choice(steals[proto]),
           "--victim", rng.choice(["random", "linear", "tree", "hier"]), "--init", rng.choice(["root", "balanced"]),
           "--rank-chunk", str(rng.choice([1, 2, 16, 1024])), "--rank-poll", str(rng.choice([1, 7, 256, 4096]))]
    # None: the option left out (the defaults: lifeline, tree, W 1, L 4).
    rank_steal = rng.choice(["random", "lifeline", "lifeline", None])
    termination = rng.choice(["ring", "tree", None])
    w, l = rng.randint(0, 6), rng.randint(2, 8)
    want = dict(rank_steal=rank_steal, rank_termination=termination)
    if rank_steal is not None:
        cfg += ["--rank-steal", rank_steal]
    if rank_steal == "lifeline":
        cfg += ["--rank-w", str(w), "--rank-l", str(l)]
        want.update(rank_w=w, rank_l=l)
    if termination is not None:
        cfg += ["--rank-termination", termination]
    # Drawn last, so the seeds of the draws above replay as before.
    split = rng.choice(["levels", "shallowest", None])
    if split is not None:
        cfg += ["--rank-split", split]
    poll = int(cfg[cfg.index("--rank-poll") + 1])
    longest = rng.choice([None, poll, 2 * poll, 32 * poll])
    if longest is not None:
        cfg += ["--rank-poll-max", str(longest)]
    return name, ranks, threads, cfg, want


def part_stress(binary, trees, expected, tally, runs, seed):
    rng = random.Random(seed)
    print("stress seed %d (replay with --part stress --seed %d --runs %d)" % (seed, seed, runs), flush=True)
    failures = []
    t0 = time.time()
    for i in range(runs):
        name, ranks, threads, cfg, want = stress_case(rng)
        fail, _ = run_case(binary, trees, expected, name, ranks, threads, cfg, **want)
        if fail:
            failures.append("run %d of seed %d: %s" % (i, seed, fail))
            print("  failed: " + failures[-1], flush=True)
    tally.check(not failures, "%d randomized oversubscribed MPI runs (seed %d) exact, statistics balance (%.0f s)" % (
        runs, seed, time.time() - t0), " | ".join(failures[:3]))


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


# Every rank-steal x termination mode, for the fault and signal checks.
MODES = (("random", "ring"), ("lifeline", "tree"), ("lifeline", "ring"), ("random", "tree"))


def mode_args(mode):
    return ["--rank-steal", mode[0], "--rank-termination", mode[1]]


def long_job(ranks, binary, trees, mode=MODES[1], output=None):
    # T1 repeated: a tree big enough to still run after a few seconds.
    args = ["-t", "1", "-a", "3", "-d", "15", "-b", "4", "-r", "29", "--threads", "1", "--no-progress"]
    args += mode_args(mode) + (["--output", output] if output else [])
    cmd = MPIRUN + ["-np", str(ranks), binary] + args
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def stopped_record(path, ranks, mode):
    """The --output record of a stopped 1-thread job, checked: its status
    and the statistics' balance problems (a list, empty when fine)."""
    try:
        with open(path) as f:
            rec = json.loads(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError) as e:
        return None, ["no --output record: %s" % e]
    return rec["status"], balance_problems(rec, ranks, 1, rank_steal=mode[0], rank_termination=mode[1])


def wait_ranks(p, binary, ranks, deadline=10.0):
    end = time.time() + deadline
    while time.time() < end:
        pids = ranks_of(p.pid, binary)
        if len(pids) == ranks:
            return pids
        time.sleep(0.1)
    return []


MEMORY = ("peak_rss_bytes", "start_peak_rss_bytes", "start_rss_bytes")


def check_memory(binary, trees, tally):
    """Every rank's peak resident memory gathered to rank 0 (docs/output.md,
    section 4d): per rank, their largest and their sum, per host; in JSON,
    CSV and text."""
    rec = mpi_json(3, binary, trees["T1"] + ["--threads", "2"])
    mem, ranks = rec.get("memory") or {}, rec.get("ranks") or []
    per_rank = [r.get("peak_rss_bytes") for r in ranks]
    positive = lambda v: isinstance(v, int) and v > 0
    tally.check(len(ranks) == 3 and all(positive(r.get(k)) for r in ranks for k in MEMORY)
                and all(positive(mem.get(k)) for k in MEMORY + ("peak_rss_bytes_sum",))
                and mem["peak_rss_bytes"] == max(per_rank) and mem["peak_rss_bytes_sum"] == sum(per_rank)
                and mem["start_peak_rss_bytes"] == max(r["start_peak_rss_bytes"] for r in ranks)
                and sum(h["ranks"] for h in mem.get("hosts", [])) == 3
                and sum(h["peak_rss_bytes_sum"] for h in mem.get("hosts", [])) == sum(per_rank),
                "memory under MPI: every rank's peak, their max and sum, per host (JSON)", str(mem) + str(per_rank))
    p = mpirun(3, binary, trees["T1"] + ["--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(p.stdout))) if p.returncode == 0 else []
    tally.check(len(rows) == 1 and all(rows[0].get(k, "").isdigit() and int(rows[0][k]) > 0
                                       for k in MEMORY + ("peak_rss_bytes_sum",)),
                "memory under MPI: CSV columns present, non-zero", p.stdout[-500:] + p.stderr[-300:])
    p = mpirun(3, binary, trees["T1"] + ["-v"])
    tally.check(p.returncode == 0 and re.search(r"^Peak memory = [0-9.]+ MiB resident \(the most of 3 ranks; "
                                                r"[0-9.]+ MiB summed over them\), [0-9.]+ MiB before the run$",
                                                p.stdout, re.M) is not None
                and re.search(r"^Peak memory per rank \(MiB\): 0:[0-9.]+ 1:[0-9.]+ 2:[0-9.]+$", p.stdout, re.M),
                "memory under MPI: the text line, and -v's per rank", p.stdout[-1500:])


def part_options(binary, trees, expected, tally):
    check_memory(binary, trees, tally)
    # Bad input: one line from rank 0 (mpirun adds its own banner), exit 2;
    # for the rank options, the line names the option.
    for args, what, names in (
            (["--threads", "0"], "--threads 0", None), (["--rank-chunk", "0"], "--rank-chunk 0", None),
            (["--rank-poll", "x"], "--rank-poll x", None), (["--workload", "pool"], "--workload pool", None),
            (["--sequential"], "--sequential", None), (["--steal", "lots"], "--steal lots", None),
            (["--rank-steal", "bogus"], "--rank-steal bogus", "--rank-steal"),
            (["--rank-termination", "bogus"], "--rank-termination bogus", "--rank-termination"),
            (["--rank-l", "1"], "--rank-l 1", "--rank-l"), (["--rank-l", "1025"], "--rank-l 1025", "--rank-l"),
            (["--rank-w", "-1"], "--rank-w -1", "--rank-w"), (["--rank-w", "1000001"], "--rank-w 1000001", "--rank-w"),
            (["--rank-steal", "random", "--rank-w", "3"], "--rank-steal random --rank-w 3: not applicable",
             "--rank-w"),
            (["--rank-steal", "random", "--rank-l", "3"], "--rank-steal random --rank-l 3: not applicable",
             "--rank-l"),
            (["--rank-split", "bogus"], "--rank-split bogus", "--rank-split"),
            (["--rank-poll-max", "0"], "--rank-poll-max 0", "--rank-poll-max"),
            (["--rank-poll", "512", "--rank-poll-max", "256"], "--rank-poll-max below --rank-poll",
             "--rank-poll-max")):
        p = mpirun(3, binary, trees["T1"] + args, timeout=60)
        lines = uts_lines(p.stderr)
        tally.check(p.returncode == 2 and len(lines) == 1 and (names is None or names in lines[0]),
                    "bad input under mpirun -np 3 (%s): exit 2, one line" % what,
                    "exit %d, lines %s" % (p.returncode, lines))
    # --max-nodes across ranks, in every mode; the stopped runs' statistics
    # balance too.
    for mode in MODES:
        rec = mpi_json(3, binary, trees["T3"] + ["--threads", "2", "--max-nodes", "1000000"] + mode_args(mode))
        size = rec["results"]["size"]
        bad = balance_problems(rec, 3, 2, rank_steal=mode[0], rank_termination=mode[1])
        tally.check(rec["status"] == "max-nodes" and 1000000 <= size < expected["T3"][0] and not bad,
                    "--max-nodes 1000000 across 3 ranks (%s, %s) stops the job (size %d), statistics balance" % (
                        mode + (size,)), "%s; %s" % (rec["status"], "; ".join(bad)))
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
    # CSV carries both sides of the lifeline totals: the conservation laws
    # hold in a CSV row too; the text (-v) has the lifeline table and the
    # summary lines.
    def pushed(p):  # pushes need a dormant rank and a busy one at once: retried under load
        rows = list(csv.DictReader(p.stdout.splitlines()))
        return p.returncode == 0 and len(rows) == 1 and (rows[0].get("global_pushes") or "0") not in ("", "0")
    p = until(lambda: mpirun(5, binary, trees["T1"] + ["--threads", "1", "--format", "csv"]), pushed,
              "5 ranks, lifeline pushes")
    rows = list(csv.DictReader(p.stdout.splitlines()))
    r = rows[0] if len(rows) == 1 else {}
    ok = p.returncode == 0 and r.get("rank_steal") == "lifeline" and r.get("rank_termination") == "tree"
    ok = ok and int(r["global_pushes"]) > 0 and r["global_pushes"] == r["global_pushes_sent"] \
        and r["global_push_nodes"] == r["global_push_nodes_sent"] \
        and r["global_lifeline_requests"] == r["global_lifeline_requests_received"] \
        and int(r["termination_waves"]) >= 2 and float(r["termination_latency_seconds"]) > 0 \
        and 0 <= float(r["dormant_fraction"]) <= 1 and float(r["global_messages_per_steal"]) >= 2 if ok else False
    tally.check(ok, "CSV under 5 ranks (lifeline, tree): pushes, pushed nodes and lifeline requests sent = received; "
                "waves, latency, dormant fraction, messages per steal filled", str(r)[:600])
    p = mpirun(5, binary, trees["T1"] + ["--threads", "1", "-v", "--rank-termination", "ring"])
    tally.check(p.returncode == 0 and "rank  lifeline: requests sent" in p.stdout
                and "Global stealing (--rank-steal lifeline, w 1, l 4)" in p.stdout
                and "Termination (--rank-termination ring): " in p.stdout and " rounds, detected " in p.stdout,
                "text -v under 5 ranks: the lifeline table, the global stealing and termination lines")
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


def part_faults(binary, trees, expected, tally):
    # A killed rank ends the job with a message, in every mode, at 2 ranks
    # (the victim is the one peer) and at 3 (two peers) in turn: this part
    # runs alone on the machine, and each job costs about 4 s.
    for mode, ranks in zip(MODES, (2, 3, 2, 3)):
        p = long_job(ranks, binary, trees, mode)
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
            kill_all(p, pids)
            p.communicate()
            dt, rc, err = None, None, ""
        tally.check(victim is not None and dt is not None and rc != 0 and err.strip() != "",
                    "a rank of %d killed (SIGKILL), %s, %s: mpirun exits %s with a message in %s s" % (
                        ranks, mode[0], mode[1], rc, "%.1f" % dt if dt is not None else ">10"))
    # SIGINT to one rank (a terminal's Ctrl-C reaches the ranks): it tells
    # the others to stop; rank 0 prints partial results; exit 130. In every
    # mode, and the partial record's statistics balance.
    for mode in MODES:
        ok, rc, printed, ended, out, status, bad = signal_job(
            binary, trees, lambda p, pids: os.kill(pids[-1], signal.SIGINT), mode)
        tally.check(ok and rc == 130 and "PARTIAL RESULTS: run interrupted by SIGINT" in out and printed < 2.0
                    and ended < 5.0 and status == "interrupted" and not bad,
                    "SIGINT to one rank of 3 (%s, %s): every rank stops, partial results in %.2f s (< 2), "
                    "exit 130 in %.2f s, statistics balance" % (mode[0], mode[1], printed, ended),
                    "exit %s, status %s; %s" % (rc, status, "; ".join(bad)))
    # Signals to mpirun. Open MPI 4 does not forward SIGINT or SIGTERM: it
    # sends the ranks SIGCONT, then SIGTERM (which uts treats as a stop: rank
    # 0 prints the partial results) and SIGKILL about a second later each, and
    # exits 1 itself. SIGUSR1 and SIGUSR2 are forwarded as they are: the job
    # stops like a run on one machine, and mpirun exits with uts's 128 + N.
    # Ranks stopped by a signal leave without MPI_Finalize, which would wait
    # for mpirun's SIGKILL: the results appear right after the SIGTERM.
    # SIGINT in every mode, SIGTERM and SIGUSR1 in two each.
    cases = [(signal.SIGINT, 1, "interrupted by SIGTERM", m) for m in MODES]
    cases += [(signal.SIGTERM, 1, "interrupted by SIGTERM", m) for m in MODES[:2]]
    cases += [(signal.SIGUSR1, 128 + signal.SIGUSR1, "interrupted by SIGUSR1", m) for m in MODES[2:]]
    for sig, want_rc, want_mark, mode in cases:
        ok, rc, printed, ended, out, status, bad = signal_job(binary, trees, lambda p, pids: p.send_signal(sig), mode)
        tally.check(ok and rc == want_rc and "PARTIAL RESULTS: run " + want_mark in out and printed < 2.0
                    and ended < 5.0 and status == "interrupted" and not bad,
                    "%s to mpirun (%s, %s): partial results (%s) in %.2f s (< 2), exit %s in %.2f s, statistics "
                    "balance" % (sig.name, mode[0], mode[1], want_mark, printed, rc, ended),
                    "status %s; %s; %s" % (status, "; ".join(bad), out[-300:]))
    # mpirun forwards the ranks' stdout and does not check its own writes
    # (exit 0 with stdout on /dev/full: documented); --output is written by
    # rank 0 itself and checked.
    p = mpirun(2, binary, trees["T3"] + ["--threads", "1", "--output", "/dev/full"], timeout=60)
    lines = uts_lines(p.stderr)
    tally.check(p.returncode == 4 and len(lines) == 1 and "--output" in lines[0],
                "--output /dev/full under mpirun -np 2: exit 4, one line", "exit %d, lines %s" % (p.returncode, lines))


def kill_all(p, pids):
    """A job that did not end: SIGKILL to mpirun and to the ranks it had."""
    for pid in [p.pid] + list(pids or []):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def signal_job(binary, trees, send, mode=MODES[1]):
    """A 3-rank job in this mode, running for a second, then send(popen,
    rank_pids). Returns (started, exit status or None, seconds from the
    signal to the partial results on mpirun's stdout, to mpirun's exit,
    stdout, the --output record's status, its balance problems)."""
    fd, output = tempfile.mkstemp(prefix="uts-mpi-", suffix=".json")
    os.close(fd)
    try:
        p = long_job(3, binary, trees, mode, output)
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
            kill_all(p, pids)
            p.wait()
            ended = 99.0
        reader.join()
        p.stderr.read()
        status, bad = stopped_record(output, 3, mode)
    finally:
        os.unlink(output)
    return bool(pids), (p.returncode if ended < 99 else None), printed[0], ended, "".join(lines), status, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("csv")
    ap.add_argument("--part", default="all", choices=["matrix", "matrix-full", "stress", "options", "faults", "all"])
    ap.add_argument("--full", action="store_true", help="--part matrix: the whole cross product (as matrix-full)")
    ap.add_argument("--slice", default="0/1", help="matrix-full: I/N runs cells I, I+N, ... only")
    ap.add_argument("--runs", type=int, default=100 if os.environ.get("UTS_TEST_EXTENDED") == "1" else 30)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    try:
        piece = tuple(int(x) for x in args.slice.split("/"))
        assert len(piece) == 2 and 0 <= piece[0] < piece[1]
    except (ValueError, AssertionError):
        ap.error("--slice wants I/N with 0 <= I < N")
    part = "matrix-full" if args.full and args.part == "matrix" else args.part
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
    t0 = time.time()
    if part in ("matrix", "all"):
        part_matrix(args.binary, trees, expected, tally)
    if part == "matrix-full":
        part_matrix_full(args.binary, trees, expected, tally, piece)
    if part in ("stress", "all"):
        part_stress(args.binary, trees, expected, tally, args.runs,
                    args.seed if args.seed is not None else int(time.time()))
    if part in ("options", "all"):
        part_options(args.binary, trees, expected, tally)
    if part in ("faults", "all"):
        part_faults(args.binary, trees, expected, tally)
    print("%s: %.0f s" % (part, time.time() - t0))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
