#!/usr/bin/env python3
"""Locality-aware stealing (--victim hier, --domains, --remote-delay): exact
results over domains x threads x delays on T1, T3 and the small trees, with
every protocol; local and remote steals really happen and their counters obey
their laws; bad locality options exit 2.

usage: test_hier.py UTS_BINARY REFERENCE_CSV
"""
import csv
import itertools
import sys

from small_trees import SMALL_TREES
from uts_check import Tally, results_of, run_json, run_json_until, run_uts

LOCALITY = ["local_steal_attempts", "local_steals", "local_steal_nodes",
            "remote_steal_attempts", "remote_steals", "remote_steal_nodes"]


def main():
    binary, table = sys.argv[1], sys.argv[2]
    with open(table) as f:
        rows = {r["name"]: r["args"].split() for r in csv.DictReader(f)}
    trees = [("T1", rows["T1"]), ("T3", rows["T3"])] + [(n, a.split()) for n, a, _ in SMALL_TREES]
    tally = Tally()

    # Exactness: domains {1,2,3} x threads {2,4,6,8} x delays {0, 2000 ns}
    # (3 domains need at least 3 threads), split deques.
    for name, tree_args in trees:
        expected = results_of(run_json(binary, tree_args + ["--sequential"]))
        bad = []
        runs = 0
        for d, p, delay in itertools.product([1, 2, 3], [2, 4, 6, 8], [0, 2000]):
            if d > p:
                continue
            cfg = ["--victim", "hier", "--threads", str(p), "--domains", str(d), "--remote-delay", str(delay)]
            rec = run_json(binary, tree_args + cfg, timeout=300)
            runs += 1
            agg = rec["aggregates"]
            ok = (results_of(rec) == expected and rec["domains"]["count"] == d
                  and agg["local_steals"] + agg["remote_steals"] == agg["steals"]
                  and agg["local_steal_nodes"] + agg["remote_steal_nodes"] == agg["nodes_stolen"])
            if not ok:
                bad.append("%s -> %s" % (" ".join(cfg), results_of(rec)))
        tally.check(not bad, "%s: %d hier runs exact, local + remote = all steals" % (name, runs), "; ".join(bad[:3]))

    # Every protocol under hier (each with its own amounts), T1 and T3.
    for proto, (name, tree_args) in itertools.product(["locked", "request", "chaselev"], trees[:2]):
        expected = results_of(run_json(binary, tree_args + ["--sequential"]))
        bad = []
        for p, d in [(2, 2), (4, 2), (6, 3), (8, 2)]:
            cfg = ["--protocol", proto, "--victim", "hier", "--threads", str(p), "--domains", str(d),
                   "--remote-delay", "2000"]
            got = results_of(run_json(binary, tree_args + cfg, timeout=300))
            if got != expected:
                bad.append("%s -> %s" % (" ".join(cfg), got))
        tally.check(not bad, "%s %s: hier exact at 2-8 threads" % (proto, name), "; ".join(bad))

    # A wait for a remote deque ends with the run: a thief counts as idle
    # while it waits, so the end can come meanwhile, and the rest of the
    # wait must not lengthen the run. A 10 s delay on a tree that takes
    # milliseconds: with 3 threads in 2 domains the lone thread of domain 1
    # can only steal remotely, so it is inside a wait when the others finish.
    tiny = trees[2][1]
    expected = results_of(run_json(binary, tiny + ["--sequential"]))
    rec = run_json(binary, tiny + ["--victim", "hier", "--threads", "3", "--domains", "2",
                                   "--remote-delay", "10000000000"], timeout=120)
    tally.check(results_of(rec) == expected and rec["status"] == "complete" and rec["timing"]["seconds"] < 5,
                "a 10 s remote delay ends with the run (exact, complete, %.3f s)" % rec["timing"]["seconds"])

    # Remote and local steals both happen (non-vacuous), and the per-thread,
    # per-domain and aggregate counters agree.
    rec = run_json_until(binary, rows["T3"] + ["--victim", "hier", "--threads", "4", "--domains", "2",
                                                "--remote-delay", "2000"],
                         lambda r: r["aggregates"]["remote_steals"] > 0 and r["aggregates"]["local_steals"] > 0)
    agg, th, dom = rec["aggregates"], rec["threads"], rec["domains"]
    tally.check(agg["remote_steals"] > 0 and agg["local_steals"] > 0,
                "T3 hier 4 threads 2 domains: positive local and remote steal counts",
                "local %d remote %d" % (agg["local_steals"], agg["remote_steals"]))
    tally.check(rec["engine"]["steal_local"] == "one" and rec["engine"]["steal_remote"] == "half"
                and agg["local_steal_nodes"] == agg["local_steals"],
                "hier defaults: one node locally, half remotely")
    for key in LOCALITY:
        tally.check(agg[key] == sum(t[key] for t in th) == sum(d[key] for d in dom["per_domain"]),
                    "hier: %s sums over threads and over domains" % key)
    tally.check([t["domain"] for t in th] == [0, 0, 1, 1] and sum(d["nodes"] for d in dom["per_domain"]) ==
                rec["results"]["size"] and abs(sum(d["node_share"] for d in dom["per_domain"]) - 1) < 1e-9,
                "2 virtual domains of 4 threads: consecutive blocks; domain nodes sum to the size")
    # Flat random with a remote delay: the delay applies to every policy.
    rec = run_json_until(binary, rows["T3"] + ["--threads", "4", "--domains", "2", "--remote-delay", "1000"],
                         lambda r: r["aggregates"]["remote_steal_attempts"] > 0)
    tally.check(rec["aggregates"]["remote_steal_attempts"] > 0 and rec["engine"]["victim"] == "random",
                "flat random with domains: remote attempts counted")
    # No domains asked for: no locality keys at all.
    rec = run_json(binary, rows["T1"] + ["--threads", "2"])
    tally.check("domains" not in rec and "remote_steals" not in rec["aggregates"],
                "without domains the JSON has no locality section")
    # Hardware domains: whatever this machine has, the run is exact.
    for level in ("numa", "l3", "package"):
        p = run_uts(binary, rows["T1"] + ["--victim", "hier", "--threads", "4", "--domains", level, "--verify",
                                          "--expect-size", "4130071"])
        tally.check(p.returncode == 0, "--domains %s (hardware, via hwloc): exact" % level, p.stderr)

    # Bad input: one line, exit 2.
    for args, needle in [
        (["--domains", "0"], "--domains"),
        (["--domains", "3", "--threads", "2"], "--domains 3"),
        (["--domains", "sockets"], "--domains"),
        (["--remote-delay", "-5"], "--remote-delay"),
        (["--remote-delay", "1.5"], "--remote-delay"),
        (["--steal-local", "half"], "--steal-local"),
        (["--victim", "hier", "--steal-remote", "many"], "--steal-remote"),
        (["--protocol", "chaselev", "--victim", "hier", "--steal-remote", "half"], "--protocol chaselev"),
        (["--protocol", "locked", "--victim", "hier", "--steal-local", "one"], "--protocol locked"),
        (["--victim", "nearest"], "--victim"),
    ]:
        p = run_uts(binary, rows["T1"] + args, timeout=30)
        lines = p.stderr.strip().splitlines()
        tally.check(p.returncode == 2 and len(lines) == 1 and needle in lines[0] and p.stdout == "",
                    "bad input %s" % args, "rc=%d stderr=%r" % (p.returncode, p.stderr))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
