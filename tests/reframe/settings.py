# ReFrame settings for the uts check: `local` runs uts on this machine with no
# scheduler (the default), `slurm` submits each run as a Slurm job and starts
# it with srun (--system slurm). docs/reframe.md says how to add a cluster.
import os
import shlex


def _cpus_here():
    # The CPUs this process may run on (a cgroup or taskset can give fewer
    # than the machine has): what uts itself takes as "all cores".
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _slurm_processor():
    # CPUs of one compute node, for the check's "all" thread count; unset,
    # the "all" runs take whatever CPUs the job is given.
    cpus = os.environ.get('UTS_SLURM_CPUS', '')
    return {'num_cpus': int(cpus)} if cpus.isdigit() else {}


site_configuration = {
    'systems': [
        {
            'name': 'local',
            'descr': 'this machine: uts runs directly, no scheduler',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'default',
                    'descr': 'the CPUs of this process',
                    'scheduler': 'local',
                    'launcher': 'local',
                    # ReFrame's own `builtin` environment: uts is built
                    # beforehand (Meson, Spack or a module), the check
                    # compiles nothing.
                    'environs': ['builtin'],
                    # One run at a time: two at once would share the cores
                    # and halve each other's rates.
                    'max_jobs': 1,
                    'processor': {'num_cpus': _cpus_here()},
                },
            ],
        },
        {
            'name': 'slurm',
            'descr': 'a Slurm cluster: one job per run, uts started by srun',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'batch',
                    'descr': 'the partition UTS_SLURM_ACCESS names (default: the default one)',
                    'scheduler': 'squeue',
                    'launcher': 'srun',
                    # e.g. UTS_SLURM_ACCESS='--partition=compute --account=proj42'
                    'access': shlex.split(os.environ.get('UTS_SLURM_ACCESS', '')),
                    'environs': ['builtin'],
                    'max_jobs': 8,
                    'time_limit': '10m',
                    'processor': _slurm_processor(),
                },
            ],
        },
    ],
}
