#!/usr/bin/env python3
"""--workload pool (the concurrent-pools experiment): items are conserved and
none is duplicated in every model, search and arrangement, oversubscribed;
every run terminates; the measures are present and consistent; bad values
exit 2 with one line.

usage: test_pool.py UTS_BINARY
"""
import csv
import io
import itertools
import json
import os
import sys
import tempfile

from uts_check import Tally, run_uts


def pool_json(binary, args, timeout=120):
    p = run_uts(binary, ["--workload", "pool", "--format", "json"] + args, timeout=timeout)
    if p.returncode != 0:
        return None, "rc=%d %s" % (p.returncode, p.stderr.strip())
    return json.loads(p.stdout), ""


def main():
    binary = sys.argv[1]
    tally = Tally()

    # Conservation everywhere: models x searches x steal amounts, 4 and 16
    # threads (2 cores: oversubscribed). A lost or duplicated item also makes
    # uts exit 1, which pool_json reports.
    models = [["--mix", m] for m in ("0", "10", "50", "90", "100")] + \
             [["--producers", k, "--arrangement", a] for k in ("1", "2") for a in ("contiguous", "spread")]
    for threads, victim, steal in itertools.product(["4", "16"], ["linear", "random", "tree"], ["half", "one"]):
        bad = []
        for model in models:
            args = ["--threads", threads, "--victim", victim, "--steal", steal, "--trials", "2", "--ops", "3000"] + model
            rec, err = pool_json(binary, args)
            if rec is None:
                bad.append("%s: %s" % (" ".join(args), err))
                continue
            res = rec["results"]
            trials_ok = all(t["initial"] + t["added"] - t["removed"] == t["remaining"] and t["conserved"]
                            and t["lost"] == 0 and t["duplicated"] == 0 for t in rec["trials"])
            ops_ok = all(t["added"] + t["removed"] + t["aborted"] == 3000 for t in rec["trials"])
            if not (res["conserved"] and trials_ok and ops_ok and
                    res["initial"] + res["added"] - res["removed"] == res["remaining"]):
                bad.append("%s -> %s" % (" ".join(args), res))
        tally.check(not bad, "pool %s threads, victim %s, steal %s: %d models conserve items, every op counted"
                    % (threads, victim, steal, len(models)), "; ".join(bad[:2]))

    # The models do what they say.
    rec, _ = pool_json(binary, ["--threads", "4", "--mix", "100", "--trials", "1"])
    tally.check(rec and rec["results"]["removed"] == 0 and rec["results"]["added"] == 5000,
                "--mix 100: only adds")
    rec, _ = pool_json(binary, ["--threads", "4", "--mix", "0", "--fill", "100", "--trials", "1"])
    tally.check(rec and rec["results"]["added"] == 0 and rec["results"]["removed"] == 100
                and rec["results"]["aborted"] == 4900 and rec["results"]["remaining"] == 0,
                "--mix 0: removes drain the pool, then abort (the study's rule)", str(rec and rec["results"]))
    rec, _ = pool_json(binary, ["--threads", "8", "--producers", "2", "--arrangement", "spread", "--trials", "1"])
    th = rec["trials"][0]["threads"]
    tally.check([t["producer"] for t in th] == [True, False, False, False, True, False, False, False]
                and all(t["removes"] == 0 for t in th if t["producer"])
                and all(t["adds"] == 0 for t in th if not t["producer"]),
                "producers spread evenly around the ring; producers only add, consumers only remove")
    rec, _ = pool_json(binary, ["--threads", "8", "--producers", "3", "--trials", "1"])
    tally.check([t["producer"] for t in rec["trials"][0]["threads"]][:4] == [True, True, True, False],
                "contiguous producers are threads 0..K-1")
    # Steals happen and are measured (consumers must steal from producers).
    # One producer and one consumer, so both run at once on 2 cores: with more
    # threads than cores the producers can take every operation before a
    # consumer is scheduled (the operations come from one shared counter).
    rec, _ = pool_json(binary, ["--threads", "2", "--producers", "1", "--trials", "3", "--ops", "100000"])
    steals = sum(t["steals"] for tr in rec["trials"] for t in tr["threads"])
    tally.check(steals > 0 and rec["results"]["removes_stole_pct"] > 0 and
                rec["results"]["segments_examined_per_steal"] >= 1 and rec["results"]["elements_per_steal"] >= 1,
                "producer/consumer: steals counted, segments per steal and items per steal measured",
                str(rec["results"]))
    tally.check(rec["results"]["mean_add_us"] > 0 and rec["results"]["mean_remove_us"] > 0,
                "mean add and remove times measured")

    # CSV: one row per trial; the trace file has samples for every thread.
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.csv")
        p = run_uts(binary, ["--workload", "pool", "--threads", "4", "--trials", "3", "--format", "csv",
                             "--trace", trace])
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        tally.check(p.returncode == 0 and len(rows) == 3 and [r["trial"] for r in rows] == ["0", "1", "2"]
                    and all(int(r["initial"]) + int(r["added"]) - int(r["removed"]) == int(r["remaining"])
                            for r in rows), "CSV: one row per trial, conservation per row")
        samples = list(csv.DictReader(open(trace)))
        tally.check(len(samples) > 12 and {s["thread"] for s in samples} == {"0", "1", "2", "3"}
                    and {s["trial"] for s in samples} == {"0", "1", "2"},
                    "--trace: segment sizes sampled for every thread and trial")

    # A remote delay slows remote operations but keeps the pool exact.
    rec, err = pool_json(binary, ["--threads", "4", "--producers", "1", "--remote-delay", "2000", "--trials", "2"])
    tally.check(rec is not None and rec["results"]["conserved"] and rec["parameters"]["remote_delay_ns"] == 2000,
                "--remote-delay: exact", err)

    for args, needle in [
        (["--workload", "pool", "--mix", "120"], "--mix"),
        (["--workload", "pool", "--threads", "16", "--producers", "17"], "--producers 17"),
        (["--workload", "pool", "--ops", "0"], "--ops"),
        (["--workload", "pool", "--mix", "10", "--producers", "2"], "--mix and --producers"),
        (["--workload", "pool", "--arrangement", "spread"], "--arrangement"),
        (["--workload", "pool", "--producers", "2", "--arrangement", "ring"], "--arrangement"),
        (["--workload", "pool", "--protocol", "chaselev"], "--protocol chaselev"),
        (["--workload", "pool", "--victim", "hier"], "--victim hier"),
        (["--workload", "pool", "--trials", "0"], "--trials"),
        (["--workload", "heap"], "--workload"),
        (["--ops", "100"], "--ops applies only to --workload pool"),
    ]:
        p = run_uts(binary, args, timeout=30)
        lines = p.stderr.strip().splitlines()
        tally.check(p.returncode == 2 and len(lines) == 1 and needle in lines[0] and p.stdout == "",
                    "bad input %s" % args, "rc=%d stderr=%r" % (p.returncode, p.stderr))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
