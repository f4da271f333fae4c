#!/usr/bin/env python3
"""scripts/compare-records keeps working as the output grows: a binary
compared with itself matches (its masks hold run-to-run variation), and a
binary that prints another tree is caught.

usage: test_compare_records.py SOURCE_ROOT UTS_BINARY
"""
import os
import stat
import subprocess
import sys
import tempfile

from uts_check import Tally


def main():
    root, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    script = os.path.join(root, "scripts", "compare-records")
    tally = Tally()
    p = subprocess.run([sys.executable, script, "--old", binary, "--new", binary, "--trees", "bin",
                        "--threads", "1,3"], capture_output=True, text=True)
    tally.check(p.returncode == 0 and ", 0 differ;" in p.stdout, "a binary against itself: every record matches",
                p.stdout[-2000:] + p.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        other = os.path.join(tmp, "uts-g2")
        with open(other, "w") as f:
            f.write('#!/bin/sh\nexec "%s" "$@" -g 2\n' % binary)
        os.chmod(other, os.stat(other).st_mode | stat.S_IEXEC)
        p = subprocess.run([sys.executable, script, "--old", binary, "--new", other, "--trees", "bin",
                            "--threads", "2"], capture_output=True, text=True)
        tally.check(p.returncode == 1 and "16 differ" in p.stdout and "granularity" in p.stdout,
                    "another tree's records are caught", p.stdout[-2000:] + p.stderr)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
