#!/usr/bin/env python3
"""Bad input: one clear line on stderr naming the problem, nothing on stdout,
exit status 2; and nothing crashes or hangs.

usage: test_bad_input.py UTS_BINARY
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uts_check import Tally, run_uts  # noqa: E402


def config(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    binary = sys.argv[1]
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        no_equals = config(tmp, "no_equals.conf", "# a tree\ntree = geo\ndepth 10\n")
        bad_value = config(tmp, "bad_value.conf", "tree = geo\n\ndepth = ten\n")
        bad_key = config(tmp, "bad_key.conf", "colour = blue\n")
        bad_type = config(tmp, "bad_type.conf", "tree = geo\nshape = spiral\n")
        chunk_steal = config(tmp, "chunk_steal.conf", "steal = one\nchunk = 8\n")
        bad_stealing = config(tmp, "bad_stealing.conf", "stealing = maybe\n")
        cases = [
            # (arguments, text the message must contain)
            (["--bogus"], "bogus"),
            (["-x"], "x"),
            (["-d"], "d"),
            (["-b", "abc"], "abc"),
            (["-d", "3.5"], "3.5"),
            (["stray"], "stray"),
            (["-t", "0", "-q", "1.5"], "-q"),
            (["-t", "0", "-q", "-0.1"], "-q"),
            (["-t", "0", "-m", "0"], "-m"),
            (["-t", "0", "-q", "0.3", "-m", "5"], "--max-nodes"),
            (["-t", "hybrid", "-q", "0.5", "-m", "4"], "--max-nodes"),
            (["-t", "7"], "tree type"),
            (["-t", "geo", "-a", "spiral"], "shape"),
            (["-d", "-1"], "depth"),
            (["-b", "0"], "b0"),
            (["-b", "-2"], "b0"),
            (["-b", "nan"], "b0"),
            (["-t", "0", "-b", "1e12", "-q", "0.1", "-m", "2"], "2^31"),
            (["-t", "geo", "-a", "expdec", "-d", "0", "-b", "4"], "--max-nodes"),
            (["-t", "geo", "-a", "fixed", "-d", "30", "-b", "4"], "--max-nodes"),
            (["-t", "balanced", "-d", "20", "-b", "10"], "--max-nodes"),
            (["-g", "0"], "granularity"),
            (["--threads", "0"], "threads"),
            (["--threads", "-3"], "threads"),
            (["--rng", "paper2003"], "root-id"),
            (["--rng", "paper2003", "--root-id", "xyz"], "xyz"),
            (["--rng", "paper2003", "--root-id", "1" * 41], "root-id"),
            (["--root-id", "abc"], "paper2003"),
            (["--rng", "lcg"], "lcg"),
            (["--preset", "NOPE"], "NOPE"),
            (["--preset", "../etc/passwd"], "preset"),
            (["--config", os.path.join(tmp, "missing.conf")], "missing.conf"),
            (["--config", tmp], "directory"),
            (["--config", no_equals], "no_equals.conf:3"),
            (["--config", bad_value], "bad_value.conf:3"),
            (["--config", bad_key], "bad_key.conf:1"),
            (["--config", bad_type], "shape"),
            (["--steal", "chunk:0"], "steal"),
            (["--steal", "most"], "steal"),
            (["--victim", "nearest"], "victim"),
            (["--init", "scatter"], "init"),
            (["--format", "xml"], "format"),
            (["--verify", "-t", "1"], "verify"),
            (["--max-nodes", "0"], "max-nodes"),
            (["--max-nodes", "-5"], "-5"),
            (["--output", os.path.join(tmp, "no", "such", "dir.json")], "output"),
            (["--progress", "--no-progress"], "progress"),
            # The reference's parallel flags (issue 7 item 6).
            (["-c", "0"], "-c/--chunk"),
            (["-c", "ten"], "-c/--chunk"),
            (["-c"], "c"),
            (["-c", "20", "--steal", "one"], "--steal one"),
            (["--steal", "half", "--chunk", "4"], "-c/--chunk 4"),
            (["-s", "2"], "-s/--stealing"),
            (["-s", "off"], "-s/--stealing"),
            (["-T", "0"], "-T"),
            (["-T", "x"], "-T"),
            (["-T", "2", "--threads", "3"], "--threads 3"),
            (["-i", "-1"], "-i/--barrier-interval"),
            (["-I", "2147483648"], "-I/--poll-interval"),
            (["-x", "1.5"], "-x/--debug"),
            (["-v", "2.5"], "-v/--verbose"),
            (["-v", "-1"], "-v/--verbose"),
            (["-v3x"], "-v/--verbose"),
            (["--config", chunk_steal], "chunk_steal.conf:2"),
            (["--config", bad_stealing], "bad_stealing.conf:1"),
            (["--sha1", "md5"], "--sha1"),
            # Protocols: unknown names, and a steal amount or poll interval
            # the protocol cannot honour (the message names both).
            (["--protocol", "mpi"], "--protocol"),
            (["--protocol", "chaselev", "--steal", "half"], "--protocol chaselev and --steal half"),
            (["--protocol", "chaselev", "-c", "5"], "--protocol chaselev and -c 5"),
            (["--protocol", "locked", "--steal", "one"], "--protocol locked and --steal one"),
            (["--protocol", "request", "-I", "0"], "-I/--poll-interval"),
            (["--protocol", "request", "--poll-interval", "-3"], "-I/--poll-interval"),
        ]
        for args, needle in cases:
            proc = run_uts(binary, args, timeout=30)
            lines = proc.stderr.strip().splitlines()
            ok = (proc.returncode == 2 and len(lines) == 1 and needle in lines[0]
                  and proc.stdout == "")
            tally.check(ok, "bad input %s" % args,
                        "rc=%d stdout=%r stderr=%r" % (proc.returncode, proc.stdout[:200], proc.stderr[:300]))

        # More threads than the OpenMP runtime will grant.
        env = dict(os.environ, OMP_THREAD_LIMIT="2")
        proc = subprocess.run([binary, "--preset", "T1", "--threads", "4"], capture_output=True, text=True,
                              env=env, timeout=60)
        lines = proc.stderr.strip().splitlines()
        tally.check(proc.returncode == 2 and len(lines) == 1 and "OMP_THREAD_LIMIT" in lines[0]
                    and proc.stdout == "", "threads above OMP_THREAD_LIMIT", proc.stderr)

        # A CPU without SHA extensions (simulated): asking for shani is bad
        # input; auto falls back to Crypto++ and says so in the JSON.
        env = dict(os.environ, UTS_SHA1_NO_SHANI="1")
        proc = subprocess.run([binary, "--preset", "T1", "--sha1", "shani"], capture_output=True, text=True,
                              env=env, timeout=60)
        lines = proc.stderr.strip().splitlines()
        tally.check(proc.returncode == 2 and len(lines) == 1 and "--sha1 shani" in lines[0]
                    and proc.stdout == "", "--sha1 shani on a CPU without SHA-NI", proc.stderr)
        proc = subprocess.run([binary, "--preset", "T1", "--verify", "--format", "json"], capture_output=True,
                              text=True, env=env, timeout=120)
        tally.check(proc.returncode == 0 and '"sha1":"cryptopp"' in proc.stdout,
                    "--sha1 auto on a CPU without SHA-NI runs Crypto++, exact", proc.stderr)

        # The escape hatch: a supercritical tree is allowed with --max-nodes,
        # and the partial result says so.
        proc = run_uts(binary, ["-t", "0", "-q", "0.3", "-m", "5", "--max-nodes", "20000"], timeout=60)
        tally.check(proc.returncode == 0 and "PARTIAL" in proc.stdout and "max-nodes" in proc.stdout,
                    "supercritical tree with --max-nodes stops and says so", proc.stdout + proc.stderr)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
