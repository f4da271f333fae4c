#!/usr/bin/python3
"""The Spack recipe for real (packaging/spack/try.sh, docs/spack.md): a
Spack 1.x installs uts from this checkout against the machine's externals,
runs its unit tests at install time, and `spack test run uts` passes (the
installed uts explores T1 with --verify). Suite `extended`: a full build.

Bad input to try.sh is checked first (one line, exit 2); then the real run
needs UTS_SPACK_ROOT (a Spack checkout, with clingo importable or its
bootstrap mirror reachable) and takes UTS_SPACK_PACKAGES (a spack-packages
checkout, for an offline machine). Without UTS_SPACK_ROOT it skips (77).

usage: test_spack.py SOURCE_ROOT
"""
import os
import subprocess
import sys
import tempfile

from uts_check import Tally


def main():
    root = os.path.abspath(sys.argv[1])
    try_sh = os.path.join(root, "packaging", "spack", "try.sh")
    tally = Tally()

    for args, label in (([], "no --spack"), (["--spack", os.path.join(root, "no-such-spack")], "a --spack without bin/spack"),
                        (["--spack"], "--spack without its folder"), (["--frobnicate"], "an unknown argument")):
        p = subprocess.run([try_sh] + args, capture_output=True, text=True, timeout=60)
        lines = p.stderr.splitlines()
        tally.check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("try.sh: ")
                    and "Traceback" not in p.stderr and p.stdout == "",
                    f"try.sh with {label}: one line, exit 2", f"rc {p.returncode}: {p.stderr!r}")

    spack_root = os.environ.get("UTS_SPACK_ROOT", "")
    if not spack_root:
        tally.finish()
        print("skip: UTS_SPACK_ROOT (a Spack 1.x checkout) is not set; the real Spack run did not happen")
        return 77
    cmd = [try_sh, "--spack", spack_root]
    if os.environ.get("UTS_SPACK_PACKAGES"):
        cmd += ["--packages", os.environ["UTS_SPACK_PACKAGES"]]
    with tempfile.TemporaryDirectory(prefix="uts-spack-") as work:
        p = subprocess.run(cmd + ["--work", work], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=3300)
        out = p.stdout
        tally.check(p.returncode == 0 and "try.sh: OK" in out, "try.sh: install --test=root and test run",
                    f"rc {p.returncode}; output ends:\n{out[-3000:]}")
        tally.check("test_verify_t1" in out and "PASSED" in out, "spack test run uts: test_verify_t1 PASSED",
                    out[-2000:])
        installed = [os.path.join(d, "bin", "uts") for d, _, _ in os.walk(os.path.join(work, "opt"))
                     if os.path.basename(d).startswith("uts-")]
        tally.check(len(installed) == 1, "one uts installed under the work folder", str(installed))
        if len(installed) == 1:
            q = subprocess.run([installed[0], "--preset", "T1", "--verify"], capture_output=True, text=True,
                               timeout=300)
            tally.check(q.returncode == 0 and "Verify: OK" in q.stdout, "the installed uts verifies T1",
                        q.stdout[-500:] + q.stderr[-500:])
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
