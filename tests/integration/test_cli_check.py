#!/usr/bin/env python3
"""scripts/cli-check against the uts binary: a fixed seed's generated
command lines must all keep the command-line contract (docs/contract-check.md).
First the checker's own teeth: wrapped binaries that break the contract in
one way each (an abort, a wrong checksum, a second stderr line, a control
character echoed) must each be caught more often than the binary itself
is on the same command lines (so the teeth are shown whatever the binary's
own state).

There is no list of known failures: a violation the checker finds fails
this test, with the command that reproduces it in the log.

usage: test_cli_check.py SOURCE_ROOT UTS_BINARY [--count N] [--seed S]
"""
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile

from uts_check import Tally

# Each mutant wraps the real binary and breaks one rule of the contract (a
# shell script: it runs a few hundred times). The abort mutant execs the
# binary otherwise, so a signal the checker sends reaches uts itself.
MUTANT = r'''#!/bin/bash
real=%(real)s
kind=%(kind)s
if [ "$kind" = abort ]; then
  for a in "$@"; do [ "$a" = csv ] && kill -ABRT $$; done
  exec "$real" "$@"
fi
out=$(mktemp) err=$(mktemp)
"$real" "$@" > "$out" 2> "$err"
rc=$?
case $kind in
  checksum) sed -i 's/"checksum":"0x/"checksum":"0x1/' "$out" ;;
  two-lines) [ $rc = 2 ] && echo >&2 ;;
  control) [ $rc = 2 ] && sed -i '1s/^uts: /uts: \x1b[1m/' "$err" ;;
esac
cat "$out"
cat "$err" >&2
rm -f "$out" "$err"
exit $rc
'''


def cli_check(root, uts, *extra, timeout=1800):
    cmd = [sys.executable, os.path.join(root, "scripts", "cli-check"), "--uts", uts] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def violations(stdout):
    """{violation class: count} from cli-check's summary."""
    counts = {}
    for line in stdout.split(" violations", 1)[-1].splitlines()[1:]:
        m = re.match(r"^  (.*\S)\s+(\d+)$", line)
        if m:
            counts[m.group(1)] = int(m.group(2))
    return counts


def main():
    root, uts = sys.argv[1], os.path.abspath(sys.argv[2])
    count, seed = "200", "20261128"
    rest = sys.argv[3:]
    if "--count" in rest:
        count = rest[rest.index("--count") + 1]
    if "--seed" in rest:
        seed = rest[rest.index("--seed") + 1]
    tally = Tally()
    teeth = ["--count", "25", "--seed", "1", "--keep-going"]
    p = cli_check(root, uts, *teeth)
    own = violations(p.stdout)
    tally.check("25 command lines in" in p.stdout, "the binary itself, on the mutants' command lines: %s" % (
        own or "no violation"), p.stderr[-1000:])
    with tempfile.TemporaryDirectory() as tmp:
        for kind, what in [("abort", "killed by a signal"), ("checksum", "wrong result"),
                           ("two-lines", "error is not one stderr line"),
                           ("control", "control character on stderr")]:
            path = os.path.join(tmp, "uts-" + kind)
            with open(path, "w") as f:
                f.write(MUTANT % {"real": shlex.quote(uts), "kind": kind})
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
            p = cli_check(root, path, *teeth)
            caught = violations(p.stdout).get(what, 0)
            tally.check(p.returncode == 1 and caught > own.get(what, 0) and "repro: " in p.stdout,
                        "a mutant (%s) is caught: %s %d times, the binary itself %d" % (
                            kind, what, caught, own.get(what, 0)), p.stdout[-1500:] + p.stderr[-500:])
    p = cli_check(root, uts, "--count", count, "--seed", seed, "--keep-going")
    print(p.stdout)
    checked = "%s command lines in" % count in p.stdout
    tally.check(checked and p.returncode == 0,
                "%s generated command lines (seed %s) keep the contract" % (count, seed), p.stderr[-2000:])
    sys.exit(tally.finish())


if __name__ == "__main__":
    main()
