# ReFrame check for uts: runs the 4-million-node sample trees at 1, 2 and all
# cores, holds each run to its exact tree size and reports its rate in nodes/s.
# How to run it, the references and adding a system: docs/reframe.md.
import csv
import os
import re
import shutil

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, performance_function, run_after,
                                   run_before, sanity_function, variable)
from reframe.core.exceptions import ReframeError

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))

# The sample trees of about 4 M nodes: a fraction of a second each on one
# core, so the whole grid fits in a CI step. UTS_REFRAME_TREES (names of
# presets, comma-separated) runs others, e.g. T1L,T3L (100 M nodes each);
# UTS_REFRAME_THREADS sets the thread counts, e.g. 1,2,4,8,16,all
# ('all': every CPU of the partition, its processor.num_cpus in the settings).
TREES = os.environ.get('UTS_REFRAME_TREES', 'T1,T2,T3,T4,T5').split(',')
THREADS = os.environ.get('UTS_REFRAME_THREADS', '1,2,all').split(',')
for _count in THREADS:
    if _count != 'all' and not (_count.isdigit() and int(_count) > 0):
        raise ValueError(f"UTS_REFRAME_THREADS: '{_count}' is neither a thread count "
                         f"nor 'all'")


def perf_name(tree, threads):
    """The name of the one performance variable of a (tree, threads) run."""
    return f'{tree}_{threads}'


def expected_size_of(tree, reference_csv, preset_dir):
    """The exact size of a sample tree: tests/data/reference-trees.csv's
    `size` column, or, for the trees it lists without results, the preset's
    `expect-size` (the published figure the preset file cites)."""
    with open(reference_csv, newline='') as f:
        for row in csv.DictReader(f):
            if row['name'] == tree and row['size']:
                return int(row['size'])
    preset = os.path.join(preset_dir, tree + '.conf')
    if os.path.exists(preset):
        with open(preset) as f:
            for line in f:
                m = re.match(r'\s*expect-size\s*=\s*(\d+)', line)
                if m:
                    return int(m.group(1))
    return None


@rfm.simple_test
class UtsTreeSearch(rfm.RunOnlyRegressionTest):
    descr = 'uts on a sample tree: exact size, rate in nodes/s'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    tags = {'uts', 'benchmark'}
    maintainers = ['uts']

    tree = parameter(TREES)
    threads = parameter(THREADS)

    # The binary: UTS_BINARY, else `uts` on PATH; or -S uts_binary=PATH.
    uts_binary = variable(str, value=os.environ.get('UTS_BINARY', 'uts'))
    # The tree size sanity demands; None takes it from reference_csv. Give
    # a wrong one (-S UtsTreeSearch.expected_size=1) to see sanity fail.
    expected_size = variable(int, type(None), value=None)
    reference_csv = variable(str, value=os.path.join(SOURCE_ROOT, 'tests', 'data',
                                                     'reference-trees.csv'))
    preset_dir = variable(str, value=os.path.join(SOURCE_ROOT, 'configs', 'presets'))

    # References per system:partition, one entry per performance variable
    # (TREE_THREADS). A figure outside (value*(1+lower), value*(1+upper))
    # fails the performance stage; None leaves that side open.
    reference = {
        # Any system without its own entry (this machine, a laptop, a CI
        # runner, the local Slurm of the tests): no target. The rates are
        # reported and logged, never judged: on a shared 2-core VM they move
        # several-fold from one run to the next.
        '*': {perf_name(t, n): (0, None, None, 'nodes/s')
              for t in TREES for n in THREADS},
        # A real cluster pins the figures measured there, e.g. (the values
        # are placeholders, not measurements):
        # 'mycluster:compute': {
        #     'T1_1': (2.6e7, -0.10, None, 'nodes/s'),     # 10% below fails
        #     'T1_all': (6.0e8, -0.15, None, 'nodes/s'),
        #     'T3_all': (2.0e8, -0.20, 0.50, 'nodes/s'),   # upper bound too
        # },
    }

    @run_after('init')
    def look_up_expected_size(self):
        if self.expected_size is None:
            try:
                self.expected_size = expected_size_of(self.tree, self.reference_csv,
                                                      self.preset_dir)
            except OSError as e:
                raise ReframeError(f'cannot read the reference sizes: {e}') from None
            if self.expected_size is None:
                raise ReframeError(f'no expected size for tree {self.tree} in '
                                   f'{self.reference_csv} or {self.preset_dir}; '
                                   f'give one with -S expected_size=N')

    @run_after('setup')
    def set_command(self):
        # Where uts runs on this host, a missing binary is said here, in one
        # line, not as a sanity failure with "command not found" in its log.
        if (self.current_partition.scheduler.registered_name == 'local'
                and not shutil.which(self.uts_binary)):
            raise ReframeError(f"no uts binary '{self.uts_binary}': set UTS_BINARY or "
                               f"-S uts_binary=PATH")
        self.executable = self.uts_binary
        self.executable_opts = ['--preset', self.tree, '--verify', '--no-progress']
        if self.threads == 'all':
            count = self.current_partition.processor.num_cpus
        else:
            count = int(self.threads)
        # With no count known, uts takes every core it is given.
        if count:
            self.num_tasks = 1
            self.num_cpus_per_task = count
            self.executable_opts += ['--threads', str(count)]
            self.env_vars['OMP_NUM_THREADS'] = str(count)

    @run_before('run')
    def bind_under_srun(self):
        # Cores bound by Slurm, threads placed on them by the OpenMP runtime.
        # ReFrame's srun launcher itself passes --cpus-per-task to srun,
        # which Slurm 22.05 no longer takes from the job's #SBATCH line.
        if self.job.launcher.registered_name == 'srun':
            self.job.launcher.options += ['--cpu-bind=cores']
            self.env_vars.setdefault('OMP_PLACES', 'cores')
            self.env_vars.setdefault('OMP_PROC_BIND', 'close')

    @sanity_function
    def exact_tree(self):
        size = sn.extractsingle(r'^Tree size = (\d+)', self.stdout, 1, int)
        return sn.all([
            sn.assert_found(r'^Verify: OK', self.stdout,
                            msg='uts printed no "Verify: OK" line'),
            sn.assert_eq(size, self.expected_size,
                         msg='tree size {0}, expected {1}'),
        ])

    @performance_function('nodes/s')
    def rate(self):
        return sn.extractsingle(r'performance = (\d+) nodes/sec', self.stdout, 1, float)

    @run_before('performance')
    def name_the_rate(self):
        self.perf_variables = {perf_name(self.tree, self.threads): self.rate()}
