#!/usr/bin/env python3
"""The live progress line: on by default when stderr is a terminal, off when
it is not, and --progress / --no-progress force it either way.

usage: test_progress.py UTS_BINARY
"""
import os
import pty
import signal
import subprocess
import sys
import time

from uts_check import Tally

# Far too long to finish: each run is stopped with SIGINT after RUN_SECONDS,
# so the number of updates depends on time, not on the machine's speed.
LONG_RUN = ["--preset", "T1XL", "--threads", "2"]
RUN_SECONDS = 3.5


def on_terminal(args):
    """Run with stdout and stderr on a pseudo-terminal, interrupt it after
    RUN_SECONDS; return the exit status and all output."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(args[0], args)
    time.sleep(RUN_SECONDS)
    os.kill(pid, signal.SIGINT)
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
    tally.check(rc == 130 and updates >= 2 and "M nodes/s" in out and "s elapsed" in out,
                "terminal: progress updates by default, about once a second", "rc=%d updates=%d" % (rc, updates))
    tally.check("Tree size = " in out, "terminal: the (partial) result follows the progress line")
    rc, out = on_terminal([binary, "--no-progress"] + LONG_RUN)
    tally.check(rc == 130 and "[uts] " not in out, "terminal: --no-progress silences it")
    for flags, expect_progress, label in (([], False, "pipe: no progress by default"),
                                          (["--progress"], True, "pipe: --progress forces it")):
        proc = subprocess.Popen([binary] + flags + LONG_RUN, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        time.sleep(RUN_SECONDS)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        shown = err.count("[uts] ") >= 2
        tally.check(proc.returncode == 130 and shown == expect_progress, label,
                    "rc=%d stderr=%r" % (proc.returncode, err[-300:]))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
