"""Redraw a study's figures from its runs.csv, summary.csv and machine.json
alone, for every study kind (scaling, hierarchy, pool, schedulers: machine.json's
"study"). The figures are written into DIR, replacing the old ones.

usage: scripts/plot-results DIR

A result set written before scripts/study (a machine.json without "schema")
is a legacy result set, superseded: it is not redrawn (exit status 2, one
line); regenerate it with scripts/study (results/README.md says how).
Exit status: 0 drawn; 2 bad usage, not a study folder, a legacy or
unfinished result set, or matplotlib missing.
"""
import importlib
import importlib.util
import json
import os
import sys

from utstools import figure_formats

MODULES = {"scaling": "study_plots", "hierarchy": "study_plots", "pool": "pool_plots", "schedulers": "sched_plots"}


def fail(message):
    print("plot-results: %s" % message, file=sys.stderr)
    return 2


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0].startswith("-"):
        if argv in (["-h"], ["--help"]):
            print(__doc__.strip())
            return 0
        return fail("usage: scripts/plot-results DIR")
    figure_formats.formats("plot-results")  # a bad UTS_FIGURE_FORMATS: exit 2
    out = argv[0].rstrip("/") or "/"
    if not os.path.isdir(out):
        return fail("%s: no such folder" % out)
    machine_path = os.path.join(out, "machine.json")
    if not os.path.isfile(machine_path):
        if os.path.isfile(os.path.join(out, "runs.csv")):
            return fail("%s: legacy result set (no machine.json; superseded), not redrawn" % out)
        return fail("%s: not a study folder (no machine.json)" % out)
    try:
        with open(machine_path) as f:
            machine = json.load(f)
    except (OSError, ValueError) as e:
        return fail("%s: unreadable machine.json (%s)" % (out, e))
    if not isinstance(machine, dict) or "schema" not in machine:
        return fail("%s: legacy result set (written before scripts/study; superseded), not redrawn" % out)
    if machine["schema"] != 1:
        return fail("%s: machine.json schema %s; these scripts draw schema 1" % (out, machine["schema"]))
    kind = machine.get("study")
    if kind not in MODULES:
        return fail("%s: unknown study kind %r in machine.json" % (out, kind))
    for name in ("runs.csv", "summary.csv"):
        if not os.path.isfile(os.path.join(out, name)):
            return fail("%s: no %s (the study did not finish: finish it with scripts/study %s ... --resume)"
                        % (out, name, kind))
    if importlib.util.find_spec("matplotlib") is None:
        return fail("matplotlib is not installed (apt-get install python3-matplotlib); no figures drawn")
    from utstools import study_common
    study_common.PROG = "plot-results"
    module = importlib.import_module("utstools." + MODULES[kind])
    files = module.plot_all(out, machine)
    print("plot-results: %s study, wrote %s" % (kind, ", ".join(os.path.basename(f) for f in files)),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
