#!/usr/bin/env python3
"""The man page documents exactly the options `uts --help` lists,
and renders without a groff warning.

- Every long option (--name) and every short option (-x) that `uts --help`
  lists must head an entry of the man page (the tag line of a .TP or .TQ,
  or the argument of .IP). Missing ones fail.
- Every option that heads an entry of the man page must be one that `uts
  --help` lists. Stale ones fail. So does a long option named anywhere in
  the page's text that --help does not list, unless the same source line
  names another program (mpirun, numactl, meson, ...), whose options it is.
- When groff is installed, `groff -man -Tutf8 -ww` must print nothing on
  stderr. Without groff the render check is skipped and says so.

Options are read from the roff source whatever the markup: font escapes
(\\fB, \\f[I], \\f(CR), \\&, \\%, \\| and \\^ are removed and \\- (or \\(hy,
\\(mi) read as a dash, and macro arguments lose their quotes.

usage: test_manpage.py UTS_BINARY UTS_1
"""
import os
import re
import shutil
import subprocess
import sys

from uts_check import Tally

# Programs whose options the page may quote in running text or examples.
OTHER_PROGRAMS = ("mpirun", "mpiexec", "srun", "sbatch", "numactl", "meson", "ninja", "groff", "man ", "hwloc",
                  "lstopo", "taskset", "timeout")

LONG = re.compile(r"(?<![\w-])--([A-Za-z0-9][A-Za-z0-9-]*)")
SHORT = re.compile(r"(?<![\w-])-([A-Za-z])(?![\w-])")


def help_options(binary):
    """(long names, short letters) from the option column of `uts --help`.

    cxxopts prints an option at the start of a line (two spaces, then `-x, `
    or four spaces, then `--name`), its description after two or more spaces,
    and continuation lines indented further; only the option column is read,
    so options named inside a description do not count."""
    proc = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise SystemExit("FAIL  %s --help exited %d: %s" % (binary, proc.returncode, proc.stderr.strip()))
    longs, shorts = set(), set()
    for line in proc.stdout.splitlines():
        m = re.match(r"^ {1,8}(-\S.*?)(?: {2,}|$)", line)
        if not m:
            continue
        column = m.group(1)
        longs.update(LONG.findall(column))
        shorts.update(SHORT.findall(column))
    return longs, shorts


def plain(roff):
    """A roff source line as text: escapes that only change fonts or spacing
    removed, dashes as '-', quotes of macro arguments dropped."""
    s = roff
    s = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", s)        # font changes
    s = re.sub(r"\\(\(hy|\(mi|\[hy\]|\[mi\]|-)", "-", s)  # dashes
    s = re.sub(r"\\[&%|^,/:]", "", s)                    # zero-width and thin spaces
    s = s.replace("\\e", "\\").replace("\\ ", " ").replace("\\~", " ")
    if s.startswith((".", "'")):
        s = s.replace('"', " ")
    return s


def man_options(path):
    """(heads: long, heads: short, text mentions: [(long name, line number, line)])."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    head_long, head_short, mentions = set(), set(), []
    tag_next = False
    for number, raw in enumerate(lines, 1):
        if raw.startswith(('.\\"', "'\\\"", '.\\#')):
            continue
        text = plain(raw)
        is_head = False
        if tag_next and not raw.startswith((".TP", ".TQ", ".PD")):
            is_head, tag_next = True, False
        if re.match(r"^\.T[PQ]\b", raw):
            tag_next = True
        elif re.match(r"^\.IP\b", raw):
            is_head = True
            text = text[3:]
        elif re.match(r"^\.(B|I|BI|IB|BR|RB|IR|RI)\b", raw):
            text = re.sub(r"^\.\w+", "", text)
        if is_head:
            head_long.update(LONG.findall(text))
            head_short.update(SHORT.findall(text))
        for name in LONG.findall(text):
            mentions.append((name, number, raw))
    return head_long, head_short, mentions


def render_warnings(path):
    groff = shutil.which("groff")
    if groff is None:
        return None
    proc = subprocess.run([groff, "-man", "-Tutf8", "-ww", path], capture_output=True, text=True, timeout=60)
    problems = proc.stderr.strip()
    if proc.returncode != 0 and not problems:
        problems = "groff exited %d" % proc.returncode
    return problems


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    binary, page = sys.argv[1], sys.argv[2]
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print("test_manpage.py: %s is not an executable file" % binary, file=sys.stderr)
        return 2
    if not os.path.isfile(page):
        print("test_manpage.py: %s: no such man page" % page, file=sys.stderr)
        return 2
    tally = Tally()
    help_long, help_short = help_options(binary)
    tally.check(len(help_long) >= 10 and "help" in help_long and "version" in help_long,
                "--help lists its options (%d long, %d short)" % (len(help_long), len(help_short)),
                "found long=%s short=%s" % (sorted(help_long), sorted(help_short)))

    head_long, head_short, mentions = man_options(page)
    tally.check(len(head_long) >= 10, "the man page has option entries (%d long, %d short)"
                % (len(head_long), len(head_short)))

    missing = sorted(help_long - head_long)
    tally.check(not missing, "every long option of --help has an entry in the man page",
                "missing: " + ", ".join("--" + n for n in missing))
    missing_short = sorted(help_short - head_short)
    tally.check(not missing_short, "every short option of --help has an entry in the man page",
                "missing: " + ", ".join("-" + n for n in missing_short))

    stale = sorted(head_long - help_long)
    tally.check(not stale, "every option entry of the man page is an option --help lists",
                "stale: " + ", ".join("--" + n for n in stale))
    stale_short = sorted(head_short - help_short)
    tally.check(not stale_short, "every short option entry of the man page is one --help lists",
                "stale: " + ", ".join("-" + n for n in stale_short))

    foreign = []
    for name, number, raw in mentions:
        if name in help_long or name in stale:  # stale heads are reported above
            continue
        if any(p in plain(raw) for p in OTHER_PROGRAMS):
            continue
        foreign.append("line %d: --%s" % (number, name))
    tally.check(not foreign, "the man page's text names no option --help lacks", "; ".join(foreign))

    problems = render_warnings(page)
    if problems is None:
        print("groff not installed: render check skipped")
    else:
        tally.check(problems == "", "groff -man -Tutf8 -ww renders it without a warning", problems)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
