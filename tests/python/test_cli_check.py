"""utstools.commands.cli_check: the help parsed into options, command lines
generated from them (reproducibly), shell commands that replay a case, and
each outcome classified against the command-line contract."""
import random
import subprocess

import pytest

from utstools.commands import cli_check as cc

HELP = """Unbalanced Tree Search on per-thread deques (OpenMP)
Usage:
  uts [options]   e.g.  uts -t 1 -a 3 -d 10 -b 4 -r 19   or   uts --preset T1L

 Engine options:
      --threads arg       number of threads (default: OMP_NUM_THREADS or 
                          all cores)
  -T N                    number of threads, as --threads N (the 
                          reference's pthreads flag; both given must agree)
      --sequential        run the sequential depth-first baseline
      --protocol arg      steal protocol: split (Lace-style split deque) | 
                          locked (2003 UPC / uts_shm chunk stack) | request 
                          (UPC Queues request/response) | chaselev 
                          (Chase-Lev deque) (default: split)
      --steal arg         nodes per steal: half | one | chunk:K (default: 
                          the protocol's own: split half, locked chunk:20, 
                          request half, chaselev one)
  -c, --chunk K           nodes per steal, as --steal chunk:K (the 
                          reference's chunk size; K from 1 to 999999999; 
                          both given must agree)
  -s, --stealing 0|1      work stealing: 1 on (default), 0 off
      --victim arg        victim selection: random | linear | tree | hier 
                          (default: the protocol's own)
      --domains arg       locality domains: numa | l3 | package (from hwloc 
                          and the threads' binding) | N (N equal virtual 
                          domains of consecutive threads); default numa
      --remote-delay NS   spin NS nanoseconds (emulates remote cost; 0 to 
                          10000000000, default 0)
      --sha1 arg          child-id hashing: auto (the fastest this CPU has, 
                          calibrated at start-up) | avx512 | shani | 
                          cryptopp (default: auto)
      --smt               --bind compact or scatter: use every PU of a core

 Output options:
      --format arg         text | json | csv (default: text)
      --verify             compare with the expected size/depth/leaves; 
                           exit 1 on mismatch
      --progress           show a live progress line on stderr
      --no-progress        never show the progress line
  -v, --verbose [=N(=1)]   verbosity level N from 0 to 2147483647 (-v 
                           alone: 1)
  -h, --help               print this help and exit

 Tree options:
  -t, --tree arg              tree type: 0|bin|binomial, 1|geo|geometric, 
                              2|hybrid, 3|balanced (default: geo)
  -a, --shape arg             geometric shape: 0|linear, 1|expdec, 
                              2|cyclic, 3|fixed (default: linear)
  -b, --b0 arg                root branching factor (default: 4.0)
  -d, --depth arg             depth parameter D (default: 6)
  -q, --nonleaf-prob arg      binomial: probability (default: 0.234375)
  -m, --nonleaf-children arg  binomial: number of children (default: 4)
  -f, --shift arg             hybrid: shift (default: 0.5)
  -r, --seed arg              root seed (uts RNG convention) (default: 0)
      --preset arg            load a tree preset by name (see 
                              --list-presets)
      --config arg            load options from a key = value file
"""

PRESETS = """name          expected size   depth        leaves  description
T1                  4130071      10       3305118  geometric fixed, 4.1M nodes, depth 10
T3XXL            2793220501       -             -  binomial near-critical, 2.8G nodes
T5                  4147582      20       2181318  geometric linear, depth parameter 20
"""


@pytest.fixture(scope="module")
def options():
    return cc.parse_help(HELP)


def test_help_names_letters_arguments_and_groups(options):
    assert list(options)[:3] == ["threads", "T", "sequential"]
    t = options["tree"]
    assert (t.short, t.arg, t.group, t.default) == ("t", "arg", "Tree", "geo")
    assert options["T"].arg == "N" and options["T"].short is None and options["T"].spelling == "-T"
    assert options["sequential"].flag and not options["protocol"].flag
    assert "both given must agree" in options["T"].help  # continuation lines joined
    v = options["verbose"]
    assert (v.short, v.implicit, v.low, v.high) == ("v", "1", 0, 2147483647)


def test_help_enumerations_ranges_and_defaults(options):
    assert options["protocol"].values == ["split", "locked", "request", "chaselev"]
    assert options["protocol"].default == "split"
    assert options["steal"].values == ["half", "one", "chunk:K"]
    assert options["victim"].values == ["random", "linear", "tree", "hier"]
    assert options["domains"].values == ["numa", "l3", "package", "N"]
    assert options["sha1"].values == ["auto", "avx512", "shani", "cryptopp"]
    assert options["tree"].values == ["0", "bin", "binomial", "1", "geo", "geometric", "2", "hybrid", "3",
                                      "balanced"]
    assert options["stealing"].values == ["0", "1"]
    assert (options["chunk"].low, options["chunk"].high) == (1, 999999999)
    assert (options["remote-delay"].low, options["remote-delay"].high) == (0, 10000000000)
    assert options["chunk"].numeric and options["depth"].numeric and not options["b0"].numeric
    assert cc.self_float(options["b0"]) and not cc.self_float(options["depth"])
    assert not options["format"].numeric and not options["threads"].numeric


def test_presets_table():
    p = cc.parse_presets(PRESETS)
    assert p["T1"] == {"size": 4130071, "depth": 10, "leaves": 3305118}
    assert p["T3XXL"] == {"size": 2793220501, "depth": None, "leaves": None}
    assert set(p) == {"T1", "T3XXL", "T5"}


def test_generation_is_reproducible_and_varied(options):
    gen = cc.Generator(options, cc.parse_presets(PRESETS), ["auto", "cryptopp"])
    a, b = gen.cases("7", 300), gen.cases("7", 300)
    assert [(c.kind, c.args, c.env, c.files) for c in a] == [(c.kind, c.args, c.env, c.files) for c in b]
    assert [c.args for c in gen.cases("8", 50)] != [c.args for c in a[:50]]
    # Case i alone is case i of the sequence (--only replays one failure).
    assert gen.case(random.Random("7/123"), 123).args == a[123].args
    kinds = {c.kind for c in a}
    assert {"valid", "bad-value", "unknown", "contradiction", "config-bad", "flag=false", "env"} <= kinds
    assert {c.expect for c in a} == {"ok", "usage", "any"}


def test_valid_cases_use_only_declared_options(options):
    gen = cc.Generator(options, cc.parse_presets(PRESETS), ["auto", "cryptopp"])
    known = {"--" + n for n in options} | {"-" + o.short for o in options.values() if o.short} | {"-T"}
    known |= {"-i", "-x", "-I", "--init", "--bind", "--steal-local", "--steal-remote", "--max-nodes",
              "--output"}  # used when present; absent from the short help above
    for c in gen.cases("3", 200):
        if c.kind not in ("valid", "config"):
            continue
        assert c.expect == "ok" and c.tree
        for a in c.args:
            if isinstance(a, str) and a.startswith("-") and not a.lstrip("-").isdigit():
                assert a in known, (a, c.args)
        if "--sequential" in c.args:
            assert c.threads is None and "--threads" not in c.args
        else:
            assert c.threads is not None and 1 <= c.threads <= 7
        # Chase-Lev steals one node at a time, the locked stack chunks.
        if "chaselev" in c.args and "--steal" in c.args:
            assert c.args[c.args.index("--steal") + 1] == "one"


def test_bad_config_line_is_where_the_case_says(options):
    gen = cc.Generator(options, cc.parse_presets(PRESETS), ["auto"])
    seen = 0
    for i in range(300):
        c = gen.config_bad(random.Random(i), i)
        if c.kind != "config-bad":
            continue
        name, line = c.error_at.split(":")
        text = c.files[name].decode()
        assert text.split("\n")[int(line) - 1] == c.note
        seen += 1
    assert seen > 100


def test_shell_command_replays_bytes_and_control_characters(tmp_path):
    odd = ["a b", "hier\nuts: fake", "\x1b[31m", "it's", b"\xff\xfe\x01"]
    case = cc.Case(0, "x", ["{d}/c.conf"] + odd, files={"c.conf": b"a = 1\r\n%s\\ \x00 '\xff"},
                   env={"OMP_NUM_THREADS": "3,abc"})
    script = tmp_path / "echo.py"
    script.write_text("import os, sys\nd = os.path.dirname(sys.argv[1])\n"
                      "sys.stdout.buffer.write(repr([os.fsencode(a) for a in sys.argv[2:]]).encode() + b'\\n')\n"
                      "sys.stdout.buffer.write(repr(open(sys.argv[1], 'rb').read()).encode() + b'\\n')\n"
                      "print(os.environ['OMP_NUM_THREADS'])\n")
    cmd = cc.shell_command(case, "python3 " + str(script)).replace("'python3 " + str(script) + "'",
                                                                     "python3 " + str(script))
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, check=True).stdout.decode().splitlines()
    assert out[0] == repr([a.encode() if isinstance(a, str) else a for a in odd])
    assert out[1] == repr(b"a = 1\r\n%s\\ \x00 '\xff")
    assert out[2] == "3,abc"
    sig = cc.Case(0, "signal", ["-t", "1"], signal=("SIGUSR1", 0.5), rlimit_as=2 << 30)
    assert cc.shell_command(sig, "uts") == "(ulimit -v 2097152; timeout -s USR1 0.5 uts -t 1)"


TRUTH = {"size": 16000, "depth": 6, "leaves": 12839, "checksum": "0x355678ff182f0c32"}


def record(size=16000, status="complete", stop=None, kind="parallel", smt=False, verified=None):
    return ('{"status":"%s","stop_signal":%s,"engine":{"kind":"%s","threads":2},"placement":{"smt":%s},'
            '"verified":%s,"results":{"size":%d,"depth":6,"leaves":12839,"checksum":"0x355678ff182f0c32"}}\n' % (
                status, "null" if stop is None else '"%s"' % stop, kind, "true" if smt else "false",
                "null" if verified is None else str(verified).lower(), size))


def case(**kw):
    base = dict(index=0, kind="valid", args=["-t", "1", "--format", "json"], expect="ok", tree=("-t", "1"),
                threads=2)
    base.update(kw)
    return cc.Case(**base)


def violations(c, out, truth=TRUTH, **kw):
    return [what for what, _ in cc.classify(c, out, truth, **kw)[1]]


def test_exact_run_passes_and_a_wrong_one_fails():
    assert cc.classify(case(), cc.Outcome(0, record(), "", 0.1), TRUTH) == ("exit 0 (exact)", [])
    assert violations(case(), cc.Outcome(0, record(size=15999), "", 0.1)) == ["wrong result"]
    # The same in text and CSV records.
    text = "Tree size = 16000, tree depth = 6, num leaves = 12839 (80.24%)\nChecksum = 0x355678ff182f0c32\n"
    c = case(args=["-t", "1"])
    assert violations(c, cc.Outcome(0, text, "", 0.1)) == []
    assert violations(c, cc.Outcome(0, text.replace("12839", "12838"), "", 0.1)) == ["wrong result"]
    rows = "size,tree_depth,leaves,checksum,status\n16000,6,12839,0x355678ff182f0c32,complete\n"
    assert violations(case(args=["--format", "csv"]), cc.Outcome(0, rows, "", 0.1)) == []


def test_crashes_hangs_and_statuses():
    assert violations(case(), cc.Outcome(-6, "", "terminate called", 0.1)) == ["killed by a signal"]
    assert cc.classify(case(), cc.Outcome(-9, "", "", 9, timed_out=True, killed=True), TRUTH)[0] == "hang"
    assert "undocumented exit status" in violations(case(), cc.Outcome(5, "", "uts: x\n", 0.1))
    assert violations(case(), cc.Outcome(1, record(), "uts: --verify: no\n", 0.1)) == ["exit 1 without --verify"]


def test_errors_are_one_clean_line():
    bad = case(expect="usage")
    assert violations(bad, cc.Outcome(2, "", "uts: --victim: 'x' is not random\n", 0.1)) == []
    assert violations(bad, cc.Outcome(2, "", "uts: --victim: 'hier\nuts: fake' is bad\n", 0.1)) == [
        "error is not one stderr line"]
    assert violations(bad, cc.Outcome(2, "", "\nlibgomp: Invalid value\nuts: OMP_NUM_THREADS: '0'\n", 0.1)) == [
        "error is not one stderr line", "stderr line not uts's"]
    assert violations(bad, cc.Outcome(2, "", "uts: 'a\rb' is bad\n", 0.1)) == ["control character on stderr"]
    assert violations(bad, cc.Outcome(2, "partial", "uts: no\n", 0.1)) == ["stdout not empty on error"]
    assert violations(bad, cc.Outcome(0, record(), "", 0.1)) == ["accepted an invalid command line"]
    assert violations(case(), cc.Outcome(2, "", "uts: no\n", 0.1)) == ["refused a valid command line"]
    # A run's own warnings are fine; the OpenMP runtime's are not uts's lines.
    assert violations(case(), cc.Outcome(0, record(), "uts: counters not permitted\n", 0.1)) == []
    assert violations(case(), cc.Outcome(0, record(), "\nlibgomp: Invalid value\n", 0.1)) == ["stderr line not uts's"]


def test_config_errors_name_file_and_line():
    c = case(kind="config-bad", expect="usage", error_at="bad.conf:3")
    assert violations(c, cc.Outcome(2, "", "uts: /tmp/x/bad.conf:3: -d/--depth must not be negative\n", 0.1)) == []
    assert violations(c, cc.Outcome(2, "", "uts: -d/--depth must not be negative\n", 0.1)) == [
        "config error without file:line"]


def test_out_of_memory_only_under_a_limit():
    c = case(kind="memory", expect="any", rlimit_as=2 << 30)
    assert violations(c, cc.Outcome(3, "", "uts: out of memory\n", 0.1)) == []
    assert violations(c, cc.Outcome(-6, "", "terminate called after std::bad_alloc\n", 0.1)) == ["killed by a signal"]
    assert violations(case(), cc.Outcome(3, "", "uts: out of memory\n", 0.1)) == ["out of memory without a limit"]


def test_verify_verdicts():
    wrong = case(kind="verify", verify={"size": 5})
    assert violations(wrong, cc.Outcome(1, record(verified=False), "uts: --verify: mismatch\n", 0.1)) == []
    assert violations(wrong, cc.Outcome(0, record(), "", 0.1)) == ["--verify verdict"]
    right = case(kind="valid", verify={"size": 16000})
    assert violations(right, cc.Outcome(0, record(verified=True), "", 0.1)) == []
    assert violations(right, cc.Outcome(1, record(), "uts: x\n", 0.1)) == ["--verify verdict"]


def test_max_nodes_partial_runs():
    c = case(max_nodes=5000, threads=2)
    assert cc.classify(c, cc.Outcome(0, record(size=6000, status="max-nodes"), "", 0.1), TRUTH) == (
        "exit 0 (max-nodes partial)", [])
    assert violations(c, cc.Outcome(0, record(size=4999, status="max-nodes"), "", 0.1)) == ["--max-nodes bound"]
    assert violations(c, cc.Outcome(0, record(size=5000 + 24800, status="max-nodes"), "", 0.1)) == [
        "--max-nodes bound"]
    seq = case(max_nodes=5000, threads=None)
    assert violations(seq, cc.Outcome(0, record(size=7064, status="max-nodes"), "", 0.1)) == ["--max-nodes bound"]
    assert violations(case(), cc.Outcome(0, record(size=6000, status="max-nodes"), "", 0.1)) == [
        "partial run without --max-nodes"]
    # A tree smaller than the limit finishes: exact.
    assert violations(case(max_nodes=10 ** 6), cc.Outcome(0, record(), "", 0.1)) == []


def test_signals_mark_partial_runs_or_finish():
    c = case(kind="signal", signal=("SIGINT", 0.5))
    marked = record(size=100, status="interrupted", stop="SIGINT")
    assert violations(c, cc.Outcome(130, marked, "", 0.6, signal_sent=0.5)) == []
    assert violations(c, cc.Outcome(130, record(size=100), "", 0.6, signal_sent=0.5)) == [
        "interrupted run not marked"]
    assert violations(c, cc.Outcome(143, marked, "", 0.6, signal_sent=0.5)) == ["exit status names another signal"]
    assert violations(case(), cc.Outcome(130, marked, "", 0.6)) == ["exit 128+N with no signal sent"]
    # Complete after the signal: fine when the run had finished anyway
    # (without the signal it takes as long), not when it was cut short.
    assert violations(c, cc.Outcome(0, record(), "", 0.55, signal_sent=0.5), rerun_seconds=0.6) == []
    assert violations(c, cc.Outcome(0, record(), "", 0.55, signal_sent=0.5), rerun_seconds=9.0) == [
        "signal swallowed"]
    # Our --timeout's SIGTERM: a marked partial run, 143.
    timed = cc.Outcome(143, record(size=9, status="interrupted", stop="SIGTERM"), "", 60, timed_out=True)
    assert violations(case(), timed) == []


def test_flag_false_is_the_flag_off_or_refused_as_alone():
    c = case(kind="flag=false", false_flag="sequential", expect="any", note="--sequential=false",
             base=["-t", "1"], lone=["-t", "1", "--sequential=false"])
    par = cc.Outcome(0, record(), "", 0.1)
    seq = cc.Outcome(0, record(kind="sequential"), "", 0.1)
    refused = cc.Outcome(2, "", "uts: --sequential takes no value\n", 0.1)
    assert violations(c, par, lone=par, base=par) == []
    assert violations(c, seq, lone=seq, base=par) == ["flag=false is not the flag off"]
    assert violations(c, refused, lone=refused, base=par) == []
    assert violations(c, refused, lone=par, base=par) == ["flag=false refused here, accepted alone"]
    v = case(kind="flag=false", false_flag="verify", expect="any", note="--verify=false", base=[], lone=[])
    assert violations(v, cc.Outcome(1, record(verified=False), "uts: x\n", 0.1), lone=par, base=par) == [
        "flag=false is not the flag off"]
    helped = cc.Outcome(0, "Unbalanced Tree Search\nUsage:\n", "", 0.1)
    h = case(kind="flag=false", false_flag="help", expect="any", note="--help=false", base=[], lone=[])
    assert violations(h, helped, lone=helped, base=par) == ["flag=false is not the flag off"]


def test_output_record_agrees_with_stdout():
    c = case(args=["-t", "1", "--format", "json", "--output", "{d}/record.jsonl"])
    assert violations(c, cc.Outcome(0, record(), "", 0.1, record=record())) == []
    assert violations(c, cc.Outcome(0, record(), "", 0.1, record=record(size=3))) == [
        "--output record differs from stdout"]
    assert violations(c, cc.Outcome(0, record(), "", 0.1, record="")) == ["--output record differs from stdout"]


def test_runs_notices_are_uts_lines_but_not_an_error():
    notice = "*** Number of children truncated to the cap for 5 node(s)\n"
    assert violations(case(), cc.Outcome(0, record(), notice, 0.1)) == []
    assert violations(case(expect="usage"), cc.Outcome(2, "", notice, 0.1)) == ["stderr line not uts's"]
