#!/usr/bin/env python3
"""The live progress line: on by default when stderr is a terminal, off when
it is not, and --progress / --no-progress force it either way.

usage: test_progress.py UTS_BINARY
"""
import os
import pty
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uts_check import Tally  # noqa: E402

LONG_RUN = ["--preset", "T1L", "--threads", "1", "--max-nodes", "60000000"]  # a few seconds


def on_terminal(args):
    """Run with stdout and stderr on a pseudo-terminal; return all output."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(args[0], args)
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode(errors="replace")


def main():
    binary = sys.argv[1]
    tally = Tally()
    rc, out = on_terminal([binary] + LONG_RUN)
    updates = out.count("[uts] ")
    tally.check(rc == 0 and updates >= 2 and "M nodes/s" in out and "s elapsed" in out,
                "terminal: progress updates by default", "rc=%d updates=%d" % (rc, updates))
    tally.check("Tree size = " in out, "terminal: the result still follows the progress line")
    rc, out = on_terminal([binary, "--no-progress"] + LONG_RUN)
    tally.check(rc == 0 and "[uts] " not in out, "terminal: --no-progress silences it")
    p = subprocess.run([binary] + LONG_RUN, capture_output=True, text=True)
    tally.check(p.returncode == 0 and "[uts] " not in p.stderr, "pipe: no progress by default")
    p = subprocess.run([binary, "--progress"] + LONG_RUN, capture_output=True, text=True)
    tally.check(p.returncode == 0 and p.stderr.count("[uts] ") >= 2, "pipe: --progress forces it")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
