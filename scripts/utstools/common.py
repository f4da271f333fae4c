"""What every uts tool shares: the repository root, the one argument parser
(bad usage is one line on stderr, exit status 2), one-line errors, and the
provenance the tools record: UTC times, the scripts' own commit, a command's
output and a file's SHA-256. Standard library only."""
import argparse
import datetime
import hashlib
import os
import subprocess
import sys

# scripts/utstools/common.py -> the checkout; in a meson installation
# (PREFIX/share/uts/scripts/utstools) -> PREFIX/share/uts, which holds the
# configs the tools read the same way.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def usage_error(name, message):
    """Bad usage: "NAME: MESSAGE" on stderr, exit status 2."""
    print("%s: %s" % (name, message), file=sys.stderr)
    sys.exit(2)


def run_error(name, message):
    """A run failed or a result is wrong: "NAME: MESSAGE" on stderr, exit status 1."""
    print("%s: %s" % (name, message), file=sys.stderr)
    sys.exit(1)


class Parser(argparse.ArgumentParser):
    """argparse, but bad usage is one line, "NAME: MESSAGE (see HINT)", and
    exit status 2, so that a script's caller sees one reason, not a usage
    block. NAME defaults to the parser's prog, HINT to --help; subparsers
    get them through add_parser(..., error_name=..., error_hint=...)."""

    def __init__(self, *args, error_name=None, error_hint="see --help", **kwargs):
        super().__init__(*args, **kwargs)
        self.error_name = error_name
        self.error_hint = error_hint

    def error(self, message):
        usage_error(self.error_name or self.prog, "%s (%s)" % (message, self.error_hint))


def doc_parser(prog, doc, **kwargs):
    """A Parser whose --help is the tool's docstring: its first paragraph as
    the description, the rest as the epilog, line breaks kept."""
    first, _, rest = doc.partition("\n\n")
    return Parser(prog=prog, description=first, epilog=rest,
                  formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


# ---------------------------------------------------------------- argument types

def _int_at_least(text, low):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a whole number: %r" % text)
    if v < low:
        raise argparse.ArgumentTypeError("must be at least %d, not %d" % (low, v))
    return v


def positive_int(text):
    return _int_at_least(text, 1)


def nonnegative_int(text):
    return _int_at_least(text, 0)


def int_list(text):
    """'1,2,8' -> [1, 2, 8]; '' -> []; each at least 1."""
    return [positive_int(part.strip()) for part in text.split(",") if part.strip()]


def name_list(text):
    """'a, b' -> ['a', 'b']; an empty list is refused."""
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise argparse.ArgumentTypeError("an empty list")
    return names


# ---------------------------------------------------------------- provenance

def utc_now():
    """Now in UTC, as machine.json and runs.csv write it: 2026-11-28T16:07:45Z."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_iso():
    """Now in UTC, as the bench and scale-study JSON write it: 2026-11-28T16:07:45+00:00."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def text_of(cmd, timeout=30):
    """A command's stdout, or '' if it cannot run."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def uts_version(uts):
    """`uts --version`, or None if it cannot run."""
    try:
        return subprocess.run([uts, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def scripts_commit():
    """The commit of the checkout these scripts run from (not the binary's:
    that one comes from the binary's own record); '-dirty' if tracked files
    differ from it; None outside a git checkout."""
    commit = text_of(["git", "-C", ROOT, "rev-parse", "HEAD"]).strip()
    if not commit:
        return None
    status = text_of(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"]).strip()
    return commit + ("-dirty" if status else "")


def sha256_of(path):
    """The file's SHA-256 in hex: names a binary or a platform file exactly
    (two builds of one dirty commit differ)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
