"""Run a study of uts: many runs over a grid of cells, every result checked,
then runs.csv, summary.csv, machine.json and figures.

usage: scripts/study KIND [options] --out DIR
  KIND  scaling    trees x threads (x MPI ranks, protocols, policies, locality
                   settings) plus a --sequential cell per tree;
                   default config: configs/studies/default.conf
        hierarchy  the same engine, default config configs/studies/hierarchy.conf
                   (flat random vs --victim hier over virtual domains at
                   several remote delays) and the locality figures
        pool       Kotz and Ellis's concurrent-pool experiment
                   (uts --workload pool); default config configs/studies/pool.conf
        schedulers every scheduler of uts --list-schedulers in each form
                   (and a second binary's, e.g. the clang build's omp-task
                   under libomp) x -g node costs x threads x trees, plus a
                   --sequential cell per tree and -g (the node cost and the
                   efficiency baseline); default config
                   configs/studies/schedulers.conf

  scripts/study scaling --out DIR                       the default scaling study
  scripts/study scaling --quick --out DIR               its [quick] section (smoke test)
  scripts/study scaling --config protocols --out DIR    configs/studies/protocols.conf
  scripts/study scaling --config ranks --out DIR        MPI ranks x threads (needs mpirun)
  scripts/study scaling --trees T1 --threads 1,2,4 --victim random,tree --reps 5 --out DIR
  scripts/study hierarchy --out DIR
  scripts/study pool --out DIR
  scripts/study schedulers --out DIR                    (--uts-clang PATH, --also-binary LABEL=PATH)
  scripts/study KIND ... --out DIR --resume             finish an interrupted study
  scripts/plot-results DIR                              redraw a study's figures

Every kind:
  --uts PATH       the binary (default: the repository's build/uts, built
                   with scripts/lib/setup.sh if missing)
  --out DIR        the output folder: refused (exit 2) if it exists, unless
                   --resume, which runs only the runs runs.csv does not hold
                   yet (a run is its cell, warm-up flag and repetition index)
                   with the same study and the same binary
  --config NAME|FILE   configs/studies/NAME.conf or a study file
  --quick          apply the study file's [quick] section
  --reps N, --warmup N, --bind MODE, --smt, --order-seed N   override the file

Config keys of every kind: reps (measured repetitions per cell, default 1),
warmup (warm-up runs per cell, default 1: recorded in runs.csv with
warmup=1, left out of every summary), bind (compact, scatter, numa, none,
omp or numactl; passed as uts --bind; default compact, pool: none), smt
(yes: --smt), order_seed (the seed of the per-round shuffles; default
random, recorded in machine.json). Runs go in rounds: every warm-up round,
then every repetition round; each round runs every cell once, in an order
shuffled per round. See docs/studies.md for the files, the statistics and
the figures.

Exit status: 0 done; 1 a run failed or a result was wrong; 2 bad usage or a
bad study file; 130 interrupted (resume with --resume).
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import json

from utstools import figure_formats
from utstools import study_common as common
from utstools.common import Parser
from utstools.study_common import fail_usage, note

DEFAULT_CONFIG = {"scaling": "default", "hierarchy": "hierarchy", "pool": "pool", "schedulers": "schedulers"}
# Bad usage, at the top or in a KIND: one line naming the tool, exit status 2.
ONE_LINE = {"error_name": common.PROG, "error_hint": "see scripts/study --help"}


def kind_module(kind):
    if kind == "pool":
        from utstools import study_pool
        return study_pool
    if kind == "schedulers":
        from utstools import study_schedulers
        return study_schedulers
    from utstools import study_scaling
    return study_scaling


def parse_args(argv):
    ap = Parser(prog="scripts/study", description=" ".join(__doc__.split("\n\n")[0].split()),
                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__, **ONE_LINE)
    sub = ap.add_subparsers(dest="kind", metavar="KIND", parser_class=Parser)
    for kind in common.KINDS:
        p = sub.add_parser(kind, help="a %s study" % kind, formatter_class=argparse.RawDescriptionHelpFormatter,
                           epilog=__doc__, **ONE_LINE)
        p.add_argument("--out", required=True, help="output folder (refused if it exists, unless --resume)")
        p.add_argument("--resume", action="store_true", help="finish the study in --out: run what is missing")
        p.add_argument("--uts", help="the uts binary (default: build/uts, built if missing)")
        p.add_argument("--config", help="configs/studies/NAME.conf or a study file (default: %s)"
                       % DEFAULT_CONFIG[kind])
        p.add_argument("--quick", action="store_true", help="apply the study file's [quick] section")
        p.add_argument("--reps", type=int, help="measured repetitions per cell")
        p.add_argument("--warmup", type=int, help="warm-up runs per cell (recorded, not summarized)")
        p.add_argument("--bind", choices=common.BINDS, help="how runs are pinned (uts --bind)")
        p.add_argument("--smt", action="store_true", help="let compact/scatter use SMT siblings (uts --smt)")
        p.add_argument("--order-seed", dest="order_seed", type=int, help="seed of the run order's shuffles")
        p.add_argument("--timeout", type=float, default=3600, help="seconds per run before it counts as failed")
        kind_module(kind).add_arguments(p)
    args = ap.parse_args(argv)
    if args.kind is None:
        fail_usage("give a KIND: %s (see scripts/study --help)" % ", ".join(common.KINDS))
    return args


def load(args, mod):
    name = args.config or DEFAULT_CONFIG[args.kind]
    path = common.config_path(name)
    if not os.path.isfile(path):
        fail_usage("--config %s: no such study file (%s)" % (name, path))
    try:
        values, text = common.read_config(path, args.quick)
        d = mod.definition(values, args)
    except (OSError, ValueError) as e:
        fail_usage("%s: %s" % (os.path.relpath(path), e))
    config = {"name": os.path.splitext(os.path.basename(path))[0], "file": os.path.abspath(path),
              "quick": args.quick, "text": text}
    return d, config


def plan_cells(mod, d):
    try:
        return mod.cells(d)
    except ValueError as e:
        fail_usage("bad study definition: %s" % e)


def probe(launcher):
    """One tiny run pinned as the study pins: its record gives the binary's
    build, the topology and a placement."""
    cmd, env = launcher.probe_command()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        rec = json.loads(proc.stdout.splitlines()[0]) if proc.returncode == 0 and proc.stdout else None
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        proc, rec = None, None
    if rec is None:
        why = proc.stderr.strip().splitlines()[:1] if proc is not None else ["could not start it"]
        common.fail_run("the probe run of %s failed: %s" % (cmd[0], " ".join(why) or "no JSON record"))
    return rec


def run_one(cmd, env, timeout, where):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise common.StudyFailed("%s: no result within %.0f s" % (where, timeout))
    rec = None
    try:
        rec = json.loads(proc.stdout.splitlines()[0]) if proc.stdout.strip() else None
    except (ValueError, IndexError):
        rec = None
    return proc, rec


def on_sigterm(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    figure_formats.formats("study")  # a bad UTS_FIGURE_FORMATS: exit 2 before any run
    mod = kind_module(args.kind)
    d, config = load(args, mod)
    out = os.path.abspath(args.out)
    machine_path = os.path.join(out, "machine.json")
    if os.path.exists(out) and not args.resume:
        fail_usage("%s exists: give a new --out, or --resume to finish the study in it" % args.out)
    if args.resume and not os.path.isfile(machine_path):
        fail_usage("--resume: %s has no machine.json (no study was started there)" % args.out)
    # A kind that reads its cells from the binary (schedulers: uts
    # --list-schedulers) plans them once the binary is known.
    discovers = hasattr(mod, "discover")
    if not discovers:
        cells = plan_cells(mod, d)
    binary = common.resolve_binary(args.uts)
    fallbacks = []
    if discovers:
        mod.discover(d, binary, fallbacks)
        cells = plan_cells(mod, d)
    launcher = mod.Launcher(binary, d, fallbacks)
    mod.check_binary(launcher, d)
    rec = probe(launcher)
    command_line = [os.path.relpath(sys.argv[0], common.ROOT) if sys.argv[0].startswith(common.ROOT)
                    else sys.argv[0]] + list(argv)
    extra = {"mpirun": mod.mpirun_facts(d)} if hasattr(mod, "mpirun_facts") else {}
    if hasattr(mod, "extra_facts"):
        extra.update(mod.extra_facts(d, launcher))
    facts = common.machine_facts(args.kind, config, d, binary, rec, command_line, fallbacks, extra)

    if args.resume:
        old = common.read_json(machine_path)
        common.check_resume(old, args.kind, d, facts)
        seed = old["definition"]["order_seed"]
        if d.get("order_seed") not in (None, seed):
            fail_usage("--resume: --order-seed %s differs from the study's %s" % (d["order_seed"], seed))
        # A study resumed in another batch job says which one.
        old["resumed"].append({"utc": common.utc_now(), "command_line": command_line, "binary": facts["binary"],
                               "batch": facts["batch"], "runtime_env": facts["runtime_env"]})
        for entry in fallbacks:
            if entry not in old["fallbacks"]:
                old["fallbacks"].append(entry)
        old["finished_utc"] = None
        facts = old
    else:
        seed = d.get("order_seed")
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 31)
        facts["definition"]["order_seed"] = seed
        os.makedirs(out)
    runs = common.plan(cells, d["reps"], d["warmup"], seed)
    facts["runs"] = {"planned": len(runs), "warmup_per_cell": d["warmup"], "reps_per_cell": d["reps"],
                     "cells": len(cells)}
    common.write_json(machine_path, facts)  # before the first run
    common.say_fallbacks(facts["fallbacks"])

    log = common.RunLog(os.path.join(out, "runs.csv"), common.RUN_ID_COLUMNS + [
        c for c in mod.RUN_COLUMNS if c not in common.RUN_ID_COLUMNS], args.resume,
        mod.rows_per_run(d) if hasattr(mod, "rows_per_run") else None)
    todo = [(i, run) for i, run in enumerate(runs, 1)
            if (run[0].key, str(run[1]), str(run[2])) not in log.done]
    if args.resume:
        note("--resume: %d of %d runs already in runs.csv; %d to run" % (len(runs) - len(todo), len(runs),
                                                                          len(todo)))
    checker = mod.Checker()
    tty = sys.stderr.isatty()
    signal.signal(signal.SIGTERM, on_sigterm)
    done = len(runs) - len(todo)
    try:
        for order, (cell, warmup, rep) in todo:
            where = "%s %s" % (cell.text(), "warm-up %d/%d" % (rep, d["warmup"]) if warmup
                               else "rep %d/%d" % (rep, d["reps"]))
            print(("\r\033[K" if tty else "") + "[run %d/%d] %s" % (order, len(runs), where),
                  end="" if tty else "\n", file=sys.stderr, flush=True)
            if args.kind == "pool":
                cmd, env, pinning = launcher.command(cell, warmup, rep, out)
            else:
                cmd, env, pinning = launcher.command(cell)
            started = common.utc_now()
            proc, rec = run_one(cmd, env, args.timeout, where)
            if rec is not None and hasattr(checker, "pre_check"):
                checker.pre_check(rec, cell, where)
            if proc.returncode != 0 or rec is None:
                raise common.StudyFailed("%s: uts exited %d: %s" % (where, proc.returncode,
                                                                     " ".join(proc.stderr.split())[:500]))
            checker.check(rec, cell, where)
            new = mod.rows(rec, cell, pinning)
            for r in new:
                r.update(cell=cell.key, warmup=warmup, rep=rep, order=order, time_utc=started)
            log.append(new)
            done += 1
    except KeyboardInterrupt:
        print(file=sys.stderr)
        note("interrupted: %d of %d runs are in %s/runs.csv; finish the study with the same command and --resume"
             % (done, len(runs), args.out))
        return 130
    except common.StudyFailed as e:
        common.fail_run("%s (%d of %d runs in runs.csv; after fixing the cause, --resume finishes the study)"
                        % (e, done, len(runs)))
    if tty:
        print(file=sys.stderr)

    rows = common.read_rows(os.path.join(out, "runs.csv"))
    columns, summary = mod.summarize(rows, d)
    common.write_csv(os.path.join(out, "summary.csv"), columns, summary)
    if hasattr(mod, "write_extras"):
        mod.write_extras(out, rows, summary)
    hosts = sorted({h for r in rows for h in (r.get("hosts") or "").split(";") if h})
    if hosts:
        facts["machine"]["hosts"] = hosts
    files = []
    if facts["software"]["matplotlib"] is not None:
        files = mod.plot(out, facts)
    facts["finished_utc"] = common.utc_now()
    facts["figures"] = sorted(os.path.basename(f) for f in files)
    common.write_json(machine_path, facts)
    warm = sum(1 for r in runs if r[1])
    note("%s study: %d runs (%d warm-up), every result checked; wrote runs.csv, summary.csv, machine.json and "
         "%d figure files to %s" % (args.kind, len(runs), warm, len(files), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
