#!/usr/bin/env python3
"""The README's example commands still work, and the README stays a landing
page (at most MAX_LINES lines).

The examples are the lines of the first ```sh block after the README's
"## Examples" heading. Each must be there (a verified run, a pinned thread
sweep, a study, a trace, an MPI run), and each runs as written except for
these adaptation rules, which are all that a test needs to change:

  1. `build/uts` is the binary under test (the Meson build's uts), and
     `scripts/` the source tree's scripts folder.
  2. Each command runs with bash in a fresh temporary folder, so the files it
     writes (sweep.jsonl, t.json, results/...) land there.
  3. `scripts/study` gets `--quick` (its smoke-test section) and `--uts` (the
     binary under test).
  4. `mpirun` gets its settings from the environment: allowed as root, more
     ranks than cores allowed, shared-memory transport only.

Every command must exit 0, and print `Verify: OK` once per run of uts it
verifies. Beyond that: the sweep's records (one per thread count, bound
compact) give the preset's size, depth and leaves and one checksum; the study
wrote its summary and runs; the trace is Chrome trace JSON with events.

--part local runs every example but the MPI one (suite integration); --part
mpi runs the MPI one, and skips it, saying so (exit 77, which Meson counts as
skipped), without mpirun or with a uts built without MPI (suite mpi).

usage: test_readme.py README UTS_BINARY REFERENCE_CSV --part local|mpi
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally  # beside this file: the house pass/fail tally

MAX_LINES = 220
# What each example must contain, in the README's order.
KINDS = [
    ("a verified run", re.compile(r"^build/uts .*--verify")),
    ("a pinned thread sweep", re.compile(r"^for .*build/uts .*--threads .*--bind ")),
    ("a study", re.compile(r"^scripts/study ")),
    ("a trace", re.compile(r"^build/uts .*--trace ")),
    ("an MPI run", re.compile(r"^mpirun .*build/uts ")),
]
# An option's value in a command line: up to a blank or the `;` that ends a
# command inside a loop.
ARG = r"%s ([^\s;]+)"
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl": "self,vader"}


def examples(readme_text):
    """The command lines of the first ```sh block under '## Examples'."""
    m = re.search(r"^## Examples\s*$(.*?)^## ", readme_text + "\n## ", re.M | re.S)
    if not m:
        return None
    block = re.search(r"^```sh\n(.*?)^```", m.group(1), re.M | re.S)
    if not block:
        return None
    return [line.strip() for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def adapt(command, binary, scripts):
    """The command as the test runs it (rules 1 and 3 of the docstring)."""
    if command.startswith("scripts/study "):
        command += " --quick --uts " + binary
    command = re.sub(r"(?<![\w/.-])build/uts\b", binary, command)
    command = re.sub(r"(?<![\w/.-])scripts/", scripts + "/", command)
    return command


def uts_runs(command):
    """How many times uts runs: once, or once per value of a `for` loop."""
    loop = re.match(r"^for \w+ in ([^;]*);", command)
    return len(loop.group(1).split()) if loop else 1


def presets(reference_csv):
    """name -> (size, depth, leaves) of the trees the reference gives all three for."""
    with open(reference_csv, newline="") as f:
        return {row["name"].upper(): (int(row["size"]), int(row["depth"]), int(row["leaves"]))
                for row in csv.DictReader(f) if row["size"] and row["depth"] and row["leaves"]}


def run(command, cwd, env=None, timeout=900):
    full_env = dict(os.environ, **(env or {}))
    try:
        return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                              timeout=timeout, env=full_env)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(command, -1, e.stdout or "", "timed out after %ss" % timeout)


def check_common(tally, kind, command, adapted, proc):
    tally.check(proc.returncode == 0, "%s exits 0: %s" % (kind, command),
                "exit %d; ran: %s\n%s" % (proc.returncode, adapted, (proc.stderr or "")[-2000:]))
    if "--verify" in command:
        n = uts_runs(command)
        got = proc.stdout.count("Verify: OK")
        tally.check(got == n, "%s prints Verify: OK %d time(s)" % (kind, n), "got %d" % got)


def check_sweep(tally, command, tmp, expected):
    out = re.search(ARG % "--output", command)
    preset = re.search(ARG % "--preset", command)
    if not (out and preset):
        tally.check(False, "the sweep writes records with --output and names a --preset", command)
        return
    path = os.path.join(tmp, out.group(1))
    records = []
    if os.path.isfile(path):
        with open(path) as f:
            records = [json.loads(line) for line in f if line.strip()]
    n = uts_runs(command)
    tally.check(len(records) == n, "the sweep appended %d records to %s" % (n, out.group(1)),
                "found %d" % len(records))
    want = expected[preset.group(1).upper()]
    got = {(r["results"]["size"], r["results"]["depth"], r["results"]["leaves"]) for r in records}
    checksums = {r["results"]["checksum"] for r in records}
    tally.check(got == {want} and len(checksums) == 1,
                "every record of the sweep exact (%s: size, depth, leaves %s), one checksum" % (preset.group(1), want),
                "results %s, checksums %s" % (sorted(got), sorted(checksums)))
    tally.check(records and all(r.get("verified") is True for r in records), "every record of the sweep verified")
    bind = re.search(ARG % "--bind", command).group(1)
    tally.check(records and all(r["placement"]["bind"] == bind for r in records),
                "every record of the sweep bound %s" % bind,
                str([r["placement"]["bind"] for r in records]))


def check_study(tally, command, tmp):
    out = re.search(ARG % "--out", command)
    folder = None
    if out:
        # The folder name may hold $(...) substitutions: find what the study made.
        parent = os.path.join(tmp, os.path.dirname(out.group(1)))
        made = sorted(os.listdir(parent)) if os.path.isdir(parent) else []
        folder = os.path.join(parent, made[0]) if len(made) == 1 else None
    files = sorted(os.listdir(folder)) if folder else []
    tally.check(all(f in files for f in ("machine.json", "runs.csv", "summary.csv")),
                "the study wrote machine.json, runs.csv and summary.csv", "files: %s" % files)


def check_trace(tally, command, tmp):
    path = os.path.join(tmp, re.search(ARG % "--trace", command).group(1))
    events = []
    try:
        with open(path) as f:
            events = json.load(f).get("traceEvents", [])
    except (OSError, ValueError) as e:
        tally.check(False, "the trace is JSON", str(e))
        return
    tally.check(len(events) > 0, "the trace is Chrome trace JSON with events (%d)" % len(events))


def main():
    args = sys.argv[1:]
    if len(args) != 5 or args[3] != "--part" or args[4] not in ("local", "mpi"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    readme, binary, reference_csv, part = args[0], os.path.abspath(args[1]), args[2], args[4]
    scripts = os.path.join(os.path.dirname(os.path.abspath(readme)), "scripts")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    tally = Tally()
    lines = text.count("\n")
    tally.check(lines <= MAX_LINES, "README.md has %d lines, at most %d" % (lines, MAX_LINES))

    commands = examples(text)
    tally.check(commands is not None and len(commands) == len(KINDS),
                "the README's Examples section has one sh block of %d commands" % len(KINDS),
                "found: %s" % commands)
    if not commands or len(commands) != len(KINDS):
        return tally.finish()
    for (kind, pattern), command in zip(KINDS, commands):
        tally.check(bool(pattern.search(command)), "example %r is %s" % (command, kind))
    expected = presets(reference_csv)

    skipped = False
    for (kind, _), command in zip(KINDS, commands):
        is_mpi = command.startswith("mpirun ")
        if is_mpi != (part == "mpi"):
            if is_mpi:
                print("skip  %s: runs in the mpi suite (--part mpi)" % kind)
            continue
        env = None
        if is_mpi:
            if not shutil.which("mpirun"):
                print("SKIP  %s: no mpirun on PATH" % kind)
                skipped = True
                continue
            version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60).stdout
            if "without MPI" in version:
                print("SKIP  %s: %s is built without MPI" % (kind, binary))
                skipped = True
                continue
            env = MPI_ENV
        adapted = adapt(command, binary, scripts)
        with tempfile.TemporaryDirectory(prefix="uts-readme-") as tmp:
            print("run   %s" % adapted, flush=True)
            proc = run(adapted, tmp, env)
            check_common(tally, kind, command, adapted, proc)
            if proc.returncode != 0:
                continue
            if kind == "a pinned thread sweep":
                check_sweep(tally, command, tmp, expected)
            elif kind == "a study":
                check_study(tally, command, tmp)
            elif kind == "a trace":
                check_trace(tally, command, tmp)
    status = tally.finish()
    return 77 if status == 0 and skipped else status


if __name__ == "__main__":
    sys.exit(main())
