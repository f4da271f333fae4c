#!/usr/bin/env python3
"""scripts/plot-trace: on synthetic traces written from the
format of docs/trace.md (threads only; 2 ranks x 2 threads; a domains map;
a truncated buffer), every figure is written as PNG and SVG and printed;
the steal matrices and the breakdown count exactly what the trace holds;
--window and decimation are said in the caption; a truncated trace is said
on stderr and in the captions; bad input exits 2 with one line. With a uts
binary that has --trace: a real small trace of each protocol (and under 2
MPI ranks where mpirun and an MPI build exist) is drawn, its matrix total
equal to the run's steal counter.

usage: PYTHONPATH=REPO_ROOT/scripts test_plot_trace.py REPO_ROOT UTS_BINARY|none (meson test sets PYTHONPATH)
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally

FIGURES = ("timeline", "steal_matrix", "steal_distributions", "breakdown")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def synthetic_trace(ranks, threads, seed=1, end_us=20000.0, events_per_thread=None, domains=None):
    """A trace in uts's format: per track, work / search (failed attempts,
    idle, sleep) / claim (a successful steal from another track, with its
    flow arrow) until end_us, then search and termination; MPI thread 0
    has agent intervals. Returns (trace, truth) where truth holds what the
    figures must count: successful steals (thief, victim) -> (count, nodes),
    seconds per track and state, attempts per outcome."""
    rng = random.Random(seed)
    tracks = [(r, t) for r in range(ranks) for t in range(threads)]
    per_track = {tr: [] for tr in tracks}
    truth = {"pairs": {}, "seconds": {tr: {} for tr in tracks}, "outcomes": {"success": 0, "empty": 0,
                                                                               "contended": 0}}
    flow_id = [0]

    def interval(tr, state, ts, dur, nested=False):
        per_track[tr].append({"ph": "X", "cat": "state", "name": state, "ts": round(ts, 3), "dur": round(dur, 3),
                              "pid": tr[0], "tid": tr[1], "_nested": nested})

    for tr in tracks:
        t = 0.0 if tr == (0, 0) else rng.uniform(0, 30)
        first = True
        while True:
            if not first or tr == (0, 0):
                d = rng.expovariate(1 / 300.0)
                interval(tr, "work", t, d)
                t += d
                if ranks > 1 and tr[1] == 0:
                    d = rng.uniform(2, 10)
                    interval(tr, "agent", t, d)
                    if rng.random() < 0.3:
                        name = rng.choice(("global_request", "global_answer", "global_refusal", "token"))
                        per_track[tr].append({"ph": "i", "s": "t", "cat": "global", "name": name, "ts": round(t, 3),
                                              "pid": tr[0], "tid": tr[1],
                                              "args": {"peer_rank": (tr[0] + 1) % ranks, "nodes": 0}})
                    t += d
            first = False
            search_start = t
            last = t > end_us
            attempts = []
            for k in range(rng.randint(0, 5) if not last else 3):
                d = rng.lognormvariate(0.0, 0.8)
                outcome = rng.choice(("empty", "empty", "contended"))
                victim = rng.choice([v for v in tracks if v != tr])
                attempts.append((t, d, outcome, victim, 0))
                t += d
                if rng.random() < 0.2:
                    idle = rng.uniform(5, 40)
                    attempts.append((t, idle, "idle", None, 0))
                    t += idle
            if rng.random() < 0.05 and not last:
                d = rng.uniform(50, 200)
                attempts.append((t, d, "sleep", None, 0))
                t += d
            claim = None
            if not last:
                d = rng.lognormvariate(0.3, 0.5)
                victim = rng.choice([v for v in tracks if v != tr])
                claim = (t, d, "success", victim, rng.randint(1, 40))
                t += d
            # the state intervals: search pieces around idle/sleep, then claim or termination
            # (the last search's pieces lie inside the termination interval, as uts writes them)
            cursor = search_start
            steal_events = []
            for a in attempts:
                if a[2] in ("idle", "sleep"):
                    if a[0] > cursor:
                        interval(tr, "search", cursor, a[0] - cursor, nested=last)
                    interval(tr, a[2], a[0], a[1], nested=last)
                    cursor = a[0] + a[1]
                else:
                    steal_events.append(a)
            if last:
                t_end = max(t, cursor) + rng.uniform(1, 5)
                interval(tr, "search", cursor, t_end - cursor, nested=True)
                interval(tr, "termination", search_start, t_end - search_start)
            else:
                if claim[0] > cursor:
                    interval(tr, "search", cursor, claim[0] - cursor)
                interval(tr, "claim", claim[0], claim[1])
                steal_events.append(claim)
            for ts, d, outcome, victim, nodes in steal_events:
                per_track[tr].append({"ph": "X", "cat": "steal", "name": "steal", "ts": round(ts, 3),
                                      "dur": round(d, 3), "pid": tr[0], "tid": tr[1],
                                      "args": {"victim_rank": victim[0], "victim_thread": victim[1],
                                               "outcome": outcome, "nodes": nodes}})
                if outcome == "success":
                    flow_id[0] += 1
                    at = round(ts + d, 3)
                    per_track[victim].append({"ph": "s", "cat": "steal", "name": "steal", "id": flow_id[0],
                                              "ts": at, "pid": victim[0], "tid": victim[1]})
                    per_track[tr].append({"ph": "f", "bp": "e", "cat": "steal", "name": "steal",
                                          "id": flow_id[0], "ts": at, "pid": tr[0], "tid": tr[1]})
                    if rng.random() < 0.3:
                        per_track[tr].append({"ph": "i", "s": "t", "cat": "wake", "name": "wake", "ts": at,
                                              "pid": tr[0], "tid": tr[1], "args": {"target_thread": victim[1]}})
            if last:
                break
    # Keep the first N events per track (in time order), as uts's buffer does.
    recorded, dropped = [], []
    events = []
    for r in range(ranks):
        events.append({"ph": "M", "name": "process_name", "pid": r, "args": {"name": "rank %d" % r}})
    for tr in tracks:
        events.append({"ph": "M", "name": "thread_name", "pid": tr[0], "tid": tr[1],
                       "args": {"name": "thread %d" % tr[1]}})
    for tr in tracks:
        evs = sorted(per_track[tr], key=lambda e: e["ts"])
        keep = evs if events_per_thread is None else evs[:events_per_thread]
        recorded.append(len(keep))
        dropped.append(len(evs) - len(keep))
        events.extend(keep)
        for e in keep:
            if e.pop("_nested", False):
                truth["nested"] = True
                continue
            if e.get("cat") == "state":
                sec = truth["seconds"][tr]
                sec[e["name"]] = sec.get(e["name"], 0.0) + e["dur"] / 1e6
            elif e["ph"] == "X" and e.get("cat") == "steal":
                a = e["args"]
                truth["outcomes"][a["outcome"]] += 1
                if a["outcome"] == "success":
                    key = (tr, (a["victim_rank"], a["victim_thread"]))
                    c, n = truth["pairs"].get(key, (0, 0))
                    truth["pairs"][key] = (c + 1, n + a["nodes"])
    other = {"uts_version": "synthetic", "commit": "0" * 40, "tree": "synthetic", "protocol": "split",
             "threads": threads, "ranks": ranks, "events_per_thread": events_per_thread or 1000000,
             "recorded": recorded, "dropped": dropped,
             "steals": sum(c for c, _ in truth["pairs"].values()),
             "nodes_stolen": sum(n for _, n in truth["pairs"].values())}
    if domains is not None:
        other["domains"] = domains
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other}, truth


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


def plot(root, args, timeout=120, formats="svg"):
    """plot-trace; SVG only (UTS_FIGURE_FORMATS) but where PNG is checked too:
    the figures' text is read from the SVG, and PNG doubles the drawing time."""
    return subprocess.run([PYTHON, os.path.join(root, "scripts", "plot-trace")] + args, capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, UTS_FIGURE_FORMATS=formats))


def written(out, stem, names=FIGURES, exts=("svg",)):
    """The expected files, each a real PNG or a non-trivial SVG; (missing, paths)."""
    missing, paths = [], []
    for name in names:
        for ext in exts:
            path = os.path.join(out, "%s_%s.%s" % (stem, name, ext))
            paths.append(path)
            ok = os.path.isfile(path) and os.path.getsize(path) > 1000
            if ok and ext == "png":
                with open(path, "rb") as f:
                    ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
            if not ok:
                missing.append(os.path.basename(path))
    return missing, paths


def svg_text(out, stem, name):
    """The SVG's text (matplotlib writes it as text: svg.fonttype none),
    tags dropped and white space collapsed, so wrapped caption lines join."""
    with open(os.path.join(out, "%s_%s.svg" % (stem, name))) as f:
        text = re.sub(r"<[^>]*>", " ", f.read())
    return re.sub(r"\s+", " ", text.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&"))


def check_synthetic(tally, root, tmp, trace_plots):
    # Threads only: 4 threads.
    trace, truth = synthetic_trace(1, 4, seed=3)
    path = write(os.path.join(tmp, "four.json"), trace)
    out = os.path.join(tmp, "four_out")
    p = plot(root, [path, "--out", out], formats="png,svg")
    missing, paths = written(out, "four", exts=("png", "svg"))
    tally.check(p.returncode == 0 and not missing and p.stderr == "", "4 threads: every figure, PNG and SVG",
                "rc=%d %s %s" % (p.returncode, missing, p.stderr[-500:]))
    tally.check(sorted(p.stdout.split()) == sorted(paths), "the files written are printed, one a line", p.stdout)
    if p.returncode != 0:
        return
    t = trace_plots.Trace(path)
    ok = True
    keys, steals, nodes = trace_plots._matrix(t, lambda k: k)
    for i, thief in enumerate(keys):
        for j, victim in enumerate(keys):
            want = truth["pairs"].get((thief, victim), (0, 0))
            ok &= (int(steals[i, j]), int(nodes[i, j])) == want
    tally.check(ok and steals.sum() == trace["otherData"]["steals"] and steals.sum() > 10,
                "steal matrix: each thief x victim cell counts the trace's successful steals and their nodes",
                str(steals))
    b = trace_plots.breakdown(t)
    ok = all(abs(b[tr].get(s, 0.0) - v) < 1e-8 for tr in truth["seconds"] for s, v in truth["seconds"][tr].items())
    ok &= all(set(b[tr]) == set(truth["seconds"][tr]) for tr in truth["seconds"])
    tally.check(ok and truth.get("nested"), "breakdown: per thread and state, the sum of the recorded intervals' "
                "durations, those inside termination counted as termination")
    tl = svg_text(out, "four", "timeline")
    n_success = truth["outcomes"]["success"]
    tally.check("all %d successful steals" % n_success in tl and "steal: victim -> thief" in tl
                and all(" t%d " % k in tl for k in range(4)) and "Every recorded interval" in tl
                and "Run: uts synthetic" in tl and "4 threads" in tl and "core count not in the trace" in tl,
                "timeline: a row per thread, the arrows counted in the caption, no decimation, the run line")
    sm = svg_text(out, "four", "steal_matrix")
    tally.check("n = %d successful steal events" % n_success in sm and "by rank" not in sm
                and "by domain" not in sm, "steal matrix caption: n; no rank or domain matrix for 1 rank")
    sd = svg_text(out, "four", "steal_distributions")
    tally.check("n = %d steal attempts" % sum(truth["outcomes"].values()) in sd
                and "%d empty" % truth["outcomes"]["empty"] in sd and "log scale" in sd,
                "steal distributions: attempts per outcome counted, log x")
    bd = svg_text(out, "four", "breakdown")
    tally.check("TRUNCATED" not in bd and "summed durations" in bd and "counted and drawn as termination" in bd,
                "breakdown caption: complete trace, what is summed, the intervals inside termination")

    # Decimation and window.
    out2 = os.path.join(tmp, "four_dec")
    p = plot(root, [path, "--out", out2, "--max-intervals", "20"])
    tl = svg_text(out2, "four", "timeline") if p.returncode == 0 else ""
    tally.check(p.returncode == 0 and "DECIMATED to at most 20 intervals per thread" in tl,
                "--max-intervals 20: decimation said in the caption", p.stderr)
    p = plot(root, [path, "--out", out2, "--window", "0.002:0.004"])
    tl = svg_text(out2, "four", "timeline") if p.returncode == 0 else ""
    tally.check(p.returncode == 0 and "window 0.002-0.004 s" in tl and "2 ms into the run" in tl,
                "--window: the window in the title and the axis", p.stderr)

    # 2 ranks x 2 threads, with a domains map.
    trace, truth = synthetic_trace(2, 2, seed=5, domains={"0.0": 0, "0.1": 0, "1.0": 1, "1.1": 1})
    path = write(os.path.join(tmp, "mpi.json"), trace)
    out = os.path.join(tmp, "mpi_out")
    p = plot(root, [path, "--out", out])
    missing, _ = written(out, "mpi")
    tally.check(p.returncode == 0 and not missing, "2 ranks x 2 threads: every figure",
                "rc=%d %s %s" % (p.returncode, missing, p.stderr[-500:]))
    if p.returncode == 0:
        t = trace_plots.Trace(path)
        keys, steals, nodes = trace_plots._matrix(t, lambda k: k[0])
        want = [[sum(c for (th, vi), (c, _) in truth["pairs"].items() if th[0] == i and vi[0] == j)
                 for j in range(2)] for i in range(2)]
        tally.check(keys == [0, 1] and steals.tolist() == want and steals[0, 1] > 0,
                    "rank matrix: steals summed over each rank's threads, across ranks off the diagonal",
                    "%s vs %s" % (steals.tolist(), want))
        sm = svg_text(out, "mpi", "steal_matrix")
        tl = svg_text(out, "mpi", "timeline")
        tally.check("Successful steals by rank" in sm and "Successful steals by domain" in sm
                    and "Nodes moved by domain" in sm and "r1 t1" in tl and "2 ranks x 2 threads" in tl
                    and "agent" in tl and "global request sent" in tl and "MPI agent's global events" in tl,
                    "MPI: rank and domain matrices, rows r R t T, the agent state, the global events marked")

    # Truncated buffer.
    trace, truth = synthetic_trace(1, 3, seed=7, events_per_thread=40)
    path = write(os.path.join(tmp, "cut.json"), trace)
    out = os.path.join(tmp, "cut_out")
    p = plot(root, [path, "--out", out])
    lines = p.stderr.strip().splitlines()
    dropped = sum(trace["otherData"]["dropped"])
    tally.check(p.returncode == 0 and dropped > 0 and len(lines) == 1 and "truncated trace" in lines[0]
                and "%d events dropped" % dropped in lines[0], "truncated trace: one stderr line with the drops",
                p.stderr)
    if p.returncode == 0:
        ok = all("TRUNCATED TRACE" in svg_text(out, "cut", name) for name in FIGURES)
        tally.check(ok, "truncated trace: every caption says so")
        bd = svg_text(out, "cut", "breakdown")
        tally.check("dropped %d events" % dropped in bd, "breakdown caption: how many events were dropped")


def check_bad_input(tally, root, tmp):
    cases = [("a missing file", [os.path.join(tmp, "nope.json")], "cannot read"),
             ("a folder", [tmp], "cannot read"),
             ("not JSON", [write(os.path.join(tmp, "bad.json"), None)], None),
             ("JSON, not a trace", [write(os.path.join(tmp, "list.json"), [1, 2, 3])], "not a uts trace"),
             ("a Chrome trace from another program", [write(os.path.join(tmp, "other.json"),
                                                           {"traceEvents": [{"ph": "X", "ts": 1, "dur": 2,
                                                                             "pid": 1, "tid": 1}]})],
              "not a uts trace"),
             ("a uts trace with a broken event",
              [write(os.path.join(tmp, "broken.json"),
                     {"traceEvents": [{"ph": "X", "cat": "state", "name": "work", "ts": "x", "pid": 0, "tid": 0}],
                      "otherData": {"protocol": "split", "dropped": [0]}})], "event 0"),
             ("no file", [], "usage"),
             ("a bad window", [os.path.join(tmp, "four.json"), "--window", "3:1"], "--window"),
             ("a bad --max-intervals", [os.path.join(tmp, "four.json"), "--max-intervals", "0"], "--max-intervals"),
             ("an unknown option", [os.path.join(tmp, "four.json"), "--colour"], "unknown option"),
             ("a window after the run", [os.path.join(tmp, "four.json"), "--out", os.path.join(tmp, "w"),
                                         "--window", "100:200"], "after the run")]
    with open(os.path.join(tmp, "bad.json"), "w") as f:
        f.write("{\"traceEvents\": [")
    for what, args, word in cases:
        p = plot(root, args)
        lines = p.stderr.strip().splitlines()
        tally.check(p.returncode == 2 and len(lines) == 1 and "Traceback" not in p.stderr
                    and lines[0].startswith("plot-trace: ") and (word is None or word in lines[0])
                    and p.stdout == "" and not os.path.exists(os.path.join(tmp, "w")),
                    "bad input (%s): one line, exit 2, nothing written" % what,
                    "rc=%d %s" % (p.returncode, p.stderr[-400:]))


def check_real(tally, root, tmp, binary, trace_plots):
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    if "--trace" not in help_text:
        print("SKIP: real traces: %s has no --trace" % binary)
        return
    for protocol in ("split", "locked", "request", "chaselev"):
        path = os.path.join(tmp, "real_%s.json" % protocol)
        run = subprocess.run([binary, "--preset", "T1", "-d", "8", "--threads", "3", "--protocol", protocol,
                              "--trace", path, "--format", "json", "--no-progress"], capture_output=True, text=True,
                             timeout=120)
        if run.returncode != 0 or not os.path.isfile(path):
            tally.check(False, "%s: uts --trace ran" % protocol, run.stderr[-400:])
            continue
        out = os.path.join(tmp, "real_%s_out" % protocol)
        p = plot(root, [path, "--out", out])
        missing, _ = written(out, "real_%s" % protocol, ("timeline", "steal_matrix", "breakdown"))
        tally.check(p.returncode == 0 and not missing, "real trace, protocol %s: figures drawn" % protocol,
                    "rc=%d %s %s" % (p.returncode, missing, p.stderr[-400:]))
        t = trace_plots.Trace(path)
        _, steals, nodes = trace_plots._matrix(t, lambda k: k)
        rec = json.loads(run.stdout)
        if not t.truncated():
            tally.check(int(steals.sum()) == rec["aggregates"]["steals"]
                        and int(nodes.sum()) == rec["aggregates"]["nodes_stolen"] and len(t.threads) == 3,
                        "real trace, %s: 3 tracks; the matrix totals equal the run's steal and stolen-node "
                        "counters" % protocol, "%d/%d steals, %d/%d nodes" % (steals.sum(), rec["aggregates"]["steals"],
                                                                           nodes.sum(),
                                                                           rec["aggregates"]["nodes_stolen"]))
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    if not shutil.which("mpirun") or "without MPI" in version or "with MPI" not in version:
        print("SKIP: a 2-rank trace: no mpirun or %s is built without MPI" % binary)
        return
    path = os.path.join(tmp, "real_mpi.json")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.pop("OMP_NUM_THREADS", None)
    run = subprocess.run(["mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none", binary, "--preset", "T1",
                          "-d", "8", "--threads", "2", "--trace", path, "--format", "json", "--no-progress"],
                         capture_output=True, text=True, timeout=180, env=env)
    if run.returncode != 0 or not os.path.isfile(path):
        tally.check(False, "2 ranks: uts --trace ran under mpirun", run.stderr[-400:])
        return
    out = os.path.join(tmp, "real_mpi_out")
    p = plot(root, [path, "--out", out])
    missing, _ = written(out, "real_mpi", ("timeline", "steal_matrix", "breakdown"))
    ok = p.returncode == 0 and not missing
    if ok:
        ok = "Successful steals by rank" in svg_text(out, "real_mpi", "steal_matrix")
    tally.check(ok, "real trace, 2 MPI ranks x 2 threads: figures drawn, the rank matrix among them",
                "rc=%d %s %s" % (p.returncode, missing, p.stderr[-400:]))


def main():
    if len(sys.argv) != 3:
        print("usage: test_plot_trace.py REPO_ROOT UTS_BINARY|none", file=sys.stderr)
        return 2
    root, binary = sys.argv[1], sys.argv[2]
    try:
        from utstools import trace_plots  # PYTHONPATH=scripts (tests/meson.build)
    except ImportError as e:
        if os.path.realpath(sys.executable) != os.path.realpath(PYTHON):
            # The scripts run under /usr/bin/python3 (their shebang), with Debian's matplotlib: so does this test.
            os.execv(PYTHON, [PYTHON] + sys.argv)
        print("FAIL  utstools.trace_plots imports (needs PYTHONPATH=REPO_ROOT/scripts and python3-matplotlib): %s"
              % e)
        return 1
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        check_synthetic(tally, root, tmp, trace_plots)
        check_bad_input(tally, root, tmp)
        if binary != "none":
            check_real(tally, root, tmp, os.path.abspath(binary), trace_plots)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
