#!/usr/bin/env python3
"""Bad input: one clear line on stderr naming the problem, nothing on stdout,
exit status 2; and nothing crashes or hangs.

usage: test_bad_input.py UTS_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

from uts_check import Tally, run_uts


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
        with open(os.path.join(tmp, "nul.conf"), "wb") as f:
            f.write(b"tree = geo\ndepth = 5\x00\n")
        nul = os.path.join(tmp, "nul.conf")
        long_line = config(tmp, "long.conf", "description = " + "x" * 5000 + "\n")
        huge = config(tmp, "huge.conf", ("# " + "y" * 1000 + "\n") * 1100)
        json_lines = config(tmp, "runs.jsonl", '{"uts_version":"1.0.0"}\n')
        other_csv = config(tmp, "other.csv", "name,size\nT1,4130071\n")
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
            # The UTS reference's parallel flags (accepted for compatibility).
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
            # One level per -v: cxxopts would split "1,2" into two and sum them.
            (["--verbose", "1,2"], "-v/--verbose: '1,2'"),
            (["-v1,2"], "-v/--verbose: '1,2'"),
            # Config files that are not text.
            (["--config", nul], "nul.conf:2: a NUL byte"),
            (["--config", long_line], "long.conf:1: a line longer than 4096"),
            (["--config", huge], "larger than 1 MiB"),
            (["--config", "/dev/zero"], "larger than 1 MiB"),
            # One rule for options: an option that does not apply to the run
            # is refused, naming both options.
            (["--sequential", "--threads", "4"], "--threads does not apply to --sequential"),
            (["--sequential", "-T", "4"], "-T does not apply to --sequential"),
            (["--sequential", "--protocol", "chaselev"], "--protocol does not apply to --sequential"),
            (["--sequential", "--steal", "one"], "--steal does not apply to --sequential"),
            (["--sequential", "--victim", "hier"], "--victim does not apply to --sequential"),
            (["--sequential", "--domains", "9"], "--domains does not apply to --sequential"),
            (["--sequential", "-s", "0"], "-s/--stealing does not apply to --sequential"),
            (["--sequential", "--init", "balanced"], "--init does not apply to --sequential"),
            (["--sequential", "--remote-delay", "5"], "--remote-delay does not apply to --sequential"),
            (["--sequential", "--rank-chunk", "5"], "--rank-chunk does not apply to --sequential"),
            (["-s", "0", "--victim", "tree"], "--victim does not apply to -s 0"),
            (["-s", "0", "--steal", "one"], "--steal does not apply to -s 0"),
            (["-s", "0", "--remote-delay", "10"], "--remote-delay does not apply to -s 0"),
            (["--workload", "pool", "--preset", "T1"], "--preset does not apply to --workload pool"),
            (["--workload", "pool", "--max-nodes", "5"], "--max-nodes does not apply to --workload pool"),
            (["--workload", "pool", "--init", "balanced"], "--init does not apply to --workload pool"),
            (["--workload", "pool", "--domains", "2"], "--domains does not apply to --workload pool"),
            (["--workload", "pool", "-d", "5"], "-d/--depth does not apply to --workload pool"),
            (["--workload", "pool", "--sha1", "cryptopp"], "--sha1 does not apply to --workload pool"),
            (["--workload", "pool", "--expect-size", "5"], "--expect-size does not apply to --workload pool"),
            (["--rank-poll", "5"], "--rank-poll applies only to a run under mpirun"),
            (["--rank-chunk", "5"], "--rank-chunk applies only to a run under mpirun"),
            (["--rank-split", "levels"], "--rank-split applies only to a run under mpirun"),
            (["--rank-poll-max", "4096"], "--rank-poll-max applies only to a run under mpirun"),
            (["--sequential", "--rank-split", "levels"], "--rank-split does not apply to --sequential"),
            (["--sequential", "--rank-poll-max", "5000"], "--rank-poll-max does not apply to --sequential"),
            (["-s", "0", "--rank-split", "shallowest"], "--rank-split does not apply to -s 0"),
            (["--model-rate", "5"], "--model-rate models computation in simulated time: it applies only to uts-smpi"),
            (["--model-rate", "0"], "--model-rate"),
            (["--protocol", "locked", "--victim", "hier", "--steal-local", "chunk:5"],
             "--steal-local chunk:5 does not apply to --protocol locked"),
            # Appending to a file of another format.
            (["--preset", "T1", "--format", "csv", "--output", json_lines], "CSV header"),
            (["--preset", "T1", "--format", "csv", "--output", other_csv], "CSV header"),
            (["--preset", "T1", "--output", other_csv], "not a JSON Lines file"),
            (["--preset", "T1", "--format", "json", "--output", other_csv], "not a JSON Lines file"),
            (["--workload", "pool", "--format", "csv", "--output", other_csv], "CSV header"),
            (["--workload", "pool", "--trace", os.path.join(tmp, "no", "dir.csv")], "--trace"),
        ]
        for args, needle in cases:
            proc = run_uts(binary, args, timeout=30)
            lines = proc.stderr.strip().splitlines()
            ok = (proc.returncode == 2 and len(lines) == 1 and needle in lines[0]
                  and proc.stdout == "")
            tally.check(ok, "bad input %s" % args,
                        "rc=%d stdout=%r stderr=%r" % (proc.returncode, proc.stdout[:200], proc.stderr[:300]))

        # A value with control characters is echoed escaped: one line, and no
        # second line that starts "uts:" (nor a raw CR, ESC or NUL byte).
        cr_only = config(tmp, "cr_only.conf", "tree = geo\rdepth = ten\rseed = 3\r")
        crlf = config(tmp, "crlf.conf", "tree = geo\r\n\r\nvictim = far\r\n")
        escape = config(tmp, "escape.conf", "tree = geo\nvictim = hier\x1b[2J\n")
        for args, needle in (
                (["--victim", "hier\nuts: fake"], "--victim: 'hier\\nuts: fake' is not"),
                (["--format", "json\r"], "--format: 'json\\r' is not"),
                (["--init", "\x1b[31mroot"], "--init: '\\x1b[31mroot' is not"),
                (["--tree", "geo\x7f"], "'geo\\x7f'"),
                (["--config", cr_only], "cr_only.conf:2: -d/--depth: 'ten'"),
                (["--config", crlf], "crlf.conf:3: --victim: 'far'"),
                (["--config", escape], "escape.conf:2: a control character \\x1b"),
                (["--victim", "v" * 100000], "bytes left out)...vvvv")):
            proc = run_uts(binary, args, timeout=30)
            lines = proc.stderr.split("\n")
            ok = (proc.returncode == 2 and proc.stdout == "" and len(lines) == 2 and lines[1] == ""
                  and lines[0].startswith("uts: ") and needle in lines[0] and len(lines[0]) < 1100
                  and not any(ord(c) < 0x20 or ord(c) == 0x7f for c in lines[0]))
            tally.check(ok, "control characters escaped: %r" % [a[:40] for a in args],
                        "rc=%d stderr=%r" % (proc.returncode, proc.stderr[:300]))

        # Every value a config or preset file sets that is refused names the
        # file:line, also when it is found wrong only beside the others.
        presets = os.path.join(tmp, "presets")
        os.mkdir(presets)
        config(presets, "Broken.conf", "description = a broken preset\ntree = geo\nshape = fixed\ndepth = -4\n")
        for text, extra, needle in (
                ("tree = geo\ndepth = -4\n", [], ":2: -d/--depth must not be negative"),
                ("seed = 4294967296\n", [], ":1: -r/--seed must fit in a signed 32-bit integer"),
                ("counters = cycles,bogus\n", [], ":1: --counters: 'bogus' is not one of"),
                ("workload = pool\nops = 0\n", [], ":2: --ops: 0 is out of range"),
                ("workload = pool\nmix = 5\nproducers = 1\n", [], ":3: --mix and --producers do not go together"),
                ("workload = pool\nproducers = 3\n", ["--threads", "2"], ":2: --producers 3: must be from 1"),
                ("victim = random\nsteal-local = one\n", [], ":2: --steal-local applies only to --victim hier"),
                ("rng = paper2003\n", [], ":1: --rng paper2003 needs --root-id HEX"),
                ("tree = bin\nq = 0.3\nm = 5\n", [], ":3: -q * -m >= 1"),
                ("verify = false\n", [], ":1: 'verify' cannot be set in a file (give --verify on the command line)")):
            path = config(tmp, "where.conf", text)
            proc = run_uts(binary, ["--config", path] + extra, timeout=30)
            lines = proc.stderr.strip().splitlines()
            ok = (proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("uts: " + path + needle)
                  and proc.stdout == "")
            tally.check(ok, "a config file's refused value names file:line: %r" % text,
                        "rc=%d stderr=%r" % (proc.returncode, proc.stderr[:300]))
        env = dict(os.environ, UTS_PRESET_DIR=presets)
        proc = subprocess.run([binary, "--preset", "broken"], capture_output=True, text=True, env=env, timeout=30)
        want = "uts: " + os.path.join(presets, "Broken.conf") + ":4: -d/--depth must not be negative\n"
        tally.check(proc.returncode == 2 and proc.stderr == want and proc.stdout == "",
                    "a preset file's refused value names file:line", proc.stderr)

        # A flag takes =true/=false (1/0, any case) as written, read as its
        # value everywhere; any other value is refused naming the flag.
        small = ["-t", "1", "-a", "3", "-d", "6", "-b", "4", "-r", "19"]
        for args, check, what in (
                (["--sequential=false", "--format", "json"],
                 lambda p, r: r.get("engine", {}).get("kind") == "parallel", "--sequential=false runs the parallel engine"),
                (["--sequential=TRUE", "--format", "json"],
                 lambda p, r: r.get("engine", {}).get("kind") == "sequential", "--sequential=TRUE runs the sequential engine"),
                (["--verify=false", "--expect-size", "5", "--format", "json"],
                 lambda p, r: "engine" in r and r.get("verified") is None, "--verify=false does not verify"),
                (["--smt=false", "--format", "json"],
                 lambda p, r: r.get("placement", {}).get("smt") is False, "--smt=false records smt: false"),
                (["--progress=0", "--no-progress"], lambda p, r: p.stderr == "", "--progress=0 --no-progress: off"),
                (["--help=false", "--format", "json"], lambda p, r: "engine" in r, "--help=false runs"),
                (["--version=0", "--format", "json"], lambda p, r: "engine" in r, "--version=0 runs")):
            proc = run_uts(binary, small + args, timeout=60)
            try:
                rec = json.loads(proc.stdout) if proc.returncode == 0 and "--format" in args else {}
            except ValueError:
                rec = {}  # not a record (the help text, say)
            tally.check(proc.returncode == 0 and check(proc, rec), what,
                        "rc=%d stdout=%r stderr=%r" % (proc.returncode, proc.stdout[:300], proc.stderr[:300]))
        for args, needle in ((["--sequential=yes"], "--sequential: 'yes' is not true, false, 1 or 0"),
                             (["--verify=t"], "--verify: 't' is not true, false, 1 or 0"),
                             (["--progress=1", "--no-progress"], "--progress and --no-progress contradict"),
                             (["--help=maybe"], "-h/--help: 'maybe'")):
            proc = run_uts(binary, small + args, timeout=30)
            lines = proc.stderr.strip().splitlines()
            tally.check(proc.returncode == 2 and len(lines) == 1 and needle in lines[0] and proc.stdout == "",
                        "flag value refused: %s" % args, "rc=%d stderr=%r" % (proc.returncode, proc.stderr[:300]))

        # Thread counts from the environment: the same checks as --threads
        # (the OpenMP runtime may print its own warning too: one uts line).
        for value in ("abc", "-2", "0", "5000", "1.5"):
            env = dict(os.environ, OMP_NUM_THREADS=value)
            proc = subprocess.run([binary, "--preset", "T1"], capture_output=True, text=True, env=env, timeout=60)
            ours = [l for l in proc.stderr.splitlines() if l.startswith("uts:")]
            tally.check(proc.returncode == 2 and len(ours) == 1 and "OMP_NUM_THREADS" in ours[0]
                        and proc.stdout == "", "OMP_NUM_THREADS=%s refused like --threads" % value, proc.stderr)
        for value in ("abc", "-1", "0", "4,2"):
            env = dict(os.environ, OMP_THREAD_LIMIT=value)
            proc = subprocess.run([binary, "--preset", "T1"], capture_output=True, text=True, env=env, timeout=60)
            ours = [l for l in proc.stderr.splitlines() if l.startswith("uts:")]
            tally.check(proc.returncode == 2 and len(ours) == 1 and "OMP_THREAD_LIMIT" in ours[0]
                        and proc.stdout == "", "OMP_THREAD_LIMIT=%s refused" % value, proc.stderr)
        # Refused even beside --threads (libomp misreads such values and can
        # crash at its first call), but --help and --version still answer.
        env = dict(os.environ, OMP_NUM_THREADS="-2")
        proc = subprocess.run([binary, "--preset", "T1", "--threads", "2"], capture_output=True, text=True, env=env,
                              timeout=60)
        tally.check(proc.returncode == 2 and proc.stdout == "", "OMP_NUM_THREADS=-2 refused beside --threads 2",
                    proc.stderr)
        for flag in ("--help", "--version"):
            proc = subprocess.run([binary, flag], capture_output=True, text=True, env=env, timeout=60)
            tally.check(proc.returncode == 0 and proc.stdout != "", "OMP_NUM_THREADS=-2: %s still answers" % flag,
                        proc.stderr)
        env = dict(os.environ, OMP_NUM_THREADS="3")
        proc = subprocess.run([binary, "--preset", "T1", "--format", "json"], capture_output=True, text=True,
                              env=env, timeout=60)
        tally.check(proc.returncode == 0 and '"threads":3' in proc.stdout and '"threads_from":"OMP_NUM_THREADS"'
                    in proc.stdout, "OMP_NUM_THREADS=3: three threads, and the record says where from",
                    proc.stdout[:400] + proc.stderr)
        # A runtime thread limit clamps the default (and the record says so)
        # instead of failing on a --threads the user never typed.
        env = dict(os.environ, OMP_THREAD_LIMIT="1")
        proc = subprocess.run([binary, "--preset", "T1", "--format", "json"], capture_output=True, text=True,
                              env=env, timeout=60)
        tally.check(proc.returncode == 0 and '"threads":1' in proc.stdout and "clamped to OMP_THREAD_LIMIT 1"
                    in proc.stdout, "OMP_THREAD_LIMIT=1 clamps the default thread count, recorded",
                    proc.stdout[:400] + proc.stderr)
        # Options a config file sets that do not apply: ignored, and recorded.
        shared = config(tmp, "shared.conf", "threads = 4\nvictim = tree\n")
        proc = run_uts(binary, ["--config", shared, "--preset", "T1", "--sequential", "--format", "json"])
        tally.check(proc.returncode == 0 and '"ignored_options":"--threads 4 (--sequential); --victim tree '
                    '(--sequential)"' in proc.stdout, "a file's options that do not apply: ignored and recorded",
                    proc.stdout[:600] + proc.stderr)
        proc = run_uts(binary, ["--config", shared, "--preset", "T1", "--sequential"])
        tally.check(proc.returncode == 0 and "Ignored (set by a file, does not apply): --threads 4" in proc.stdout,
                    "... and said in the text output", proc.stdout[:600])
        # A UTF-8 byte order mark does not end up inside the first key.
        bom = config(tmp, "bom.conf", "\ufeffthreads = 2\n")
        proc = run_uts(binary, ["--config", bom, "--preset", "T1", "--format", "json"])
        tally.check(proc.returncode == 0 and '"threads":2' in proc.stdout, "a config file's BOM is skipped",
                    proc.stderr)

        # More threads than the OpenMP runtime will grant.
        env = dict(os.environ, OMP_THREAD_LIMIT="2")
        proc = subprocess.run([binary, "--preset", "T1", "--threads", "4"], capture_output=True, text=True,
                              env=env, timeout=60)
        lines = proc.stderr.strip().splitlines()
        tally.check(proc.returncode == 2 and len(lines) == 1 and "OMP_THREAD_LIMIT" in lines[0]
                    and proc.stdout == "", "threads above OMP_THREAD_LIMIT", proc.stderr)

        # A CPU without SHA extensions or AVX-512 (simulated): asking for
        # either is bad input; auto falls back and says so in the JSON.
        for off, path, fallback in (("UTS_SHA1_NO_SHANI", "shani", None),
                                    ("UTS_SHA1_NO_AVX512", "avx512", None),
                                    ("both", None, "cryptopp")):
            env = dict(os.environ)
            for var in (("UTS_SHA1_NO_SHANI", "UTS_SHA1_NO_AVX512") if off == "both" else (off,)):
                env[var] = "1"
            for asked in ((path,) if path else ("shani", "avx512")):
                proc = subprocess.run([binary, "--preset", "T1", "--sha1", asked], capture_output=True, text=True,
                                      env=env, timeout=60)
                lines = proc.stderr.strip().splitlines()
                tally.check(proc.returncode == 2 and len(lines) == 1 and ("--sha1 " + asked) in lines[0]
                            and "this CPU has no" in lines[0] and proc.stdout == "",
                            "--sha1 %s on a CPU without it (%s)" % (asked, off), proc.stderr)
            proc = subprocess.run([binary, "--preset", "T1", "--verify", "--format", "json"], capture_output=True,
                                  text=True, env=env, timeout=120)
            rec = json.loads(proc.stdout) if proc.returncode == 0 else {}
            used = rec.get("engine", {}).get("sha1")
            ok = proc.returncode == 0 and rec.get("verified") is True and used != path
            if fallback:
                ok = ok and used == fallback
            tally.check(ok, "--sha1 auto with %s falls back (ran %s), exact" % (off, used), proc.stderr)

        # The escape hatch: a supercritical tree is allowed with --max-nodes,
        # and the partial result says so.
        proc = run_uts(binary, ["-t", "0", "-q", "0.3", "-m", "5", "--max-nodes", "20000"], timeout=60)
        tally.check(proc.returncode == 0 and "PARTIAL" in proc.stdout and "max-nodes" in proc.stdout,
                    "supercritical tree with --max-nodes stops and says so", proc.stdout + proc.stderr)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
