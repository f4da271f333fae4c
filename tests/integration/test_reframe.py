#!/usr/bin/python3
"""The ReFrame check (tests/reframe/uts_tree_search.py) run by ReFrame on the
local system (or, with --system slurm, as jobs of the Slurm that
SLURM_CONF names, already running) with the built uts: T1 and T3 at 1 thread and at all cores pass,
each with one rate in nodes/s equal to the figure uts printed; given a wrong
expected size (-S), the run fails its sanity stage and ReFrame exits non-zero.

ReFrame is the one in the venv scripts/test makes under the build folder
(REFRAME, the third argument), or UTS_REFRAME when set; without it the test
skips (77). Everything ReFrame writes goes to a temporary folder.

usage: test_reframe.py SOURCE_ROOT UTS_BINARY [REFRAME] [--system local|slurm]
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

from uts_check import Tally

CHECK = 'UtsTreeSearch'
PASSING = [('T1', '1'), ('T1', 'all'), ('T3', '1'), ('T3', 'all')]


def reference_size(source_root, tree):
    with open(os.path.join(source_root, 'tests', 'data', 'reference-trees.csv'), newline='') as f:
        for row in csv.DictReader(f):
            if row['name'] == tree:
                return int(row['size'])
    raise SystemExit('%s has no row in reference-trees.csv' % tree)


def run_reframe(reframe, source_root, uts, system, work, name, cases, extra=()):
    """Run the check's `cases` ((tree, threads) pairs) in work/name; returns
    (exit status, ReFrame's output, the run report or None)."""
    out = os.path.join(work, name)
    home = os.path.join(out, 'home')
    os.makedirs(home)
    report = os.path.join(out, 'report.json')
    cmd = [reframe, '--nocolor',
           '-C', os.path.join(source_root, 'tests', 'reframe', 'settings.py'),
           '-c', os.path.join(source_root, 'tests', 'reframe', 'uts_tree_search.py'),
           '--system', system, '--prefix', out, '--report-file', report,
           '-S', '%s.uts_binary=%s' % (CHECK, uts)]
    for tree, threads in cases:
        cmd += ['-n', '%s%%tree=%s%%threads=%s' % (CHECK, tree, threads)]
    cmd += list(extra) + ['-r']
    # ReFrame's own log goes to TMPDIR, its results database under HOME:
    # both into the temporary folder.
    env = dict(os.environ, HOME=home, TMPDIR=out)
    for name in ('UTS_BINARY', 'UTS_REFRAME_TREES', 'UTS_REFRAME_THREADS'):
        env.pop(name, None)
    if system == 'slurm':
        # A node's CPUs, for the "all" runs: this host's, on a single-host Slurm.
        env.setdefault('UTS_SLURM_CPUS', str(os.cpu_count()))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    data = None
    if os.path.exists(report):
        with open(report) as f:
            data = json.load(f)
    return p.returncode, p.stdout + p.stderr, data


def printed_rate(case):
    """The nodes/sec figure in the job's own stdout, kept in its output dir."""
    with open(os.path.join(case['outputdir'], 'rfm_job.out')) as f:
        m = re.search(r'performance = (\d+) nodes/sec', f.read())
    return float(m.group(1)) if m else None


def main():
    args = sys.argv[1:]
    system = 'local'
    if len(args) >= 2 and args[-2] == '--system' and args[-1] in ('local', 'slurm'):
        system = args[-1]
        args = args[:-2]
    if len(args) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    source_root = os.path.abspath(args[0])
    uts = os.path.abspath(args[1])
    reframe = os.environ.get('UTS_REFRAME') or (args[2] if len(args) == 3 else '')
    if not reframe or not os.access(reframe, os.X_OK):
        print('SKIP: no ReFrame at %s (scripts/test installs reframe-hpc into a venv in '
              'the build folder; or set UTS_REFRAME)' % (reframe or '(none given)'))
        return 77
    if system == 'slurm':
        cpus = int(os.environ.get('UTS_SLURM_CPUS') or os.cpu_count())
    else:
        cpus = len(os.sched_getaffinity(0))
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix='uts-reframe-') as work:
        # The passing run.
        rc, output, report = run_reframe(reframe, source_root, uts, system, work, 'pass', PASSING)
        tally.check(rc == 0, 'ReFrame exits 0 on T1 and T3 at 1 and all threads (system %s)' % system,
                    output[-3000:])
        cases = report['runs'][0]['testcases'] if report else []
        tally.check(len(cases) == len(PASSING), 'the run report lists the %d selected cases'
                    % len(PASSING), str(len(cases)))
        for case in cases:
            label = '%s threads %s' % (case['tree'], case['threads'])
            tally.check(case['result'] == 'pass', label + ': passes', str(case.get('fail_reason')))
            tally.check(case['expected_size'] == reference_size(source_root, case['tree']),
                        label + ': expected size from reference-trees.csv', str(case['expected_size']))
            want = cpus if case['threads'] == 'all' else int(case['threads'])
            tally.check(case['executable_opts'][-2:] == ['--threads', str(want)]
                        and case['env_vars'].get('OMP_NUM_THREADS') == str(want),
                        label + ': uts runs %d threads' % want,
                        '%s %s' % (case['executable_opts'], case['env_vars']))
            perf = case.get('perfvalues') or {}
            key = '%s:%s_%s' % ({'local': 'local:default', 'slurm': 'slurm:batch'}[system],
                                case['tree'], case['threads'])
            tally.check(list(perf) == [key], label + ': one performance variable, ' + key, str(perf))
            if list(perf) == [key]:
                value, unit = perf[key][0], perf[key][4]
                tally.check(unit == 'nodes/s' and value > 0 and value == printed_rate(case),
                            label + ": its value in nodes/s is the rate uts printed",
                            '%s %s, printed %s' % (value, unit, printed_rate(case)))
                # No system here has a reference of its own: figures are not judged.
                tally.check(perf[key][2] is None and perf[key][3] is None,
                            label + ': no bounds on this system', str(perf[key]))

        # A wrong expected size must fail sanity, whatever uts's own --verify says.
        wrong = reference_size(source_root, 'T1') + 1
        rc, output, report = run_reframe(reframe, source_root, uts, system, work, 'wrong-size', [('T1', '1')],
                                         ['-S', '%s.expected_size=%d' % (CHECK, wrong)])
        tally.check(rc != 0, 'a wrong expected size: ReFrame exits non-zero', str(rc))
        tally.check('Failing phase: sanity' in output
                    and 'expected %d' % wrong in output,
                    'a wrong expected size: the failure names sanity and the sizes', output[-3000:])
        cases = report['runs'][0]['testcases'] if report else []
        tally.check(len(cases) == 1 and cases[0]['result'] == 'fail'
                    and cases[0]['fail_phase'] == 'sanity',
                    'a wrong expected size: the report says the case failed in sanity',
                    str([(c['result'], c['fail_phase']) for c in cases]))
    return tally.finish()


if __name__ == '__main__':
    sys.exit(main())
