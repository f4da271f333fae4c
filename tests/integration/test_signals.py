#!/usr/bin/env python3
"""Signals: SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 stop a run
at any moment, promptly, with its partial results marked as such and exit
status 128 + the signal; a second signal kills at once (the same signal
again within 200 ms is one signal delivered twice, and is ignored).

  mid-run      every engine and protocol, each signal: exit 128+N, the
               text/JSON/CSV record says interrupted and by which signal, the
               partial size is below the tree's
  first ms     the signal lands right after the handler is installed (before
               or while the threads start): the same, never a crash or hang
  long loops   a thief spinning --remote-delay 10 s, -g 1e8 (one node takes
               seconds), a root with 2^31 children (sequential, parallel,
               --init balanced): each stops within a second
  after end    the run is complete and uts is blocked writing to a full
               pipe: a signal then changes nothing (exit 0, exact results);
               a second signal kills it (the default action): another
               signal, or the same one 0.5 s later
  duplicates   `timeout -s INT|TERM` (which signals the child, then its
               process group) with stdout a pipe, and one signal sent twice
               back to back: one request, partial results, exit 128+N
  in a wait    the signal lands while the run is certainly inside a wait
               (every thread in a --remote-delay of 5 s, on a tree that
               takes milliseconds): the run is interrupted, marked, exit
               128+N, never "complete" with the signal forgotten
  --verify     a partial run is not verified (and not a mismatch)
  pool         --workload pool: interrupted trials marked, later ones skipped

The timing bounds (2 s) are loose on purpose: they catch a run that ignores
the signal (seconds to hours), not a slow machine.

usage: test_signals.py UTS_BINARY
"""
import fcntl
import json
import os
import random
import signal
import subprocess
import sys
import termios
import time

from uts_check import Tally, run_uts

T1XL = ["--preset", "T1XL", "--no-progress"]  # 1.6 G nodes: never ends during a test
T1 = ["-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"]
T1_SIZE = 4130071
BOUND = 2.0  # seconds from the signal to the exit


def handler_installed(pid, sig):
    """True once the process catches `sig` (SigCgt in /proc/PID/status)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


def wait_handler(proc, sig, deadline=5.0):
    end = time.monotonic() + deadline
    while time.monotonic() < end and proc.poll() is None:
        if handler_installed(proc.pid, sig):
            return True
        time.sleep(0.0005)
    return False


def signal_run(args, sig, delay, wait_for_handler=True):
    """Start uts, send `sig` `delay` s after its handler is installed; return
    (returncode, stdout, stderr, seconds from the signal to the exit)."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if wait_for_handler and not wait_handler(proc, sig):
        proc.kill()
        out, err = proc.communicate()
        return None, out, "handler never installed: " + err, 0.0
    time.sleep(delay)
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return None, out, err + " (still running 10 s after the signal)", 10.0
    return proc.returncode, out, err, time.monotonic() - sent


def text_marked(out, sig):
    name = signal.Signals(sig).name
    return "*** PARTIAL RESULTS: run interrupted by %s" % name in out and "Tree size = " in out


def mid_run(binary, tally):
    engines = [["--sequential"], ["--threads", "1"], ["--threads", "2"], ["--threads", "8"],
               ["--threads", "3", "--protocol", "locked"], ["--threads", "4", "--protocol", "request"],
               ["--threads", "3", "--protocol", "chaselev"], ["--threads", "4", "--victim", "hier", "--domains", "2"],
               ["--threads", "2", "-s", "0", "--init", "balanced"]]
    sigs = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2]
    for i, engine in enumerate(engines):
        for j, fmt in enumerate(["text", "json", "csv"]):
            sig = sigs[(i + j) % len(sigs)]
            rc, out, err, dt = signal_run([binary] + T1XL + engine + ["--format", fmt], sig, 0.3)
            if fmt == "text":
                marked = text_marked(out, sig)
            elif fmt == "json":
                try:
                    rec = json.loads(out)
                    marked = (rec["status"] == "interrupted" and rec["stop_signal"] == sig.name
                              and 0 < rec["results"]["size"] < rec["expected"]["size"] and rec["verified"] is None)
                except (ValueError, KeyError):
                    marked = False
            else:
                lines = out.splitlines()
                row = dict(zip(lines[0].split(","), lines[1].split(","))) if len(lines) == 2 else {}
                marked = row.get("status") == "interrupted" and row.get("stop_signal") == sig.name
            tally.check(rc == 128 + sig and marked and err == "" and dt < BOUND,
                        "%s mid-run (%s, %s): exit %d, marked, %.2f s" % (sig.name, " ".join(engine), fmt, 128 + sig, dt),
                        "rc=%s out=%r err=%r" % (rc, out[-300:], err[-300:]))


def built_with_tsan(binary):
    with open(binary, "rb") as f:
        return b"__tsan_init" in f.read()


def first_milliseconds(binary, tally):
    if built_with_tsan(binary):
        # ThreadSanitizer's runtime catches a signal itself and runs the
        # program's handler later; a signal in the first milliseconds was
        # sometimes never handed on (2 of 60 runs in one try, within the
        # first 16 in each of six others, split and request alike: the run
        # went on with the whole tree, and in the stuck process the handler's
        # flag was 0 with nothing pending in the kernel). Builds
        # without TSan run this check (scripts/test, the full suite).
        print("skip  a signal in the first milliseconds: not checked in a ThreadSanitizer build")
        return
    rng = random.Random(18)
    engines = [["--sequential"], ["--threads", "2"], ["--threads", "16"], ["--threads", "4", "--protocol", "request"]]
    bad = []
    runs = 0
    for engine in engines:
        for _ in range(8):
            sig = rng.choice([signal.SIGINT, signal.SIGTERM])
            delay = rng.choice([0.0, 0.0, 0.001, 0.003, 0.01])
            rc, out, err, dt = signal_run([binary] + T1XL + engine, sig, delay)
            runs += 1
            if not (rc == 128 + sig and text_marked(out, sig) and err == "" and dt < BOUND):
                bad.append((engine, sig.name, delay, rc, out[-200:], err[-200:]))
    tally.check(not bad, "a signal in the first milliseconds (%d runs, 0-10 ms after the handler): exit 128+N, "
                "marked, prompt" % runs, repr(bad[:3]))


def long_loops(binary, tally):
    cases = [
        ("a thief spinning --remote-delay 10 s", T1XL + ["--threads", "4", "--victim", "hier", "--domains", "2",
                                                        "--remote-delay", "10000000000"]),
        ("-g 1e8, sequential", T1 + ["-g", "100000000", "--sequential"]),
        ("-g 1e8, 2 threads", T1 + ["-g", "100000000", "--threads", "2"]),
        ("a root with 2^31 children, sequential", ["-t", "0", "-b", "2147483647", "-q", "0", "-m", "1", "--sequential"]),
        ("a root with 2^31 children, 2 threads", ["-t", "0", "-b", "2147483647", "-q", "0", "-m", "1", "--threads", "2"]),
        ("a root with 2^31 children, --init balanced", ["-t", "0", "-b", "2147483647", "-q", "0", "-m", "1",
                                                       "--threads", "3", "--init", "balanced"]),
    ]
    # The same root with -g 1000 at 1 thread, on each path this CPU has: a
    # stop inside a repeated hash used to leave the SHA-NI and Crypto++
    # paths hashing the rest of the 2^31 children (nothing counted, so no poll).
    for path in ("avx512", "shani", "cryptopp"):
        if run_uts(binary, T1 + ["--sha1", path, "--max-nodes", "1", "--no-progress"]).returncode == 0:
            cases.append(("a root with 2^31 children, -g 1000, 1 thread, --sha1 " + path,
                          ["-t", "0", "-b", "2147483647", "-q", "0", "-m", "1", "-g", "1000", "--threads", "1",
                           "--sha1", path]))
    for what, args in cases:
        rc, out, err, dt = signal_run([binary, "--no-progress"] + args, signal.SIGINT, 0.5)
        tally.check(rc == 130 and "PARTIAL RESULTS" in out and dt < BOUND,
                    "SIGINT inside a long loop (%s): stops in %.2f s" % (what, dt), "rc=%s err=%r" % (rc, err[-300:]))


def fill_pipe_then(binary, sigs, gap=0.2):
    """Run a complete run whose JSON (1024 threads' rows) is larger than a
    pipe; once uts blocks on the full pipe, send `sigs`; then read it all."""
    args = [binary] + T1 + ["--threads", "1024", "--format", "json", "--no-progress"]
    env = dict(os.environ)
    env.pop("OMP_THREAD_LIMIT", None)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    fd = proc.stdout.fileno()
    end = time.monotonic() + 120
    full = False
    while time.monotonic() < end and proc.poll() is None:
        queued = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
        if int.from_bytes(queued, sys.byteorder) >= 65536:
            full = True
            break
        time.sleep(0.01)
    time.sleep(0.2)  # blocked in write(2) by now
    for sig in sigs:
        proc.send_signal(sig)
        time.sleep(gap)
    out, err = proc.communicate(timeout=60)
    return full, proc.returncode, out.decode(), err.decode()


def after_completion(binary, tally):
    full, rc, out, err = fill_pipe_then(binary, [signal.SIGINT])
    try:
        rec = json.loads(out)
        ok = rec["status"] == "complete" and rec["results"]["size"] == T1_SIZE and rec["stop_signal"] is None
    except (ValueError, KeyError):
        ok = False
    tally.check(full and rc == 0 and ok and err == "",
                "SIGINT after the run completed (uts blocked writing its results): exit 0, complete, exact",
                "full=%s rc=%s err=%r out=%r" % (full, rc, err[-300:], out[:200]))
    full, rc, out, err = fill_pipe_then(binary, [signal.SIGINT, signal.SIGTERM])
    tally.check(full and rc == -signal.SIGTERM,
                "a second signal (SIGTERM after SIGINT) kills a blocked uts at once", "full=%s rc=%s" % (full, rc))
    full, rc, out, err = fill_pipe_then(binary, [signal.SIGINT, signal.SIGINT], gap=0.5)
    tally.check(full and rc == -signal.SIGINT,
                "the same signal again 0.5 s later (Ctrl-C twice) kills a blocked uts", "full=%s rc=%s" % (full, rc))
    # Inside the 200 ms window, deterministically (uts is blocked on the
    # pipe, so the second signal cannot miss it): the same signal is one
    # delivery and changes nothing; another signal still kills.
    full, rc, out, err = fill_pipe_then(binary, [signal.SIGINT, signal.SIGINT], gap=0.02)
    try:
        ok = json.loads(out)["results"]["size"] == T1_SIZE
    except (ValueError, KeyError):
        ok = False
    tally.check(full and rc == 0 and ok,
                "the same signal twice 20 ms apart on a blocked uts: one delivery, complete results, exit 0",
                "full=%s rc=%s" % (full, rc))
    full, rc, out, err = fill_pipe_then(binary, [signal.SIGINT, signal.SIGTERM], gap=0.02)
    tally.check(full and rc == -signal.SIGTERM,
                "another signal 20 ms after the first kills a blocked uts", "full=%s rc=%s" % (full, rc))


def duplicates(binary, tally):
    """One signal delivered twice is one request: GNU timeout signals the
    child and then its process group, so the child gets it twice at once."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        for engine in (["--sequential"], ["--threads", "2"], ["--threads", "4", "--protocol", "locked"]):
            # stdout a pipe, as in `timeout -s INT 1 uts ... | tail`.
            proc = subprocess.run(["timeout", "--preserve-status", "-s", sig.name[3:], "0.5", binary] + T1XL + engine,
                                  capture_output=True, text=True, timeout=30)
            tally.check(proc.returncode == 128 + sig and text_marked(proc.stdout, sig) and proc.stderr == "",
                        "timeout -s %s (child and group signalled) with %s: partial results, exit %d"
                        % (sig.name[3:], " ".join(engine), 128 + sig),
                        "rc=%s out=%r err=%r" % (proc.returncode, proc.stdout[-300:], proc.stderr[-300:]))
    proc = subprocess.Popen([binary] + T1XL + ["--threads", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    ok = wait_handler(proc, signal.SIGINT)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    tally.check(ok and proc.returncode == 130 and text_marked(out, signal.SIGINT),
                "SIGINT twice back to back: one request, partial results, exit 130",
                "rc=%s out=%r err=%r" % (proc.returncode, out[-300:], err[-300:]))


def inside_waits(binary, tally):
    """A signal that ends a wait early still stops the run. Two threads in
    two domains: every steal is remote and waits --remote-delay (5 s) before
    its probe. Thread 1 starts with nothing and enters that wait at the
    run's start; thread 0 finishes the small tree in milliseconds and enters
    the same wait to probe thread 1. Termination is looked for only after a
    search step ends, so for 5 s from the start both threads are in a delay,
    and a signal 0.5 s after the handler is installed lands inside one by
    construction (not by timing luck)."""
    small = ["-t", "1", "-a", "3", "-d", "6", "-b", "4", "-r", "19"]
    wait = ["--threads", "2", "--victim", "hier", "--domains", "2", "--remote-delay", "5000000000", "--no-progress"]
    for sig in (signal.SIGINT, signal.SIGTERM):
        rc, out, err, dt = signal_run([binary] + small + wait + ["--format", "json"], sig, 0.5)
        try:
            rec = json.loads(out)
            ok = rec["status"] == "interrupted" and rec["stop_signal"] == sig.name
        except (ValueError, KeyError, TypeError):
            ok = False
        tally.check(rc == 128 + sig and ok and dt < BOUND,
                    "%s inside a --remote-delay wait: interrupted, stop_signal %s, exit %d (%.2f s)"
                    % (sig.name, sig.name, 128 + sig, dt), "rc=%s out=%r err=%r" % (rc, out[:300], err[-300:]))
    rc, out, err, dt = signal_run([binary] + small + wait, signal.SIGINT, 0.5)
    tally.check(rc == 130 and text_marked(out, signal.SIGINT),
                "SIGINT inside a --remote-delay wait, text: PARTIAL RESULTS, exit 130",
                "rc=%s out=%r err=%r" % (rc, out[-300:], err[-300:]))


def verify_partial(binary, tally):
    rc, out, err, dt = signal_run([binary] + T1XL + ["--threads", "2", "--verify"], signal.SIGINT, 0.3)
    tally.check(rc == 130 and "Verify: not verified: partial run" in out and "MISMATCH" not in out.upper(),
                "--verify on an interrupted run: not verified (partial run), exit 130", "rc=%s out=%r" % (rc, out[-400:]))
    rc, out, err, dt = signal_run([binary] + T1XL + ["--threads", "2", "--verify", "--format", "json"],
                                  signal.SIGTERM, 0.3)
    try:
        rec = json.loads(out)
        ok = rec["verified"] is None and rec["verify_skipped"] == "partial run"
    except (ValueError, KeyError):
        ok = False
    tally.check(rc == 143 and ok, "--verify, JSON: verified null, verify_skipped \"partial run\", exit 143",
                "rc=%s out=%r" % (rc, out[:300]))


def pool(binary, tally):
    base = [binary, "--workload", "pool", "--threads", "4", "--ops", "1000000000", "--trials", "5"]
    rc, out, err, dt = signal_run(base, signal.SIGINT, 0.5)
    tally.check(rc == 130 and "*** PARTIAL RESULTS: interrupted by SIGINT after" in out and dt < BOUND,
                "pool, SIGINT mid-trial: exit 130, marked, %.2f s" % dt, "rc=%s out=%r err=%r" % (rc, out[-300:], err))
    rc, out, err, dt = signal_run(base + ["--format", "json"], signal.SIGTERM, 0.5)
    try:
        rec = json.loads(out)
        ok = (rec["status"] == "interrupted" and rec["stop_signal"] == "SIGTERM" and rec["trials"]
              and not rec["trials"][-1]["complete"] and len(rec["trials"]) < 5)
    except (ValueError, KeyError, TypeError):
        ok = False
    tally.check(rc == 143 and ok, "pool, SIGTERM, JSON: status interrupted, the last trial incomplete, no later trial",
                "rc=%s out=%r" % (rc, out[:400]))


def main():
    binary = sys.argv[1]
    tally = Tally()
    mid_run(binary, tally)
    first_milliseconds(binary, tally)
    long_loops(binary, tally)
    after_completion(binary, tally)
    duplicates(binary, tally)
    inside_waits(binary, tally)
    verify_partial(binary, tally)
    pool(binary, tally)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
