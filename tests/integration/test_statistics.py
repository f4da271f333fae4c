#!/usr/bin/env python3
"""Every statistic uts prints is checked against a law it must obey or a
value it cannot be stuck at: a counter that stays at zero, or one that
disagrees with the others, fails here.

usage: test_statistics.py UTS_BINARY
"""
import re
import sys

from uts_check import Tally, run_json, run_json_until, run_uts, until

T1 = ["-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"]
T3 = ["-t", "0", "-b", "2000", "-q", "0.124875", "-m", "8", "-r", "42"]
CHAIN = ["-t", "0", "-b", "1", "-q", "0.9999999", "-m", "1", "-r", "5"]  # one node at a time
PER_THREAD = ["nodes", "steal_attempts", "steals", "nodes_stolen", "deques_examined", "shares", "nodes_shared",
              "reclaims", "nodes_reclaimed", "sleeps"]


def laws(tally, label, rec):
    """Conservation laws between the counters of one complete parallel run."""
    th, agg, res = rec["threads"], rec["aggregates"], rec["results"]
    tally.check(sum(t["nodes"] for t in th) == res["size"], label + ": per-thread nodes sum to the size")
    # Every node an owner made stealable was either stolen by a thief or taken
    # back by its owner: nothing is left shared at the end of a complete run.
    tally.check(agg["nodes_shared"] == agg["nodes_stolen"] + agg["nodes_reclaimed"],
                label + ": nodes shared = nodes stolen + nodes reclaimed",
                "%d != %d + %d" % (agg["nodes_shared"], agg["nodes_stolen"], agg["nodes_reclaimed"]))
    tally.check(all(t["steals"] <= t["steal_attempts"] <= t["deques_examined"] for t in th),
                label + ": steals <= attempts <= deques examined, per thread")
    tally.check(all(t["steals"] <= t["nodes_stolen"] for t in th) and
                all(t["shares"] <= t["nodes_shared"] and t["reclaims"] <= t["nodes_reclaimed"] for t in th),
                label + ": each event moves at least one node")
    for key in PER_THREAD[1:]:
        tally.check(agg[key] == sum(t[key] for t in th), label + ": aggregate %s is the sum over threads" % key)
    if agg["steals"]:
        tally.check(abs(agg["nodes_per_steal"] - agg["nodes_stolen"] / agg["steals"]) < 1e-9 and
                    abs(agg["steal_success_rate"] - agg["steals"] / agg["steal_attempts"]) < 1e-9,
                    label + ": rates are the ratios of the counters")


def csv_fields(binary, args):
    """The one CSV row of a run, by column name."""
    p = run_uts(binary, args + ["--format", "csv"])
    header, row = p.stdout.strip().split("\n")
    return dict(zip(header.split(","), row.split(",")))


def protocols(tally, binary):
    """Each protocol's own counters: present where they apply, null where
    they do not (never a zero that would look measured), and lawful."""
    requests = ["requests_sent", "requests_answered", "requests_refused", "requests_withdrawn"]
    for proto in ("locked", "request", "chaselev"):
        def moved(r):
            a = r["aggregates"]
            return a["steals"] > 0 and (proto != "locked" or (a["shares"] > 0 and a["reclaims"] > 0)) and (
                proto != "request" or a["requests_sent"] > 0)
        rec = run_json_until(binary, T3 + ["--threads", "4", "--protocol", proto], moved)
        th, agg, label = rec["threads"], rec["aggregates"], "T3 4 threads --protocol " + proto
        tally.check(rec["engine"]["protocol"] == proto, label + ": JSON names the protocol")
        tally.check(sum(t["nodes"] for t in th) == rec["results"]["size"] == 4112897,
                    label + ": exact, per-thread nodes sum to the size")
        tally.check(agg["steals"] > 0 and all(t["steals"] <= t["steal_attempts"] <= t["deques_examined"] for t in th),
                    label + ": steals > 0, steals <= attempts <= deques examined")
        for key in ("steal_attempts", "steals", "nodes_stolen", "deques_examined", "sleeps"):
            tally.check(agg[key] == sum(t[key] for t in th), label + ": aggregate %s is the sum" % key)
        if proto == "locked":
            # Chunks of the reference's K = 20: released past 2K, stolen whole.
            tally.check(agg["nodes_stolen"] == 20 * agg["steals"] and agg["shares"] > 0 and agg["reclaims"] > 0
                        and agg["nodes_shared"] == 20 * agg["shares"]
                        and agg["nodes_shared"] == agg["nodes_stolen"] + agg["nodes_reclaimed"],
                        label + ": whole chunks released, stolen or reacquired", str(agg))
            tally.check("requests_sent" not in agg, label + ": no request counters")
        elif proto == "request":
            tally.check(agg["requests_sent"] > 0 and agg["requests_answered"] == agg["steals"]
                        and agg["requests_sent"] == sum(agg[k] for k in requests[1:])
                        and agg["nodes_shared"] == agg["nodes_stolen"] and agg["reclaims"] is None,
                        label + ": requests sent = answered + refused + withdrawn; nodes sent = received",
                        str(agg))
            for key in requests:
                tally.check(agg[key] == sum(t[key] for t in th), label + ": aggregate %s is the sum" % key)
            tally.check(agg["mean_request_wait_seconds"] > 0 and abs(
                agg["mean_request_wait_seconds"] - agg["request_wait_seconds"] / agg["requests_sent"]) < 1e-12,
                label + ": mean wait for an answer measured")
            def requests_sent(p):  # from -v's request line; None without one
                m = re.search(r"^Requests: (\d+) sent, (\d+) answered with work", p.stdout, re.M)
                return int(m.group(1)) if m else None
            p = until(lambda: run_uts(binary, T3 + ["--threads", "4", "--protocol", "request", "-v"]),
                      lambda p: (requests_sent(p) or 0) > 0, "request -v")
            tally.check((requests_sent(p) or 0) > 0, label + ": -v prints the request line", p.stdout)
        else:
            tally.check(agg["nodes_stolen"] == agg["steals"] and agg["shares"] is None and agg["reclaims"] is None
                        and all(t["shares"] is None for t in th),
                        label + ": one node per steal; shares and reclaims not applicable (null)", str(agg))
            fields = until(lambda: csv_fields(binary, T3 + ["--threads", "4", "--protocol", proto]),
                           lambda f: int(f["steals"]) > 0, proto + " csv")
            row = str(fields)
            tally.check(fields["protocol"] == proto and fields["shares"] == "" and int(fields["steals"]) > 0,
                        label + ": CSV names the protocol, leaves shares empty", row)


def main():
    binary = sys.argv[1]
    tally = Tally()

    # T3 at 4 threads (2 cores: oversubscribed): work moves, so shares,
    # steals and reclaims must all be counted.
    for steal in ("half", "one", "chunk:4"):
        label = "T3 4 threads steal %s" % steal
        rec = run_json_until(binary, T3 + ["--threads", "4", "--steal", steal, "--init", "balanced"],
                             lambda r: r["aggregates"]["steals"] > 0 and
                             sum(1 for t in r["threads"] if t["shares"] > 0) >= 2,
                             each=lambda r: laws(tally, label, r))
        agg = rec["aggregates"]
        tally.check(agg["shares"] > 0 and agg["nodes_shared"] > 0, label + ": shares > 0",
                    "shares=%d" % agg["shares"])
        tally.check(agg["steals"] > 0 and agg["nodes_stolen"] > 0 and agg["deques_examined"] > 0,
                    label + ": steals > 0")
        tally.check(sum(1 for t in rec["threads"] if t["shares"] > 0) >= 2, label + ": more than one thread shared")

    # Reclaims happen when an owner runs dry with nodes still shared; across
    # a few runs of a wide tree some must be counted.
    def reclaims_over_victims():
        total = 0
        for victim in ("random", "linear", "tree"):
            rec = run_json(binary, T1 + ["--threads", "8", "--victim", victim])
            laws(tally, "T1 8 threads victim %s" % victim, rec)
            total += rec["aggregates"]["nodes_reclaimed"]
        return total
    reclaimed = until(reclaims_over_victims, lambda n: n > 0, "T1 8 threads reclaims", tries=3)
    tally.check(reclaimed > 0, "T1 8 threads: reclaims are counted", "nodes_reclaimed=%d" % reclaimed)

    # An idle thread on a serial tree ends its back-off asleep, and says so.
    def idle_shows(r):
        idle = sorted(t["idle_seconds"] for t in r["threads"])
        return (r["aggregates"]["sleeps"] > 0 and idle[1] > 0.5 * r["timing"]["seconds"]
                and r["aggregates"]["node_share_variance"] > 0.2)
    rec = run_json_until(binary, CHAIN + ["--threads", "2"], idle_shows, each=lambda r: laws(tally, "chain 2 threads", r))
    tally.check(rec["results"]["size"] == rec["threads"][0]["nodes"] + rec["threads"][1]["nodes"],
                "chain 2 threads: exact per-thread split")
    tally.check(rec["aggregates"]["sleeps"] > 0, "chain 2 threads: the idle thread slept",
                "sleeps=%d" % rec["aggregates"]["sleeps"])
    # One thread does nearly everything: it has nodes, the other idle time,
    # and the share of nodes per thread is far from even.
    idle = sorted(t["idle_seconds"] for t in rec["threads"])
    tally.check(idle[1] > 0.5 * rec["timing"]["seconds"] and
                abs(rec["aggregates"]["idle_seconds"] - sum(idle)) < 1e-9,
                "chain 2 threads: idle seconds counted, and summed in the aggregate",
                "idle=%s seconds=%s" % (idle, rec["timing"]["seconds"]))
    tally.check(rec["aggregates"]["node_share_variance"] > 0.2 and
                abs(rec["aggregates"]["node_share_relative_variance"] -
                    rec["aggregates"]["node_share_variance"] / rec["aggregates"]["node_share_mean"]) < 1e-9,
                "chain 2 threads: node share variance reflects one thread doing the work",
                "variance=%s" % rec["aggregates"]["node_share_variance"])

    # A run stopped early reports the depth it reached (not only leaves').
    for engine in (["--sequential"], ["--threads", "2"]):
        rec = run_json(binary, CHAIN + ["--max-nodes", "100000"] + engine)
        tally.check(rec["status"] == "max-nodes" and rec["results"]["depth"] == rec["results"]["size"] - 1,
                    "stopped chain %s: depth is the nodes visited minus the root" % engine,
                    "depth=%d size=%d" % (rec["results"]["depth"], rec["results"]["size"]))

    # Text and CSV carry the same non-zero counters as the JSON.
    def text_rows(p):
        return re.findall(r"^\s+(\d+)\s+(\d+)\s+[\d.]+%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)",
                          p.stdout, re.M)
    p = until(lambda: run_uts(binary, T3 + ["--threads", "4", "-v"]),
              lambda p: sum(int(r[6]) for r in text_rows(p)) > 0, "text -v shares")
    rows = text_rows(p)
    tally.check(len(rows) == 4 and sum(int(r[6]) for r in rows) > 0 and sum(int(r[7]) for r in rows) > 0,
                "text -v: shares and nodes shared columns are non-zero")
    fields = until(lambda: csv_fields(binary, T3 + ["--threads", "4"]), lambda f: int(f["shares"]) > 0, "csv shares")
    tally.check(int(fields["shares"]) > 0 and int(fields["nodes_shared"]) ==
                int(fields["nodes_stolen"]) + int(fields["nodes_reclaimed"]),
                "csv: shares > 0 and the conservation law holds")

    protocols(tally, binary)

    # -s 0: no stealing at all, still exact, every thread busy with its block.
    rec = run_json(binary, T1 + ["--threads", "4", "-s", "0", "--init", "balanced"])
    agg = rec["aggregates"]
    tally.check(rec["results"]["size"] == 4130071 and agg["steals"] == 0 and agg["steal_attempts"] == 0
                and agg["shares"] == 0 and all(t["nodes"] > 0 for t in rec["threads"]),
                "-s 0: exact, no steal attempts or shares, every thread worked")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
