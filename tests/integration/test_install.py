#!/usr/bin/env python3
"""meson install gives a working uts: the binary, which
finds its installed presets wherever the installation lies (DESTDIR here),
the man page, LICENSE and CITATION.cff, the study scripts with their package
and configs (bin/uts-study runs the installed binary), the bench scripts.

usage: test_install.py BUILD_DIR
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def main():
    build = os.path.abspath(sys.argv[1])
    tally = Tally()
    with tempfile.TemporaryDirectory() as dest:
        p = run(["meson", "install", "-C", build, "--destdir", dest, "--no-rebuild", "--quiet"])
        tally.check(p.returncode == 0, "meson install --destdir", p.stdout[-500:] + p.stderr[-500:])
        if p.returncode != 0:
            return tally.finish()
        bins = glob.glob(os.path.join(dest, "**", "bin", "uts"), recursive=True)
        tally.check(len(bins) == 1, "one bin/uts installed", str(bins))
        if len(bins) != 1:
            return tally.finish()
        prefix = os.path.dirname(os.path.dirname(bins[0]))
        # Move the installation: the binary finds its own presets from where it is.
        moved = os.path.join(dest, "moved")
        shutil.move(prefix, moved)
        uts = os.path.join(moved, "bin", "uts")
        share = os.path.join(moved, "share")
        presets = os.path.join(share, "uts", "presets")
        with open(os.path.join(presets, "Zinstalled.conf"), "w") as f:
            f.write("description = only in the installation\ntree = geo\ndepth = 3\n")
        p = run([uts, "--preset", "zinstalled", "--format", "json"])
        tally.check(p.returncode == 0 and '"preset":"Zinstalled"' in p.stdout and '"depth":3' in p.stdout,
                    "the moved installation's binary finds its own presets (case-insensitive)", p.stderr)
        p = run([uts, "--preset", "T1", "--verify", "--threads", "2"])
        tally.check(p.returncode == 0 and "Verify: OK" in p.stdout, "installed uts --preset T1 --verify")
        p = run([uts, "--list-presets"])
        tally.check("Zinstalled" in p.stdout and "T1L" in p.stdout, "--list-presets lists the installed presets")
        for rel in ("man/man1/uts.1", "doc/uts/LICENSE", "doc/uts/CITATION.cff", "uts/configs/studies/default.conf",
                    "uts/scripts/utstools/stats.py", "uts/scripts/utstools/commands/study.py",
                    "uts/scripts/lib/setup.sh", "uts/scripts/bench-sequential"):
            tally.check(os.path.isfile(os.path.join(share, rel)), "installed: share/" + rel)
        # Every bench script of the source tree is installed (a new one needs
        # its line in meson.build's install_data).
        scripts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
        for name in sorted(n for n in os.listdir(scripts) if n.startswith("bench-")):
            tally.check(os.access(os.path.join(share, "uts", "scripts", name), os.X_OK),
                        "installed, executable: share/uts/scripts/" + name)
        for script in ("uts-study", "uts-plot-results"):
            p = run([os.path.join(moved, "bin", script), "--help"])
            tally.check(p.returncode == 0 and "usage" in (p.stdout + p.stderr).lower(),
                        "bin/%s --help runs from the installation" % script, p.stderr[-300:])
        out = os.path.join(dest, "study")
        p = run([os.path.join(moved, "bin", "uts-study"), "scaling", "--trees", "T1", "--threads", "1",
                 "--reps", "1", "--out", out], cwd=dest)
        tally.check(p.returncode == 0 and os.path.isfile(os.path.join(out, "runs.csv")),
                    "bin/uts-study runs a one-run study with the installed uts", p.stderr[-500:])
        if os.path.isfile(os.path.join(out, "runs.csv")):
            tally.check(uts in open(os.path.join(out, "machine.json")).read(),
                        "the installed study used the installed binary")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
