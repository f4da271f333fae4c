#!/usr/bin/env python3
"""Output that cannot be written: a full device, a closed stdout, a
pipe nobody reads, an --output or --trace that fails: exit 4 with one line
on stderr, never a crash, a SIGPIPE death or a silent exit 0. And --output -
writes the record once.

usage: test_output_errors.py UTS_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

from uts_check import Tally

SMALL = ["-t", "3", "-d", "4", "-b", "3", "--threads", "2"]  # 121 nodes
POOL = ["--workload", "pool", "--threads", "2", "--ops", "2000", "--trials", "2"]


def run(args, stdout=None, stderr=subprocess.PIPE, pass_fds=(), close_stdout=False, close_stderr=False):
    """Run uts; stdout None = a pipe we read. Returns (rc, stdout, stderr)."""
    def pre():
        if close_stdout:
            os.close(1)
        if close_stderr:
            os.close(2)
    proc = subprocess.run(args, stdout=stdout if stdout is not None else subprocess.PIPE,
                          stderr=stderr if not close_stderr else subprocess.DEVNULL,
                          text=True, timeout=120, preexec_fn=pre, pass_fds=pass_fds)
    return proc.returncode, proc.stdout or "", proc.stderr or ""


def one_line(err, needle=""):
    lines = err.splitlines()
    return len(lines) == 1 and lines[0].startswith("uts: ") and needle in lines[0]


def main():
    binary = sys.argv[1]
    tally = Tally()
    commands = [("a run, text", SMALL), ("a run, JSON", SMALL + ["--format", "json"]),
                ("a run, CSV", SMALL + ["--format", "csv"]), ("--help", ["--help"]), ("--version", ["--version"]),
                ("--list-presets", ["--list-presets"]), ("pool, text", POOL), ("pool, JSON", POOL + ["--format", "json"]),
                ("sequential", SMALL[:6] + ["--sequential"])]

    # A full device.
    with open("/dev/full", "w") as full:
        for what, args in commands:
            rc, _, err = run([binary] + args, stdout=full)
            tally.check(rc == 4 and one_line(err, "No space left on device"),
                        "stdout on /dev/full (%s): exit 4, one line" % what, "rc=%s err=%r" % (rc, err))

    # stdout closed (uts >&-).
    for what, args in commands[:4]:
        rc, _, err = run([binary] + args, stdout=subprocess.DEVNULL, close_stdout=True)
        tally.check(rc == 4 and one_line(err, "stdout is closed"),
                    "stdout closed (%s): exit 4, one line" % what, "rc=%s err=%r" % (rc, err))

    # A pipe whose reader is gone: EPIPE, not death by SIGPIPE.
    for what, args in commands[:2] + commands[6:7]:
        r, w = os.pipe()
        os.close(r)
        try:
            proc = subprocess.run([binary] + args, stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
        finally:
            os.close(w)
        tally.check(proc.returncode == 4 and one_line(proc.stderr, "Broken pipe"),
                    "stdout a pipe nobody reads (%s): exit 4, one line, no SIGPIPE" % what,
                    "rc=%s err=%r" % (proc.returncode, proc.stderr))

    # stderr closed as well as a failing stdout: still exit 4, no crash.
    with open("/dev/full", "w") as full:
        rc, _, _ = run([binary] + SMALL, stdout=full, close_stderr=True)
    tally.check(rc == 4, "stdout full and stderr closed: exit 4 (no crash)", "rc=%s" % rc)
    # stdin and stderr closed do not matter to a run that writes nowhere else.
    proc = subprocess.run([binary] + SMALL + ["--format", "json"], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120, preexec_fn=lambda: os.close(0))
    tally.check(proc.returncode == 0 and json.loads(proc.stdout)["results"]["size"] == 121,
                "stdin closed: the run is unaffected", "rc=%s" % proc.returncode)
    # Bad input with stderr closed: exit 2 all the same.
    rc, _, _ = run([binary, "--threads", "0"], close_stderr=True)
    tally.check(rc == 2, "bad input with stderr closed: exit 2", "rc=%s" % rc)

    # --output and --trace on a full device: the results are printed, then exit 4.
    rc, out, err = run([binary] + SMALL + ["--output", "/dev/full"])
    tally.check(rc == 4 and "Tree size = 121" in out and one_line(err, "--output"),
                "--output /dev/full: the results printed, exit 4, one line", "rc=%s err=%r" % (rc, err))
    rc, out, err = run([binary] + SMALL + ["--format", "csv", "--output", "/dev/full"])
    tally.check(rc == 4 and one_line(err, "--output"), "--output /dev/full, CSV: exit 4, one line",
                "rc=%s err=%r" % (rc, err))
    rc, out, err = run([binary] + POOL + ["--trace", "/dev/full"])
    tally.check(rc == 4 and one_line(err, "/dev/full"), "pool --trace /dev/full: exit 4, one line",
                "rc=%s err=%r" % (rc, err))

    with tempfile.TemporaryDirectory() as tmp:
        # A failed --trace leaves neither the file nor its temporary behind.
        trace = os.path.join(tmp, "trace.csv")
        rc, _, err = run([binary] + POOL + ["--trace", trace], stdout=open("/dev/full", "w"))
        rc2, _, _ = run([binary] + POOL + ["--trace", trace])
        with open(trace) as f:
            header = f.readline()
        tally.check(rc == 4 and rc2 == 0 and header.startswith("trial,") and os.listdir(tmp) == ["trace.csv"],
                    "pool --trace: written whole by rename, no temporary left", "rc=%s %s %r" % (rc, rc2, header))
        # A record file that already holds records gets whole lines appended.
        rec = os.path.join(tmp, "runs.jsonl")
        for _ in range(2):
            run([binary] + SMALL + ["--output", rec])
        with open(rec) as f:
            lines = f.read().splitlines()
        tally.check(len(lines) == 2 and all(json.loads(line)["results"]["size"] == 121 for line in lines),
                    "--output appends one JSON line per run")

    # --output -: the record on stdout, once, in place of the usual output.
    rc, out, _ = run([binary] + SMALL + ["--output", "-", "--format", "json"])
    tally.check(rc == 0 and len(out.splitlines()) == 1 and json.loads(out)["results"]["size"] == 121,
                "--output - with --format json: one record on stdout")
    rc, out, _ = run([binary] + SMALL + ["--output", "-"])
    tally.check(rc == 0 and len(out.splitlines()) == 1 and json.loads(out)["results"]["size"] == 121,
                "--output - with text: the JSON record in place of the text")
    rc, out, _ = run([binary] + SMALL + ["--output", "-", "--format", "csv"])
    lines = out.splitlines()
    tally.check(rc == 0 and len(lines) == 2 and lines[0].startswith("uts_version,") and ",121," in lines[1],
                "--output - with --format csv: header and row once", repr(lines[:1]))
    rc, out, _ = run([binary] + POOL + ["--output", "-", "--format", "json"])
    tally.check(rc == 0 and len(out.splitlines()) == 1 and json.loads(out)["workload"] == "pool",
                "pool --output -: one record on stdout")
    with open("/dev/full", "w") as full:
        rc, _, err = run([binary] + SMALL + ["--output", "-"], stdout=full)
    tally.check(rc == 4 and one_line(err), "--output - on a full stdout: exit 4, one line", "rc=%s err=%r" % (rc, err))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
