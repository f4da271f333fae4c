#!/usr/bin/env python3
"""The sources compiled once and linked into both uts and uts-smpi
(uts_once_sources, src/meson.build) cannot compile differently in the two:
nothing they include, themselves included, reads what the SMPI build changes
(UTS_SMPI, UTS_HAVE_MPI/TBB/OTF2, _OPENMP, the build configuration header,
mpi.h, oneTBB's or OTF2's headers) or holds an OpenMP pragma (uts-smpi has
no -fopenmp). Otherwise one object would serve two programs that each need
their own: an ODR break no link reports. Then each kind of such a line,
added to a copy of a listed file's includes, must be caught.

usage: test_built_once.py SRC_DIR FILE...   (FILE: a listed source)
"""
import os
import re
import shutil
import sys
import tempfile

from uts_check import Tally

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# What the SMPI build changes, as a source or header can read it.
MARK = re.compile(r'\bUTS_SMPI\b|\bUTS_HAVE_(?:MPI|TBB|OTF2)\b|\b_OPENMP\b|^\s*#\s*pragma\s+omp\b'
                  r'|_Pragma\s*\(\s*"\s*omp|uts_build_config\.hpp|\bmpi\.h\b|[<"](?:tbb|oneapi|otf2)/', re.M)


def code(path):
    """The file without its comments (a comment may name UTS_SMPI)."""
    with open(path) as f:
        return re.sub(r'//[^\n]*|/\*.*?\*/', '', f.read(), flags=re.S)


def reason(src, path, seen):
    """Why path (or a project header it includes) compiles differently in
    uts-smpi, or None."""
    if path in seen:
        return None
    seen.add(path)
    text = code(path)
    m = MARK.search(text)
    if m:
        return "%s reads %s" % (os.path.relpath(path, src), m.group(0).strip())
    for inc in INCLUDE.findall(text):
        # As the compiler looks: beside the file, then src/.
        for base in (os.path.dirname(path), src):
            p = os.path.normpath(os.path.join(base, inc))
            if os.path.isfile(p):
                r = reason(src, p, seen)
                if r:
                    return r
                break
        else:
            # A generated header (the build configuration, the commit): not
            # under src/, so not checkable here, so not shared.
            return "%s includes %s, not under src/" % (os.path.relpath(path, src), inc)
    return None


def check_all(src, files):
    """[(file, reason)] of the files that must not be shared."""
    out = []
    for f in files:
        r = reason(src, os.path.abspath(f), set())
        if r:
            out.append((os.path.relpath(os.path.abspath(f), src), r))
    return out


def main():
    if len(sys.argv) < 3:
        print("usage: test_built_once.py SRC_DIR FILE...", file=sys.stderr)
        return 2
    src, files = os.path.abspath(sys.argv[1]), sys.argv[2:]
    tally = Tally()
    bad = check_all(src, files)
    tally.check(not bad, "%d sources built once: none reads what uts-smpi's build changes" % len(files),
                "; ".join("%s (%s)" % b for b in bad))
    # Each kind of line, in a header the first listed file includes (or in
    # the file itself when it includes none), must be caught.
    first = os.path.relpath(os.path.abspath(files[0]), src)
    mutants = ["#if UTS_SMPI\n#endif\n", "#if UTS_HAVE_MPI\n#endif\n", "#ifdef _OPENMP\n#endif\n",
               "#pragma omp parallel\n{}\n", '#include "uts_build_config.hpp"\n', "#include <mpi.h>\n",
               "#include <tbb/task_group.h>\n"]
    for line in mutants:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "src")
            shutil.copytree(src, copy)
            incs = INCLUDE.findall(code(os.path.join(copy, first)))
            local = [i for i in incs if os.path.isfile(os.path.join(copy, i))]
            target = os.path.join(copy, local[0]) if local else os.path.join(copy, first)
            with open(target, "a") as f:
                f.write(line)
            caught = check_all(copy, [os.path.join(copy, first)])
            tally.check(len(caught) == 1, "caught: %s in %s" % (line.splitlines()[0], os.path.relpath(target, copy)))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
