#!/usr/bin/env python3
"""SIGINT mid-run: uts stops promptly, prints partial results marked as such,
and exits 130.

usage: test_sigint.py UTS_BINARY [extra uts args...]
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uts_check import Tally  # noqa: E402


def main():
    binary, extra = sys.argv[1], sys.argv[2:]
    tally = Tally()
    for fmt in ["text", "json"]:
        # A tree far too large to finish before the signal arrives.
        proc = subprocess.Popen([binary, "--preset", "T1XL", "--format", fmt] + extra,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        waited = time.monotonic() - sent
        marked = "PARTIAL" in out if fmt == "text" else '"status":"interrupted"' in out
        tally.check(proc.returncode == 130 and marked and waited < 5.0,
                    "SIGINT (%s): exit 130, partial results marked, stopped promptly" % fmt,
                    "rc=%s waited=%.2fs out=%r err=%r" % (proc.returncode, waited, out[:300], err[:300]))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
