#!/usr/bin/env python3
"""docs/trace.md, "OTF2 archives": `--trace DIR.otf2` writes an
OTF2 archive that the OTF2 reader (otf2-print, Debian otf2-tools) reads
back with what the run did.

For T3 at 4 threads under each protocol, and under 2 MPI ranks x 2 threads
when the binary has MPI and mpirun works: the archive's layout
(DIR/traces.otf2, DIR/traces.def, DIR/traces/), one location per thread in
a location group per rank, every location's ENTER/LEAVE balanced and well
nested with its timestamps in order and its event count as defined, the
steal attempts that succeeded as many as the record's steal counter and
their nodes the stolen-node counter, each victim a thread of the thief's
rank; MPI: a global_request per request sent. Also: a truncated buffer
(dropped events in the archive's properties, still balanced), the
sequential engine, an empty folder (and a trailing slash) taken, and an
existing non-empty folder or a file refused before the run with one line
and exit 2, leaving it as it was and no temporary folder behind.

Skips (exit 0, saying why) when the binary was built without OTF2 or
otf2-print is missing.

usage: test_trace_otf2.py UTS_BINARY
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally, run_uts

STATES = {"work", "search", "claim", "idle", "sleep", "termination", "agent"}
POINTS = {"wake", "global_request", "global_answer", "global_refusal", "global_request_answered", "token", "global",
          "lifeline_request", "lifeline_push_sent", "lifeline_push_received", "wave"}  # docs/trace.md

EVENT = re.compile(r'^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "([^"]*)" <\d+>')
ATTR = re.compile(r'\("([^"]+)" <\d+>; (\w+); (?:"([^"]*)" <(\d+)>|(-?\d+))\)')
LOCATION = re.compile(r'^LOCATION\s+(\d+)\s+Name: "([^"]*)" <\d+>, Type: (\w+), # Events: (\d+), Group: "([^"]*)" <(\d+)>')
GROUP = re.compile(r'^LOCATION_GROUP\s+(\d+)\s+Name: "([^"]*)" <\d+>, Type: (\w+), Parent: "([^"]*)" <(\d+)>')
PROPERTY = re.compile(r'^Property (name|value)\s+(.*)$')


def otf2_print(tool, anchor, *flags):
    p = subprocess.run([tool] + list(flags) + [anchor], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("otf2-print %s %s: exit %d: %s" % (" ".join(flags), anchor, p.returncode,
                                                                 p.stderr[-400:]))
    return p.stdout


def read_archive(tool, folder):
    """The archive as otf2-print reads it: locations, groups, properties and
    each location's events [(kind, ts, region, attributes)]."""
    anchor = os.path.join(folder, "traces.otf2")
    defs = otf2_print(tool, anchor, "-G")
    locations = {}
    groups = {}
    for line in defs.splitlines():
        m = LOCATION.match(line)
        if m:
            locations[int(m.group(1))] = {"name": m.group(2), "type": m.group(3), "events": int(m.group(4)),
                                          "group": int(m.group(6))}
        m = GROUP.match(line)
        if m:
            groups[int(m.group(1))] = {"name": m.group(2), "type": m.group(3), "parent": m.group(4)}
    props = {}
    name = None
    for line in otf2_print(tool, anchor, "-I").splitlines():
        m = PROPERTY.match(line)
        if m and m.group(1) == "name":
            name = m.group(2).strip()
        elif m and name:
            props[name] = m.group(2).strip()
            name = None
    events = {k: [] for k in locations}
    last = None
    for line in otf2_print(tool, anchor).splitlines():
        m = EVENT.match(line)
        if m:
            last = [m.group(1), int(m.group(3)), m.group(4), {}]
            events.setdefault(int(m.group(2)), []).append(last)
        elif "ATTRIBUTES:" in line and last is not None:
            for a in ATTR.finditer(line):
                key, kind = a.group(1), a.group(2)
                if kind == "LOCATION":
                    last[3][key] = int(a.group(4))
                elif kind == "STRING":
                    last[3][key] = a.group(3)
                else:
                    last[3][key] = int(a.group(5))
        elif line.startswith(("ENTER", "LEAVE")):
            raise AssertionError("unparsed otf2-print line: " + line)
    return locations, groups, props, events


def nesting_errors(events):
    """Per location: ENTER/LEAVE balanced and well nested, times in order."""
    errors = []
    for loc, evs in events.items():
        stack = []
        t = -1
        for kind, ts, region, _ in evs:
            if ts < t:
                errors.append("location %d: time goes back at %d" % (loc, ts))
                break
            t = ts
            if kind == "ENTER":
                stack.append(region)
            elif not stack or stack.pop() != region:
                errors.append("location %d: LEAVE %s at %d does not close the innermost ENTER" % (loc, region, ts))
                break
        if stack:
            errors.append("location %d: %d regions never left (%s)" % (loc, len(stack), stack[-1]))
    return errors


def check_archive(tally, tool, folder, rec, label, threads, ranks=1):
    names = sorted(os.listdir(folder))
    tally.check(names == ["traces", "traces.def", "traces.otf2"]
                and sorted(os.listdir(os.path.join(folder, "traces"))) ==
                sorted("%d.%s" % (i, x) for i in range(ranks * threads) for x in ("def", "evt")),
                "%s: the archive is DIR/traces.otf2, DIR/traces.def and DIR/traces/ (a .evt and .def per thread)"
                % label, str(names))
    locations, groups, props, events = read_archive(tool, folder)
    tally.check(sorted(locations) == list(range(ranks * threads))
                and all(locations[i]["name"] == "thread %d" % (i % threads) and locations[i]["group"] == i // threads
                        and locations[i]["type"] == "CPU_THREAD" for i in locations)
                and sorted(groups) == list(range(ranks))
                and all(groups[k]["name"] == "rank %d" % k and groups[k]["type"] == "PROCESS" for k in groups),
                "%s: one location per thread (%d ranks x %d threads), a location group per rank"
                % (label, ranks, threads), str(locations) + str(groups))
    errors = nesting_errors(events)
    tally.check(not errors, "%s: every location's ENTER/LEAVE balanced and well nested, in time order" % label,
                "; ".join(errors[:3]))
    tally.check(all(len(events.get(i, [])) == locations[i]["events"] for i in locations),
                "%s: each location holds as many events as its definition says" % label)
    regions = {r for evs in events.values() for _, _, r, _ in evs}
    tally.check(regions <= STATES | POINTS | {"steal"} and "work" in regions,
                "%s: regions named as documented (%s)" % (label, ", ".join(sorted(regions))))
    dropped = [int(x) for x in props.get("UTS::DROPPED", "").split(",") if x]
    tally.check(len(dropped) == ranks * threads and not any(dropped),
                "%s: the archive's properties say no event was dropped" % label, str(props))
    steals = [(loc, a) for loc, evs in events.items() for kind, _, r, a in evs if kind == "ENTER" and r == "steal"]
    success = [a for _, a in steals if a.get("outcome") == "success"]
    agg = rec["aggregates"]
    tally.check(len(success) == agg["steals"] and sum(a["nodes"] for a in success) == agg["nodes_stolen"]
                and props.get("UTS::STEALS") == str(agg["steals"]),
                "%s: steal enters with outcome success = the steal counter (%d), their nodes = nodes stolen (%d)"
                % (label, agg["steals"], agg["nodes_stolen"]),
                "archive: %d steals, %d nodes" % (len(success), sum(a.get("nodes", 0) for a in success)))
    tally.check(all(a.get("outcome") in ("success", "empty", "contended") and "victim" in a
                    and locations[a["victim"]]["group"] == locations[loc]["group"] and a["victim"] != loc
                    for loc, a in steals)
                and all(a["nodes"] == 0 for _, a in steals if a["outcome"] != "success"),
                "%s: every steal attempt (%d) names a victim of its rank, an outcome, nodes only on success"
                % (label, len(steals)))
    return events


def main():
    binary = sys.argv[1]
    tool = shutil.which("otf2-print")
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.otf2")
        p = run_uts(binary, ["-t", "1", "-b", "2", "-d", "2", "--trace", probe])
        if p.returncode == 2 and "without OTF2" in p.stderr:
            tally.check(p.stderr.count("\n") == 1 and not os.path.exists(probe),
                        "a build without OTF2: --trace x.otf2 refused in one line, exit 2")
            print("skip  the OTF2 archive checks: this uts was built without OTF2 (%s)" % p.stderr.strip())
            tally.finish()
            return 0
        tally.check(p.returncode == 0 and os.path.isfile(os.path.join(probe, "traces.otf2")),
                    "--trace x.otf2 on a tiny tree writes x.otf2/traces.otf2", p.stderr)
        if not tool:
            print("skip  reading the archives back: otf2-print not found (Debian otf2-tools)")
            tally.finish()
            return 0

        for protocol in ("split", "locked", "request", "chaselev"):
            folder = os.path.join(tmp, protocol + ".otf2")
            rec = json.loads(run_ok(tally, binary, ["--preset", "T3", "--threads", "4", "--protocol", protocol,
                                                    "--trace", folder, "--format", "json"]))
            check_archive(tally, tool, folder, rec, "T3, 4 threads, %s" % protocol, 4)
        leftovers = [n for n in os.listdir(tmp) if ".tmp" in n]
        tally.check(not leftovers, "no temporary folder left beside the archives", str(leftovers))

        # A truncated buffer: drops in the properties, the archive still nested.
        folder = os.path.join(tmp, "short.otf2")
        run_ok(tally, binary, ["--preset", "T1", "--threads", "2", "--trace", folder, "--trace-events", "10"])
        locations, _, props, events = read_archive(tool, folder)
        dropped = [int(x) for x in props.get("UTS::DROPPED", "").split(",") if x]
        errors = nesting_errors(events)
        tally.check(len(dropped) == 2 and all(d > 0 for d in dropped) and not errors
                    and props.get("UTS::EVENTS_PER_THREAD") == "10",
                    "--trace-events 10: the drops in the archive's properties, ENTER/LEAVE still balanced",
                    str(props) + "; ".join(errors[:2]))

        # The sequential engine: one location, one work interval.
        folder = os.path.join(tmp, "seq.otf2")
        run_ok(tally, binary, ["--preset", "T1", "--sequential", "--trace", folder])
        locations, _, _, events = read_archive(tool, folder)
        tally.check(list(locations) == [0] and [(k, r) for k, _, r, _ in events[0]] == [("ENTER", "work"),
                                                                                        ("LEAVE", "work")],
                    "--sequential: one location, one work interval")

        # An empty folder is taken (a trailing slash names the same folder).
        folder = os.path.join(tmp, "empty.otf2")
        os.mkdir(folder)
        run_ok(tally, binary, ["--preset", "T1", "--threads", "2", "--trace", folder + "/"])
        tally.check(os.path.isfile(os.path.join(folder, "traces.otf2")), "an empty folder (named with a trailing /) "
                    "takes the archive")

        # Refused before the run: a non-empty folder, a file, no parent folder.
        taken = os.path.join(tmp, "split.otf2")
        before = sorted(os.listdir(taken))
        a_file = os.path.join(tmp, "file.otf2")
        with open(a_file, "w") as f:
            f.write("keep me\n")
        for target, what in ((taken, "an existing non-empty folder"), (a_file, "an existing file"),
                             (os.path.join(tmp, "no", "such.otf2"), "a missing parent folder")):
            p = run_uts(binary, ["--preset", "T1", "--threads", "2", "--trace", target])
            tally.check(p.returncode == 2 and p.stderr.count("\n") == 1 and p.stdout == ""
                        and p.stderr.startswith("uts: --trace "),
                        "%s: refused before the run, one line, exit 2" % what, p.stderr)
        with open(a_file) as f:
            kept = f.read() == "keep me\n"
        tally.check(sorted(os.listdir(taken)) == before and kept, "the refused targets are left as they were")

        mpirun = shutil.which("mpirun")
        if mpirun and "with MPI)" in run_uts(binary, ["--version"]).stdout:
            folder = os.path.join(tmp, "mpi.otf2")
            env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            p = subprocess.run([mpirun, "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader",
                                "-np", "2", binary, "--preset", "T3", "--threads", "2", "--trace", folder,
                                "--format", "json"], capture_output=True, text=True, env=env, timeout=300)
            if p.returncode == 0:
                rec = json.loads(p.stdout)
                events = check_archive(tally, tool, folder, rec, "MPI 2 ranks x 2 threads", 2, ranks=2)
                sent = sum(1 for evs in events.values() for k, _, r, _ in evs if k == "ENTER" and r == "global_request")
                tally.check(sent == sum(r["requests_sent"] for r in rec["ranks"]) and sent > 0,
                            "MPI: one global_request per request sent (%d)" % sent)
                peers = [a.get("peer_rank") for loc, evs in events.items() for k, _, r, a in evs
                         if k == "ENTER" and r in POINTS and r != "wake"]
                tally.check(peers and all(x in (0, 1) for x in peers), "MPI: every global event names a peer rank")
            else:
                tally.check(False, "MPI OTF2 trace run", p.stderr[-400:])
        else:
            print("skip  MPI archive (no mpirun or a build without MPI)")
    return tally.finish()


def run_ok(tally, binary, args):
    p = run_uts(binary, args, timeout=300)
    if p.returncode != 0:
        tally.check(False, "uts %s" % " ".join(args), "exit %d: %s" % (p.returncode, p.stderr.strip()))
        raise SystemExit(tally.finish() or 1)
    return p.stdout


if __name__ == "__main__":
    sys.exit(main())
