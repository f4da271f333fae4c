#!/usr/bin/env python3
"""scripts/check-layers: src/ passes, and each kind of bad include in a copy
of src/ is caught (an upward include, a sibling protocol, an unplaced file).

usage: test_layers.py SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

from uts_check import Tally


def run(checker, src):
    p = subprocess.run([sys.executable, checker, src], capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    root = sys.argv[1]
    checker = os.path.join(root, "scripts", "check-layers")
    src = os.path.join(root, "src")
    tally = Tally()
    code, out = run(checker, src)
    tally.check(code == 0 and "0 includes against the layer order" in out, "src/: every include runs downward", out)
    mutants = [
        ("tree/node.hpp", '#include "engine/engine.hpp"\n', "upward", "tree includes the engine"),
        ("run/settings.hpp", '#include "report/format.hpp"\n', "upward", "the vocabulary includes the report"),
        ("steal/protocols/split/split_protocol.hpp", '#include "steal/protocols/locked/locked_stack.hpp"\n',
         "sibling", "one protocol includes another"),
        ("engine/engine.hpp", '#include "traversal/run.hpp"\n', "upward", "the engine includes a front end"),
        ("distrib/agent.cpp", '#include "workload/pool.hpp"\n', "sibling", "two front ends include each other"),
    ]
    for path, line, kind, label in mutants:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "src")
            shutil.copytree(src, copy)
            with open(os.path.join(copy, path)) as f:
                text = f.read()
            with open(os.path.join(copy, path), "w") as f:
                f.write(line + text)
            code, out = run(checker, copy)
            tally.check(code == 1 and kind in out and path in out, "caught: " + label, out)
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(src, copy)
        os.makedirs(os.path.join(copy, "misc"))
        with open(os.path.join(copy, "misc", "helper.hpp"), "w") as f:
            f.write("#pragma once\n")
        code, out = run(checker, copy)
        tally.check(code == 1 and "misc/helper.hpp: in no layer" in out, "caught: a file in a folder no layer claims", out)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
