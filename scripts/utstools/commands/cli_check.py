"""Randomized end-to-end check of uts's command-line contract: generated
command lines, valid and hostile, each run once and held to the contract.

The options are learned from the binary (`uts --help`, `uts
--list-presets`, and a probe of which keys a config file may set), not
from a list kept here. Each command line is one of these kinds: a valid
run (a small tree or a sample preset, every protocol, victim policy, steal
amount, SHA-1 path this machine has, --sequential, --max-nodes, every
format, --output to a temporary folder, config files), a valid run with a
wrong --verify, an invalid value (garbage, out of range, control
characters, binary junk), an unknown option or a missing argument, a
contradiction, a malformed or missing config file, a flag given
`=false`, bad OMP_* variables, a run under a 2 GiB address-space limit, or
a run stopped by a signal. What each must do (docs/contract-check.md):
  - exit status 0, 1 (a --verify mismatch), 2 (bad usage), 3 (out of
    memory), 4 (results not written) or 128+N (stopped by signal N); never
    killed by a signal, never a hang (--timeout: SIGTERM, then SIGKILL);
  - exit 2, 3 or 4: exactly one stderr line, `uts: ...`; 2 and 3 print
    nothing on stdout; a config file's error names `FILE:LINE`;
  - on every exit, each stderr line starts `uts: ` and holds no control
    character (the OpenMP runtime's own warnings are not uts's lines);
  - exit 0: size, depth, leaves and checksum equal to `--sequential` on the
    same tree; a --max-nodes run is marked partial within the documented
    bound; a signalled run is marked interrupted and exits 128+N, or it
    had finished (a rerun without the signal is not much longer);
  - `--FLAG=false` is the same run as without the flag, or refused the way
    `--FLAG=false` is refused on its own.
Every violation is printed with a shell command that reproduces it; the
summary counts the outcomes by class. Exit status 1 if any violation.

usage: scripts/cli-check [--uts PATH] [--count N] [--seed S] [--jobs J]
       [--timeout SECONDS] [--keep-going] [--verbose]
"""
import concurrent.futures
import csv
import io
import json
import os
import random
import re
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

from utstools.common import ROOT, doc_parser, positive_int, usage_error

# ---------------------------------------------------------------- the help

@dataclass
class Option:
    """One option as `uts --help` shows it."""
    long: str                  # "tree"; a short-only option has its letter ("T")
    short: str = None          # "t", or None
    arg: str = None            # the argument's name ("arg", "N", "0|1"), None for a flag
    group: str = ""            # the help section ("Tree", "Engine", ...)
    help: str = ""             # the help text, on one line
    values: list = field(default_factory=list)  # the enumerated values ("half", "chunk:K")
    default: str = None        # "(default: X)" or "default X"
    low: int = None            # "N from LOW to HIGH" / "LOW to HIGH"
    high: int = None
    implicit: str = None       # -v [=N(=1)]: the value when given alone

    @property
    def flag(self):
        return self.arg is None

    @property
    def spelling(self):
        return "--" + self.long if len(self.long) > 1 else "-" + self.long

    @property
    def numeric(self):
        """Takes a whole number (a range, a number as default, or N-like)."""
        if self.values and not all(v.isupper() for v in self.values):
            return False
        return (self.low is not None or self.arg in ("N", "K", "NS", "W", "L")
                or (self.default is not None and re.fullmatch(r"-?\d+", self.default) is not None))


HEADER = re.compile(r"^ (.*) options:$")
OPTION = re.compile(r"^  (?:-(\w), |    )?(?:--([\w-]+)|-(\w))(?: \[=\w+\(=(\w+)\)\]| (\S+))?(?:\s{2,}(.*)|\s*$)")
CONTINUED = re.compile(r"^\s{6,}(\S.*)$")
# Enumerated values: words joined by `|`, each perhaps followed by a
# parenthesised gloss: "split (Lace-style split deque) | locked (...)".
WORD = r"[A-Za-z0-9][A-Za-z0-9:]*"
GLOSS = r"(?:\s*\((?:[^()]|\([^()]*\))*\))?"
RANGE = re.compile(r"(?:from )?(-?\d+) to (\d+)")
DEFAULT = re.compile(r"\(default:? ([^,;)]+)[,;)]|default ([\w.:-]+)")


def enum_values(text):
    """The values of `a | b (gloss) | c` lists in a help text, in order,
    duplicates dropped; '0|bin|binomial, 1|geo' counts as one list."""
    found = []
    for m in re.finditer(r"(%s)%s\s*\|\s*(?=%s)" % (WORD, GLOSS, WORD), text):
        found.append(m.group(1))
        rest = text[m.end():]
        nxt = re.match(WORD, rest)
        if nxt:
            found.append(nxt.group(0))
    out = []
    for v in found:
        if v not in out:
            out.append(v)
    return out


def parse_help(text):
    """`uts --help` -> {long name: Option}, in help order."""
    options = {}
    group = ""
    current = None
    for line in text.splitlines():
        h = HEADER.match(line)
        if h:
            group, current = h.group(1), None
            continue
        m = OPTION.match(line)
        if m:
            short, long_, only, implicit, arg, text_ = m.groups()
            name = long_ or only
            current = Option(long=name, short=short, group=group, help=(text_ or "").strip(),
                             implicit=implicit, arg=("N" if implicit else arg))
            options[name] = current
            continue
        c = CONTINUED.match(line)
        if c and current is not None:
            current.help = (current.help + " " + c.group(1)).strip()
            continue
        current = None
    for o in options.values():
        o.help = re.sub(r"\s+", " ", o.help)
        o.values = enum_values(o.help)
        if o.arg == "0|1":
            o.values = ["0", "1"]
        r = RANGE.search(o.help)
        if r:
            o.low, o.high = int(r.group(1)), int(r.group(2))
            # A wider floor said later in the text ("other protocols accept
            # N from 0") is the floor any command line may use.
            o.low = min([o.low] + [int(x) for x in re.findall(r"\bN from (-?\d+)", o.help)])
        d = DEFAULT.search(o.help)
        if d:
            o.default = (d.group(1) or d.group(2)).strip()
    return options


def parse_presets(text):
    """`uts --list-presets` -> {name: {"size", "depth", "leaves"}} (None for '-')."""
    presets = {}
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 4:
            continue
        num = [None if p == "-" else int(p) for p in parts[1:4]]
        presets[parts[0]] = {"size": num[0], "depth": num[1], "leaves": num[2]}
    return presets


# ---------------------------------------------------------------- cases

@dataclass
class Case:
    """One generated command line and what the contract asks of it."""
    index: int
    kind: str                        # what the generator made ("valid", "bad-value", ...)
    args: list                       # argv after the binary; "{d}" stands for the temp folder
    expect: str = "any"              # "ok" (exit 0, exact), "usage" (exit 2), "any" (0 exact or 2)
    env: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)   # name in the temp folder -> bytes
    tree: tuple = None               # the tree's arguments, for the --sequential answer
    threads: int = None              # threads of a parallel run (None: sequential or unknown)
    max_nodes: int = None
    verify: dict = None              # with --verify: the expected values given ({} for a preset's)
    error_at: str = None             # a config file's bad line: "name.conf:LINE" the message must name
    signal: tuple = None             # (signal name, seconds after the start)
    rlimit_as: int = None            # address-space limit in bytes
    false_flag: str = None           # --FLAG=false: the flag
    base: list = None                # --FLAG=false: the same command line without it
    lone: list = None                # --FLAG=false: the tree and --FLAG=false alone
    note: str = ""                   # why this case, for the report


def self_float(opt):
    """Takes a decimal number (its default is one: -b, -q, -f)."""
    return opt.default is not None and re.fullmatch(r"-?\d+\.\d+", opt.default) is not None


def resolved(args, d):
    return [a.replace("{d}", d) if isinstance(a, str) else a for a in args]


def sh_word(word):
    """A shell word for an argument: plain quoting, or $'...' for bytes or
    control characters (copy-pasteable into bash)."""
    if isinstance(word, bytes):
        data = word
    else:
        if all(32 <= ord(ch) < 127 for ch in word):
            return shlex.quote(word)
        data = word.encode("utf-8", "surrogateescape")
    out = []
    for b in data:
        if 32 <= b < 127 and chr(b) not in "'\\":
            out.append(chr(b))
        else:
            out.append("\\%03o" % b)
    return "$'" + "".join(out) + "'"


def printf_bytes(data):
    """A printf format that prints exactly these bytes (NUL included)."""
    out = []
    for b in data:
        if 32 <= b < 127 and chr(b) not in "'\\%":
            out.append(chr(b))
        elif chr(b) == "%":
            out.append("%%")
        else:
            out.append("\\%03o" % b)
    return "printf '" + "".join(out) + "'"


def shell_command(case, uts):
    """The case as one bash command line: temp folder, files, limits, env,
    the run, and the signal if any."""
    parts = []
    uses_dir = case.files or any("{d}" in a for a in case.args if isinstance(a, str))
    if uses_dir:
        parts.append("d=$(mktemp -d)")
        for name, data in sorted(case.files.items()):
            parts.append('%s > "$d/%s"' % (printf_bytes(data), name))
    words = []
    for a in case.args:
        if isinstance(a, str) and "{d}" in a:
            pre, _, post = a.partition("{d}")
            words.append(sh_word(pre) + '"$d"' + sh_word(post) if pre else '"$d"' + (sh_word(post) if post else ""))
        else:
            words.append(sh_word(a))
    env = " ".join("%s=%s" % (k, sh_word(v)) for k, v in sorted(case.env.items()))
    run = (("env " + env + " ") if env else "") + shlex.quote(uts) + " " + " ".join(words)
    if case.signal:
        run = "timeout -s %s %s %s" % (case.signal[0][3:], case.signal[1], run)
    if case.rlimit_as:
        run = "(ulimit -v %d; %s)" % (case.rlimit_as // 1024, run)
    parts.append(run.strip())
    return "; ".join(parts) if uses_dir else parts[0]


class Generator:
    """Command lines from the options uts declares. Pure apart from the
    random source it is given: the same seed gives the same cases."""

    def __init__(self, options, presets, sha1_paths=None, file_keys=None, memory_limit=True):
        self.o = options
        # False: the binary cannot start under an address-space limit (an
        # AddressSanitizer build reserves terabytes of shadow memory), so
        # the memory kind makes plain valid runs instead.
        self.memory_limit = memory_limit
        self.presets = {n: v for n, v in presets.items() if n in ("T1", "T3", "T5")}
        self.sha1_paths = sha1_paths if sha1_paths is not None else self.values("sha1")
        self.file_keys = file_keys if file_keys is not None else {
            n for n, o in options.items() if not o.flag and o.group in ("Tree", "Engine")
            and n not in ("preset", "config")}

    def has(self, name):
        return name in self.o

    def values(self, name, placeholders=False):
        if name not in self.o:
            return []
        return [v for v in self.o[name].values if placeholders or not v.isupper()]

    # -- trees: small ones (up to a few hundred thousand nodes), sometimes a sample preset
    def tree(self, rng, presets=True):
        """(tree arguments, preset name or None)."""
        if presets and self.presets and rng.random() < 0.04:
            name = rng.choice(sorted(self.presets))
            return ["--preset", name], name
        kind = rng.choice(["geo", "geo", "bin", "hybrid", "balanced"])
        seed = str(rng.randrange(0, 1000))
        if kind == "geo":
            shape = rng.choice(["0", "1", "2", "3", "linear", "expdec", "cyclic", "fixed"])
            b = rng.choice([2, 3, 4, 5])
            depth = {2: 12, 3: 8, 4: 7, 5: 6}[b]
            depth = rng.randint(1, depth if shape in ("3", "fixed") else depth + 2)
            if shape in ("2", "cyclic"):
                depth = rng.randint(1, 4)
            return [rng.choice(["-t", "--tree"]), rng.choice(["1", "geo", "geometric"]), "-a", shape,
                    "-d", str(depth), "-b", str(b), "-r", seed], None
        if kind == "bin":
            m = rng.randint(2, 8)
            q = round(rng.uniform(0.05, 0.9) / m, 6)
            return ["-t", rng.choice(["0", "bin", "binomial"]), "-b", str(rng.randint(1, 2000)),
                    "-q", repr(q), "-m", str(m), "-r", seed], None
        if kind == "hybrid":
            m = rng.randint(2, 6)
            q = round(rng.uniform(0.05, 0.85) / m, 6)
            return ["-t", rng.choice(["2", "hybrid"]), "-d", str(rng.randint(2, 8)), "-b", str(rng.choice([2, 3, 4])),
                    "-q", repr(q), "-m", str(m), "-f", rng.choice(["0.25", "0.5", "0.75"]), "-r", seed], None
        b = rng.choice([2, 3, 4, 6])
        depth = rng.randint(1, {2: 14, 3: 9, 4: 7, 6: 5}[b])
        return ["-t", rng.choice(["3", "balanced"]), "-d", str(depth), "-b", str(b)], None

    def steal(self, rng, protocol):
        """A steal amount the protocol honours (chaselev: one; locked: chunks)."""
        if protocol == "chaselev":
            return "one"
        if protocol == "locked":
            return "chunk:%d" % rng.randint(1, 64)
        choices = [v for v in self.values("steal", placeholders=True)]
        v = rng.choice(choices) if choices else "half"
        return "chunk:%d" % rng.randint(1, 64) if v.endswith(":K") else v

    def engine(self, rng, case):
        """Engine arguments for a valid run; sets case.threads."""
        args = []
        if self.has("sequential") and rng.random() < 0.12:
            case.threads = None
            sha1 = ["--sha1", rng.choice(self.sha1_paths)] if self.sha1_paths and rng.random() < 0.3 else []
            return ["--sequential"] + sha1
        threads = rng.randint(1, 7)
        how = rng.random()
        if how < 0.7:
            args += ["--threads", str(threads)]
        elif how < 0.85 and self.has("T"):
            args += ["-T", str(threads)]
        else:
            case.env["OMP_NUM_THREADS"] = str(threads)
        case.threads = threads
        protocol = rng.choice(self.values("protocol") or ["split"])
        if rng.random() < 0.85:
            args += ["--protocol", protocol]
        else:
            protocol = self.o["protocol"].default if self.has("protocol") else "split"
        if rng.random() < 0.5:
            args += ["--steal", self.steal(rng, protocol)]
        victim = rng.choice(self.values("victim") or ["random"])
        if rng.random() < 0.6:
            args += ["--victim", victim]
            if victim == "hier":
                # N virtual domains need N threads at least.
                args += ["--domains", rng.choice([str(n) for n in range(1, min(threads, 4) + 1)]
                                                 + self.values("domains"))]
                if protocol in ("split", "request") and rng.random() < 0.5:
                    args += ["--steal-local", self.steal(rng, protocol), "--steal-remote", self.steal(rng, protocol)]
                if rng.random() < 0.3:
                    args += ["--remote-delay", str(rng.choice([0, 10, 1000, 20000]))]
        if rng.random() < 0.4:
            args += ["--init", rng.choice(self.values("init") or ["root"])]
        if self.sha1_paths and rng.random() < 0.4:
            args += ["--sha1", rng.choice(self.sha1_paths)]
        if rng.random() < 0.15:
            bind = rng.choice(self.values("bind") or ["none"])
            args += ["--bind", bind] + (["--smt"] if bind in ("compact", "scatter") and rng.random() < 0.5 else [])
        if protocol == "request" and rng.random() < 0.3:
            args += ["-I", str(rng.randint(1, 50))]
        return args

    def output(self, rng, case):
        args = []
        fmt = rng.choice(self.values("format") or ["json"])
        if rng.random() < 0.9:
            args += ["--format", fmt]
        if rng.random() < 0.15:
            args += ["--output", "{d}/record.%s" % ("csv" if fmt == "csv" else "jsonl")]
        if rng.random() < 0.15:
            args += ["-v"]
        if rng.random() < 0.1:
            args += ["--no-progress"]
        # The measurements beside the result: none may change it.
        if rng.random() < 0.03 and self.has("trace"):
            args += ["--trace", "{d}/trace.json"]
        if rng.random() < 0.03 and self.has("counters"):
            args += ["--counters", "cycles,instructions"]
        if rng.random() < 0.03 and self.has("work-baseline") and "--sequential" not in case.args:
            args += ["--work-baseline", rng.choice(["sequential", "0.5"])]
        return args

    def valid(self, rng, index, kind="valid"):
        case = Case(index, kind, [], expect="ok")
        tree, preset = self.tree(rng)
        if preset is None and rng.random() < 0.1 and self.has("granularity"):
            tree += ["-g", str(rng.randint(2, 4))]
        case.tree = tuple(tree)
        case.args = tree + self.engine(rng, case)
        case.args += self.output(rng, case)
        # --work-baseline sequential needs the whole tree: no --max-nodes.
        if rng.random() < 0.1 and "--work-baseline" not in case.args:
            case.max_nodes = rng.choice([1, 100, 5000, 100000])
            case.args += ["--max-nodes", str(case.max_nodes)]
        if preset and rng.random() < 0.5:
            case.args += ["--verify"]
            case.verify = {}
        if rng.random() < 0.05 and self.has("poll-interval"):
            case.args += [rng.choice(["-i", "-x"]), str(rng.randint(0, 9))]
        return case

    def config_text(self, rng, tree, extra=()):
        """key = value lines for a tree's arguments (long keys or letters)."""
        names = {"-t": "tree", "--tree": "tree", "-a": "shape", "-d": "depth", "-b": "b0", "-q": "nonleaf-prob",
                 "-m": "nonleaf-children", "-f": "shift", "-r": "seed", "-g": "granularity"}
        lines = ["# generated by cli-check"]
        for flag, value in zip(tree[::2], tree[1::2]):
            key = names[flag]
            if rng.random() < 0.3 and self.o.get(key) and self.o[key].short:
                key = self.o[key].short
            lines.append("%s%s=%s%s" % (key, rng.choice([" ", ""]), rng.choice([" ", "  ", ""]), value))
        lines += list(extra)
        return lines

    def config_valid(self, rng, index):
        case = self.valid(rng, index, "config")
        tree = list(case.tree)
        if tree[0] == "--preset":
            return case
        lines = self.config_text(rng, tree)
        data = ("\n".join(lines) + rng.choice(["\n", "\r\n", ""])).encode()
        if rng.random() < 0.5 and "\r" not in data.decode():
            data = data.replace(b"\n", b"\r\n")
        case.files["tree.conf"] = data
        case.args = ["--config", "{d}/tree.conf"] + case.args[len(tree):]
        return case

    def bad_values(self, rng, opt):
        """(value, certainly invalid?) for an option's argument."""
        junk = [("", True), ("hier\nuts: fake", True), ("a\rb", True), ("\x1b[31mred\x1b[0m", True),
                (bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 12))), False),
                ("\u00e9\u00e8", True), ("x" * 300, True)]
        if opt.numeric:
            cand = [("abc", True), ("1e999", True), ("0x10", False), ("nan", True), ("9" * 25, True),
                    ("3.5", True), (" 5", False), ("5 ", False), ("1,2", True), ("-0", False), ("+3", False),
                    ("99999999999999999999", True)]
            if opt.low is not None:
                cand += [(str(opt.low - 1), True), (str(opt.low), False), (str(opt.high), False),
                         (str(opt.high + 1), True)]
            if opt.low is not None and opt.low >= 0:
                cand += [("-1", True)]
        elif opt.values:
            cand = [(v.upper() if v.lower() == v else v.lower(), False) for v in opt.values if not v.isupper()]
            cand += [(opt.values[0] + "x", True), ("nope", True), (" " + opt.values[0], False),
                     (opt.values[0] + "\x07", True)]
            if any(v.startswith("chunk:") for v in opt.values):
                cand += [("chunk:0", True), ("chunk:", True), ("chunk:-1", True), ("chunk:1000000000", True),
                         ("chunk:x", True)]
        elif self_float(opt):
            cand = [("abc", True), ("nan", True), ("inf", True), ("1e999", True), ("-1", False), ("0", False),
                    ("1.5.2", True), ("0x1p3", False), ("", True)]
        else:
            cand = [("nope", False)]
        return rng.choice(cand + junk)

    def bad_value(self, rng, index):
        """A valid run with one option's value replaced by junk."""
        case = self.valid(rng, index, "bad-value")
        case.max_nodes = None
        mutable = [o for n, o in self.o.items() if not o.flag and n not in
                   ("preset", "config", "output", "trace", "model-rate", "work-baseline", "counters", "root-id",
                    "threads", "T", "expect-size", "expect-depth", "expect-leaves")]
        opt = rng.choice(mutable)
        value, certain = self.bad_values(rng, opt)
        case.args = self.drop(case.args, opt)
        if rng.random() < 0.3 and len(opt.long) > 1 and isinstance(value, str):
            added = ["--%s=%s" % (opt.long, value)]
        else:
            added = [opt.spelling, value]
        case.args += added
        case.expect = "usage" if certain else "any"
        case.note = "%s %r" % (opt.spelling, value)
        if opt.group == "Tree" and case.tree:
            # Accepted, it makes another tree: the answer is that tree's.
            case.tree = tuple(self.drop(list(case.tree), opt) + added)
            case.verify = None
            case.args = [a for a in case.args if a != "--verify"]
        return case

    @staticmethod
    def drop(args, opt):
        """args without opt and its value (and --max-nodes's value)."""
        names = {"--" + opt.long, "-" + opt.long} | ({"-" + opt.short} if opt.short else set())
        out, skip = [], False
        for i, a in enumerate(args):
            if skip:
                skip = False
                continue
            if a in names or (a == "--max-nodes"):
                skip = True
                continue
            out.append(a)
        return out

    def drop_locality(self, args):
        """args without the victim policy and the locality options."""
        for name in ("victim", "domains", "steal-local", "steal-remote", "remote-delay"):
            args = self.drop(args, Option(name))
        return args

    def unknown(self, rng, index):
        case = self.valid(rng, index, "unknown")
        cand = [["--bogus"], ["--tree-size", "5"], ["-Z"], ["stray"], ["-"], ["--=x"], ["---threads", "2"],
                ["--", "stray"]]
        with_arg = [o for o in self.o.values() if not o.flag and o.implicit is None]
        o = rng.choice(with_arg)
        cand += [[o.spelling]]  # an argument missing at the end
        if len(o.long) > 1:
            cand += [["--" + o.long[:-1]], ["--" + o.long.upper(), "1"]]
        extra = rng.choice(cand)
        case.args += extra
        case.expect = "usage"
        case.note = " ".join(extra)
        return case

    def contradiction(self, rng, index):
        """Two options that cannot hold together, from what the help says
        ("both given must agree", --no-X) and the engine rules."""
        case = self.valid(rng, index, "contradiction")
        case.max_nodes = None
        tree = list(case.tree)
        pairs = []
        for o in self.o.values():
            if "both given must agree" in o.help and o.long == "T":
                pairs.append(["-T", "2", "--threads", "3"])
            if "both given must agree" in o.help and o.long == "chunk":
                pairs.append(["-c", "4", "--steal", "one"])
            if o.flag and "no-" + o.long in self.o:
                pairs.append([o.spelling, "--no-" + o.long])
        if self.has("sequential"):
            for name in ("threads", "protocol", "victim", "init", "remote-delay"):
                if name in self.o:
                    v = (self.values(name) or ["2"])[0]
                    pairs.append(["--sequential", "--" + name, v])
        if self.has("workload"):
            pairs.append(["--workload", "pool", "--max-nodes", "5"])
        if self.has("verify"):
            pairs.append(["--verify"])  # with no expected values (not a preset)
            tree = [a for a in tree if a != "--preset"] if tree[0] != "--preset" else ["-t", "1", "-d", "3"]
        pair = rng.choice(pairs)
        case.args = tree + ["--format", "json"] + pair
        case.expect = "usage"
        case.note = " ".join(pair)
        case.threads = None
        return case

    def config_bad(self, rng, index):
        """A config file whose line N is bad: the message must say name.conf:N."""
        case = Case(index, "config-bad", [], expect="usage")
        tree, _ = self.tree(rng, presets=False)
        lines = self.config_text(rng, tree)
        keys = sorted(self.file_keys)
        what = rng.random()
        if what < 0.6 and keys:
            # Half of them a tree key: the keys every config file sets.
            tree_keys = [k for k in keys if self.o.get(k) and self.o[k].group == "Tree"]
            key = rng.choice(tree_keys if tree_keys and rng.random() < 0.5 else keys)
            opt = self.o.get(key)
            value, certain = self.bad_values(rng, opt) if opt else ("nope", True)
            if isinstance(value, bytes) or "\n" in value or "\r" in value or "#" in value or value.strip() == "":
                value, certain = "nope", bool(opt and (opt.numeric or opt.values))
            if not certain:
                value = "abc" if opt and opt.numeric else "nope"
                if not (opt and (opt.numeric or opt.values)):
                    return self.config_valid(rng, index)
            bad = "%s = %s" % (key, value)
            if key == "depth":
                bad = rng.choice([bad, "depth = -4"])
            if key == "seed":
                # Past 64 bits, and past the 32 bits a seed must fit in.
                bad = rng.choice([bad, "seed = 99999999999999999999", "seed = 2147483648", "seed = -2147483649"])
        elif what < 0.75:
            bad = rng.choice(["colour = blue", "tree geo", "= 5", "Depth = 4", "depth =", "de pth = 3",
                              "sequential = 1", "preset = T1", "config = /dev/null"])
        else:
            counters = "counters"
            bad = rng.choice(["%s = bogus" % counters, "%s = ," % counters, "threads = 0",
                              "ops = 0", "mix = 101", "producers = 0", "fill = -1", "trials = 0",
                              "remote-delay = 10000000001", "max-nodes = -5"])
        # The bad line is its key's only line (a later one would override it).
        key = bad.split("=")[0].strip()
        same = {key} | {o.short for n, o in self.o.items() if n == key and o.short} | {
            n for n, o in self.o.items() if o.short == key}
        lines = [l for l in lines if l.split("=")[0].strip() not in same]
        line = rng.randint(1, len(lines))
        lines.insert(line, bad)
        data = ("\n".join(lines) + "\n").encode()
        case.files["bad.conf"] = data
        case.error_at = "bad.conf:%d" % (line + 1)
        case.args = ["--config", "{d}/bad.conf", "--format", "json"]
        case.note = bad
        return case

    def config_junk(self, rng, index):
        """Files that are not config files: CR-only lines, binary, missing."""
        case = Case(index, "config-junk", [], expect="usage")
        tree, _ = self.tree(rng, presets=False)
        lines = self.config_text(rng, tree)
        what = rng.choice(["cr", "binary", "missing", "dir", "nul", "empty-value", "bom"])
        if what == "cr":
            case.files["cr.conf"] = ("\r".join(lines[1:]) + "\r").encode()
            path = "{d}/cr.conf"
            case.expect = "any"
        elif what == "binary":
            case.files["bin.conf"] = bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 200)))
            path = "{d}/bin.conf"
            case.expect = "any"
        elif what == "missing":
            path = "{d}/missing.conf"
        elif what == "dir":
            path = "{d}"
        elif what == "nul":
            case.files["nul.conf"] = ("\n".join(lines) + "\n\x00\n").encode()
            path = "{d}/nul.conf"
        elif what == "empty-value":
            case.files["ev.conf"] = ("\n".join(lines) + "\nseed =\n").encode()
            path = "{d}/ev.conf"
            case.error_at = "ev.conf:%d" % (len(lines) + 1)
        else:
            case.files["bom.conf"] = ("\ufeff" + "\n".join(lines) + "\n").encode()
            path = "{d}/bom.conf"
            case.expect = "ok"
            case.tree = tuple(tree)
        case.args = ["--config", path, "--format", "json"]
        case.note = what
        return case

    def missing(self, rng, index):
        case = self.valid(rng, index, "missing")
        case.max_nodes = None
        tree = list(case.tree)
        extra = rng.choice([["--preset", "NOPE"], ["--preset", "../etc/passwd"], ["--preset", ""],
                            ["--output", "{d}/no/such/dir.jsonl"], ["--trace", "{d}/no/such/t.json"],
                            ["--output", "{d}"], ["--trace", "{d}/t.bogus"]])
        case.args = (tree if extra[0] != "--preset" else []) + ["--format", "json"] + extra
        case.threads = None
        case.expect = "usage"
        case.note = " ".join(extra)
        return case

    def verify_wrong(self, rng, index):
        """--verify with expected values: right ones exit 0, a wrong one 1."""
        case = self.valid(rng, index, "verify")
        case.max_nodes = None
        case.args = [a for a in self.drop(case.args, Option("max-nodes")) if a != "--verify"]
        which = rng.choice(["size", "depth", "leaves"])
        case.verify = {which: rng.choice([1, 5, 123456789])}
        case.args += ["--verify", "--expect-" + which, str(case.verify[which])]
        return case

    def false_flag(self, rng, index):
        """--FLAG=false: the same run as without the flag, or refused as on its own."""
        flags = [o for o in self.o.values() if o.flag and len(o.long) > 1]
        opt = rng.choice(flags)
        case = self.valid(rng, index, "flag=false")
        case.max_nodes = None
        case.args = [a for a in self.drop(case.args, Option("max-nodes"))
                     if a not in ("--verify", "--sequential", "--smt", "--no-progress", "--progress", "-v")]
        case.verify = None
        base = list(case.args)
        if opt.long == "sequential" and case.threads is None:
            base = list(case.tree) + ["--threads", "2"]
            case.threads = 2
        if opt.long == "verify":
            base += ["--expect-size", "5"]
        if opt.long == "smt":
            base += ["--bind", rng.choice(["compact", "scatter"])]
        if "no-" + opt.long in self.o and rng.random() < 0.5:
            base += ["--no-" + opt.long]
        if not any(a == "--format" for a in base):
            base += ["--format", "json"]
        word = rng.choice(["false", "0"])
        case.args = base + ["--%s=%s" % (opt.long, word)]
        case.base = base
        case.lone = list(case.tree) + ["--format", "json", "--%s=%s" % (opt.long, word)]
        case.false_flag = opt.long
        case.expect = "any"
        case.note = "--%s=%s" % (opt.long, word)
        return case

    def omp_env(self, rng, index):
        case = self.valid(rng, index, "env")
        case.args = [a for a in case.args]
        case.env = {}
        # No --threads: the environment names the count (and no virtual
        # domains, which need as many threads).
        case.args = self.drop_locality(self.drop(self.drop(case.args, Option("threads")), Option("T")))
        case.max_nodes = None
        if "--sequential" not in case.args:
            case.threads = None
        var = rng.choice(["OMP_NUM_THREADS"] * 3 + ["OMP_THREAD_LIMIT", "OMP_PROC_BIND", "OMP_PLACES",
                                                    "OMP_WAIT_POLICY", "OMP_DYNAMIC", "OMP_STACKSIZE"])
        if var == "OMP_NUM_THREADS":
            value, valid = rng.choice([("0", False), ("3,abc", False), ("1,", False), ("abc", False), ("-1", False),
                                       ("", False), (",2", False), ("2,,3", False), ("1.5", False),
                                       ("2", True), ("3,2", True), ("5000", False)])
            case.expect = "ok" if valid else "usage"
            if valid:
                case.threads = int(value.split(",")[0]) if "--sequential" not in case.args else None
        else:
            value = rng.choice(["0", "maybe", "junk", "-1", "", "x\ny"])
            case.expect = "any"
        case.env[var] = value
        case.note = "%s=%r" % (var, value)
        return case

    def memory(self, rng, index):
        """Under a 2 GiB address space: exit 0 or 3, never an abort."""
        case = self.valid(rng, index, "memory")
        if not self.memory_limit:
            return case
        case.max_nodes = None
        case.args = self.drop(case.args, Option("max-nodes"))
        if "--sequential" in case.args:
            case.args.remove("--sequential")
        case.args = self.drop_locality(self.drop(self.drop(case.args, Option("threads")), Option("T")))
        case.threads = rng.randint(1, 7)
        case.env.pop("OMP_NUM_THREADS", None)
        case.args += ["--threads", str(case.threads), "--trace", "{d}/t.json",
                      "--trace-events", str(rng.choice([10000000, 50000000, 100000000]))]
        case.args = [a for a in case.args if a != "--sequential"]
        case.rlimit_as = 2 << 30
        case.expect = "any"
        case.note = "ulimit -v 2097152"
        return case

    def signalled(self, rng, index):
        case = self.valid(rng, index, "signal")
        case.max_nodes = None
        case.args = self.drop(case.args, Option("max-nodes"))
        if rng.random() < 0.5 and "--sequential" not in case.args:
            case.args = self.drop(self.drop(self.drop(case.args, Option("victim")), Option("domains")),
                                  Option("remote-delay"))
            case.args += ["--victim", "hier", "--domains", "2",
                          "--remote-delay", str(rng.choice([100000000, 1000000000]))]
            if case.threads is None or case.threads < 2:
                case.args = self.drop(self.drop(case.args, Option("threads")), Option("T"))
                case.env.pop("OMP_NUM_THREADS", None)
                case.args += ["--threads", "2"]
                case.threads = 2
            case.args = self.drop(case.args, Option("steal-local"))
            case.args = self.drop(case.args, Option("steal-remote"))
        else:
            tree = ["--preset", rng.choice(sorted(self.presets))] if self.presets else list(case.tree)
            case.args = tree + case.args[len(case.tree):]
            case.tree = tuple(tree)
            case.verify = None
            case.args = [a for a in case.args if a != "--verify"]
        name = rng.choice(["SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"])
        # After uts installs its handlers (a few ms after exec), and mostly
        # before a sample preset's run ends (under a second here).
        case.signal = (name, round(rng.uniform(0.2, 0.8), 2))
        case.note = "%s after %ss" % case.signal
        return case

    KINDS = [("valid", 38), ("config", 5), ("bad-value", 16), ("unknown", 5), ("contradiction", 5),
             ("config-bad", 8), ("config-junk", 3), ("missing", 3), ("verify", 3), ("flag=false", 6),
             ("env", 4), ("memory", 1), ("signal", 3)]

    def case(self, rng, index):
        kinds, weights = zip(*self.KINDS)
        kind = rng.choices(kinds, weights)[0]
        make = {"valid": self.valid, "config": self.config_valid, "bad-value": self.bad_value,
                "unknown": self.unknown, "contradiction": self.contradiction, "config-bad": self.config_bad,
                "config-junk": self.config_junk, "missing": self.missing, "verify": self.verify_wrong,
                "flag=false": self.false_flag, "env": self.omp_env, "memory": self.memory,
                "signal": self.signalled}[kind]
        return make(rng, index)

    def cases(self, seed, count):
        """Case i comes from its own random source (seed, i): a failure can
        be replayed alone with --seed S --only I."""
        return [self.case(random.Random("%s/%d" % (seed, i)), i) for i in range(count)]


# ---------------------------------------------------------------- outcomes

@dataclass
class Outcome:
    rc: int                 # the exit status; -N: killed by signal N
    stdout: str
    stderr: str
    seconds: float
    signal_sent: float = None   # seconds after the start, if a signal was sent while it ran
    timed_out: bool = False     # our --timeout's SIGTERM was sent
    killed: bool = False        # ... and it still ran: SIGKILL
    record: str = None          # what --output FILE holds after the run, if it was given


SIGNALS = {"SIGINT": 2, "SIGTERM": 15, "SIGHUP": 1, "SIGUSR1": 10, "SIGUSR2": 12}
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def results_of(stdout, fmt):
    """{size, depth, leaves, checksum, status, stop_signal, verified, kind,
    smt, threads} from a record in any format, or None."""
    text = stdout.strip()
    if not text:
        return None
    if fmt == "json" or text.startswith("{"):
        try:
            rec = json.loads(text.splitlines()[0])
        except ValueError:
            return None
        res = rec.get("results") or {}
        eng = rec.get("engine") or {}
        return {"size": res.get("size"), "depth": res.get("depth"), "leaves": res.get("leaves"),
                "checksum": res.get("checksum"), "status": rec.get("status"), "stop_signal": rec.get("stop_signal"),
                "verified": rec.get("verified"), "kind": eng.get("kind"), "threads": eng.get("threads"),
                "smt": (rec.get("placement") or {}).get("smt")}
    if fmt == "csv":
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error:
            return None
        if not rows:
            return None
        r = rows[-1]
        num = lambda k: int(r[k]) if r.get(k, "").lstrip("-").isdigit() else None
        return {"size": num("size"), "depth": num("tree_depth"), "leaves": num("leaves"),
                "checksum": r.get("checksum"), "status": r.get("status"), "stop_signal": r.get("stop_signal") or None,
                "verified": {"true": True, "false": False}.get(r.get("verified")), "kind": r.get("engine"),
                "threads": num("threads"), "smt": r.get("smt")}
    m = re.search(r"Tree size = (\d+), tree depth = (\d+), num leaves = (\d+)", text)
    c = re.search(r"Checksum = (0x[0-9a-f]+)", text)
    if not m:
        return None
    status, sig = "complete", None
    p = re.search(r"\*\*\* PARTIAL RESULTS: (.*)", text)
    if p:
        s = re.search(r"interrupted by (SIG\w+)", p.group(1))
        status, sig = ("interrupted", s.group(1)) if s else ("max-nodes", None)
    return {"size": int(m.group(1)), "depth": int(m.group(2)), "leaves": int(m.group(3)),
            "checksum": c.group(1) if c else None, "status": status, "stop_signal": sig, "verified": None,
            "kind": None, "threads": None, "smt": None}


def format_of(args):
    fmt = "text"
    for i, a in enumerate(args):
        if a == "--format" and i + 1 < len(args):
            fmt = args[i + 1]
        elif isinstance(a, str) and a.startswith("--format="):
            fmt = a.split("=", 1)[1]
    return fmt


def stderr_problems(stderr, rc):
    """What is wrong with stderr under the contract, as (class, detail)."""
    problems = []
    lines = stderr.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if rc in (2, 3, 4) and len(lines) != 1:
        problems.append(("error is not one stderr line", "%d lines" % len(lines)))
    for line in lines:
        # uts's lines: "uts: ...", and after a run its notices in the
        # reference's style ("*** Number of children truncated ...").
        if not (line.startswith("uts: ") or (rc not in (2, 3, 4) and line.startswith("*** "))):
            problems.append(("stderr line not uts's", repr(line[:120])))
            break
    for line in lines:
        if CONTROL.search(line):
            problems.append(("control character on stderr", repr(line[:160])))
            break
    return problems


def classify(case, out, truth, lone=None, base=None, rerun_seconds=None):
    """(outcome class, [(violation class, detail)]) of one run. truth: the
    --sequential answer for case.tree ({size, depth, leaves, checksum}) or
    None; lone, base: the Outcomes of --FLAG=false alone and of the command
    line without it; rerun_seconds: how long the run took without its
    signal (None: not rerun)."""
    v = []
    rc = out.rc
    fmt = format_of(case.args)
    if out.killed:
        return "hang", [("hang", "still running %.0f s after SIGTERM at --timeout" % out.seconds)]
    if rc < 0:
        name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        return "signal death", [("killed by a signal", name)]
    if rc not in (0, 1, 2, 3, 4) and not 129 <= rc <= 128 + 64:
        v.append(("undocumented exit status", str(rc)))
    v += stderr_problems(out.stderr, rc)
    if rc in (2, 3) and out.stdout:
        v.append(("stdout not empty on error", repr(out.stdout[:80])))
    cls = {0: "exit 0", 1: "exit 1 (verify mismatch)", 2: "exit 2 (refused)", 3: "exit 3 (out of memory)",
           4: "exit 4 (not written)"}.get(rc, "exit 128+N (signal)" if rc > 128 else "exit %d" % rc)
    # A signal or our timeout: partial results, marked, and 128+N.
    sent = case.signal[0] if case.signal and out.signal_sent is not None else ("SIGTERM" if out.timed_out else None)
    if rc > 128:
        got = results_of(out.stdout, fmt)
        name = signal.Signals(rc - 128).name if (rc - 128) in signal.Signals._value2member_map_ else None
        if sent is None:
            v.append(("exit 128+N with no signal sent", str(rc)))
        elif name != sent:
            v.append(("exit status names another signal", "%d after %s" % (rc, sent)))
        if got is None:
            v.append(("interrupted run printed no record", repr(out.stdout[:80])))
        elif got["status"] != "interrupted" or got["stop_signal"] != (sent or name):
            v.append(("interrupted run not marked", "status %r, stop_signal %r" % (got["status"], got["stop_signal"])))
        return cls, v
    if case.false_flag is not None:
        v += false_flag_problems(case, out, lone, base)
        return cls, v
    if rc == 2:
        if case.expect == "ok":
            v.append(("refused a valid command line", out.stderr.strip()[:200]))
        if case.error_at and case.error_at not in out.stderr:
            v.append(("config error without file:line", "wanted %s: %s" % (case.error_at, out.stderr.strip()[:200])))
        return cls, v
    if rc == 3:
        if case.rlimit_as is None:
            v.append(("out of memory without a limit", out.stderr.strip()[:200]))
        return cls, v
    if rc == 4:
        return cls, v
    if case.expect == "usage" and rc in (0, 1):
        v.append(("accepted an invalid command line", "exit %d" % rc))
        return "exit %d (accepted invalid)" % rc, v
    got = results_of(out.stdout, fmt)
    if case.max_nodes is None and case.verify is None and rc == 1:
        v.append(("exit 1 without --verify", out.stderr.strip()[:200]))
        return cls, v
    if got is None:
        if rc in (0, 1):
            v.append(("no record on stdout", repr(out.stdout[:120])))
        return cls, v
    if case.signal and out.signal_sent is not None and got["status"] == "complete" and rerun_seconds is not None:
        # The run ended after the signal yet says complete: only if it had
        # finished anyway (a rerun without the signal takes about as long).
        if rerun_seconds > out.seconds + max(1.0, 0.5 * out.seconds):
            v.append(("signal swallowed", "%s at %.2f s: exit %d, status complete after %.2f s; without the signal "
                      "the same run takes %.1f s or more" % (sent, out.signal_sent, rc, out.seconds, rerun_seconds)))
    if truth is None:
        return cls + " (no reference)", v
    same = all(got[k] == truth[k] for k in ("size", "depth", "leaves", "checksum"))
    if got["status"] == "max-nodes":
        if case.max_nodes is None:
            v.append(("partial run without --max-nodes", str(got)))
        else:
            n, p = case.max_nodes, (case.threads or 1)
            bound = n + (2064 if case.threads is None else 12400 * p)
            if not n <= got["size"] < bound:
                v.append(("--max-nodes bound", "size %s for --max-nodes %d, %s threads" % (got["size"], n, p)))
        if rc != 0:
            v.append(("partial run exit status", str(rc)))
        return "exit 0 (max-nodes partial)", v
    if out.record is not None and rc in (0, 1):
        rec = results_of(out.record, fmt)
        keys = ("size", "depth", "leaves", "checksum", "status")
        if rec is None or any(rec[k] != got[k] for k in keys if got[k] is not None):
            v.append(("--output record differs from stdout", "record %s, stdout %s" % (
                rec and {k: rec[k] for k in keys}, {k: got[k] for k in keys})))
    if got["status"] not in ("complete", None):
        v.append(("unexpected status", str(got["status"])))
    if not same:
        v.append(("wrong result", "got size %s depth %s leaves %s checksum %s; --sequential: %s %s %s %s" % (
            got["size"], got["depth"], got["leaves"], got["checksum"],
            truth["size"], truth["depth"], truth["leaves"], truth["checksum"])))
    if case.verify is not None:
        wrong = any(truth[k] != val for k, val in case.verify.items())
        if rc != (1 if wrong else 0):
            v.append(("--verify verdict", "exit %d, expected %s, result %s" % (rc, case.verify, truth)))
    elif rc == 1:
        v.append(("exit 1 without --verify", out.stderr.strip()[:200]))
    return (cls if rc else "exit 0 (exact)" if same else "exit 0 (wrong)"), v


def false_flag_problems(case, out, lone, base):
    """--FLAG=false against the same command line without it, and against
    --FLAG=false alone (a refusal must be the refusal of the form itself)."""
    v = []
    if base is None or lone is None:
        return v
    if out.rc == 2:
        if lone.rc != 2:
            v.append(("flag=false refused here, accepted alone",
                      "%s alone exits %d; here: %s" % (case.note, lone.rc, out.stderr.strip()[:200])))
        return v
    fmt = format_of(case.args)
    if out.rc != base.rc:
        v.append(("flag=false is not the flag off", "%s: exit %d, without it exit %d (%s)" % (
            case.note, out.rc, base.rc, out.stderr.strip()[:160])))
        return v
    a, b = results_of(out.stdout, fmt), results_of(base.stdout, fmt)
    if (a is None) != (b is None):
        v.append(("flag=false is not the flag off", "%s: stdout %r, without it %r" % (
            case.note, out.stdout[:60], base.stdout[:60])))
    elif a is not None:
        for key in ("kind", "smt", "verified", "status", "size", "checksum"):
            if a[key] != b[key]:
                v.append(("flag=false is not the flag off",
                          "%s: %s %r, without it %r" % (case.note, key, a[key], b[key])))
                break
    return v


# ---------------------------------------------------------------- running

def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_", "UTS_"))}
    env.update(extra)
    return env


def run_args(uts, args, env, timeout, rlimit_as=None, send=None, grace=5.0):
    """Run uts once; send = (signal name, seconds): send it then, if still
    running. At timeout: SIGTERM, then SIGKILL after grace."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (rlimit_as, rlimit_as))
    argv = [uts] + [a.encode("utf-8", "surrogateescape") if isinstance(a, str) else a for a in args]
    start = time.monotonic()
    # Its own session: a hang is killed with whatever it started.
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True,
                         preexec_fn=limit if rlimit_as else None)
    box = {}

    def read():
        box["out"], box["err"] = p.communicate()
    reader = threading.Thread(target=read)
    reader.start()
    sent = None
    timed_out = killed = False
    if send:
        reader.join(send[1])
        if reader.is_alive():
            sent = time.monotonic() - start
            p.send_signal(SIGNALS[send[0]])
    reader.join(max(0.0, timeout - (time.monotonic() - start)))
    if reader.is_alive():
        timed_out = True
        p.send_signal(signal.SIGTERM)
        reader.join(grace)
        if reader.is_alive():
            killed = True
            os.killpg(p.pid, signal.SIGKILL)
            reader.join()
    seconds = time.monotonic() - start
    dec = lambda b: (b or b"").decode("utf-8", "replace")
    return Outcome(p.returncode, dec(box.get("out")), dec(box.get("err")), seconds, sent, timed_out, killed)


class Checker:
    """Runs cases, caches the --sequential answer per tree, classifies."""

    def __init__(self, uts, timeout):
        self.uts = uts
        self.timeout = timeout
        self.truths = {}
        self.lones = {}
        self.lock = threading.Lock()

    def truth(self, tree):
        if tree is None:
            return None
        with self.lock:
            if tree in self.truths:
                return self.truths[tree]
        out = run_args(self.uts, list(tree) + ["--sequential", "--format", "json", "--no-progress"],
                       clean_env({}), max(self.timeout, 120))
        got = results_of(out.stdout, "json") if out.rc == 0 else None
        with self.lock:
            self.truths[tree] = got
        return got

    def check(self, case):
        with tempfile.TemporaryDirectory(prefix="cli-check-") as d:
            for name, data in case.files.items():
                with open(os.path.join(d, name), "wb") as f:
                    f.write(data)
            env = clean_env(case.env)
            out = run_args(self.uts, resolved(case.args, d), env, self.timeout, case.rlimit_as, case.signal)
            for i, arg in enumerate(case.args[:-1]):
                if arg == "--output" and os.path.isfile(resolved([case.args[i + 1]], d)[0]):
                    with open(resolved([case.args[i + 1]], d)[0], errors="replace") as f:
                        out.record = f.read()
            lone = base = rerun = None
            if case.false_flag:
                base = run_args(self.uts, resolved(case.base, d), env, self.timeout)
                key = tuple(case.lone)
                if key not in self.lones:
                    self.lones[key] = run_args(self.uts, case.lone, clean_env({}), self.timeout)
                lone = self.lones[key]
            if case.signal and out.signal_sent is not None and out.rc == 0:
                limit = out.seconds + max(1.0, 0.5 * out.seconds) + 1.0
                # Stopped at the limit (SIGTERM), it took at least that long.
                again = run_args(self.uts, resolved(case.args, d), env, limit, case.rlimit_as, grace=5.0)
                rerun = limit if again.timed_out else again.seconds
            truth = self.truth(case.tree) if case.tree and out.rc in (0, 1) else None
        return out, classify(case, out, truth, lone, base, rerun)


def learn(uts):
    """The options, presets, SHA-1 paths and config-file keys of this binary."""
    def run(args, env=None):
        return subprocess.run([uts] + args, capture_output=True, text=True, timeout=120, env=clean_env(env or {}))
    options = parse_help(run(["--help"]).stdout)
    presets = parse_presets(run(["--list-presets"]).stdout)
    if "tree" not in options:
        raise RuntimeError("%s --help lists no --tree option: not a uts binary?" % uts)
    paths = [p for p in (options["sha1"].values if "sha1" in options else [])
             if run(["-t", "1", "-d", "2", "--sequential", "--sha1", p, "--format", "json"]).returncode == 0]
    keys = set()
    with tempfile.TemporaryDirectory(prefix="cli-check-") as d:
        path = os.path.join(d, "probe.conf")
        for name, o in options.items():
            if o.flag or name in ("preset", "config"):
                continue
            with open(path, "w") as f:
                f.write("%s = \x01probe\n" % name)
            err = run(["--config", path]).stderr
            if "unknown key" not in err and "malformed key" not in err:
                keys.add(name)
    return options, presets, paths, keys


def main(argv=None):
    p = doc_parser("scripts/cli-check", __doc__)
    p.add_argument("--uts", default=os.path.join(ROOT, "build", "uts"), help="the binary (default: build/uts)")
    p.add_argument("--count", type=positive_int, default=300, help="command lines to run (default 300)")
    p.add_argument("--seed", default="1", help="the generator's seed (default 1)")
    p.add_argument("--only", type=int, default=None, help="run only case I of the seed's sequence")
    p.add_argument("--jobs", type=positive_int, default=1, help="runs at a time (default 1; at most 2)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds before a run gets SIGTERM (default 60)")
    p.add_argument("--keep-going", action="store_true", help="run every case (default: stop at the first violation)")
    p.add_argument("--verbose", action="store_true", help="print every case and its outcome")
    a = p.parse_args(argv)
    if a.jobs > 2:
        usage_error("cli-check", "--jobs %d: at most 2 (one run at a time is the point; 2 for a quicker pass)" % a.jobs)
    if not os.access(a.uts, os.X_OK):
        usage_error("cli-check", "--uts %s: not an executable" % a.uts)
    options, presets, paths, keys = learn(a.uts)
    limited = subprocess.run(["/bin/bash", "-c", 'ulimit -v 2097152; exec "$0" --version', a.uts],
                             capture_output=True)
    gen = Generator(options, presets, paths, keys, memory_limit=limited.returncode == 0)
    if limited.returncode != 0:
        print("cli-check: %s cannot start under ulimit -v 2097152 (a sanitizer build?): no memory-limited runs"
              % a.uts, flush=True)
    cases = gen.cases(a.seed, a.count if a.only is None else a.only + 1)
    if a.only is not None:
        cases = [cases[a.only]]
    print("cli-check: %d options, %d presets, SHA-1 paths %s, %d config keys; %d command lines, seed %s" % (
        len(options), len(presets), ",".join(paths), len(keys), len(cases), a.seed), flush=True)
    checker = Checker(a.uts, a.timeout)
    tally, violations = {}, []
    start = time.monotonic()
    stop = threading.Event()

    def one(case):
        if stop.is_set():
            return case, None, None
        t0 = time.monotonic()
        out, (cls, v) = checker.check(case)
        if v and not a.keep_going:
            stop.set()
        return case, out, (cls, v, time.monotonic() - t0)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = pool.map(one, cases)
        while True:
            try:
                case, out, result = next(results)
            except StopIteration:
                break
            except OSError as e:
                # Not uts's outcome: the binary went away (rebuilt?) mid-check.
                stop.set()
                usage_error("cli-check", "cannot run %s: %s" % (a.uts, e))
            if result is None:
                continue
            cls, v, took = result
            key = (case.kind, cls)
            n, t = tally.get(key, (0, 0.0))
            tally[key] = (n + 1, t + took)
            if a.verbose:
                print("%4d %-14s %-28s %s" % (case.index, case.kind, cls, shell_command(case, a.uts)), flush=True)
            for what, detail in v:
                violations.append((case, out, what, detail))
                print("VIOLATION %s: %s\n  case %d (%s%s), exit %d\n  stderr: %r\n  repro: %s" % (
                    what, detail, case.index, case.kind, ": " + case.note if case.note else "", out.rc,
                    out.stderr[:300], shell_command(case, a.uts)), flush=True)
    print("\n%-16s %-32s %6s %9s" % ("kind", "outcome", "count", "seconds"))
    for (kind, cls), (n, t) in sorted(tally.items()):
        print("%-16s %-32s %6d %9.1f" % (kind, cls, n, t))
    by_class = {}
    for _, _, what, _ in violations:
        by_class[what] = by_class.get(what, 0) + 1
    print("\n%d command lines in %.0f s; %d violations%s" % (
        sum(n for n, _ in tally.values()), time.monotonic() - start, len(violations),
        "".join("\n  %-44s %d" % kv for kv in sorted(by_class.items()))))
    return 1 if violations else 0
