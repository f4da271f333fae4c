"""The scaling and hierarchy kinds of scripts/study: cells over trees,
thread counts, MPI ranks, steal protocols, steal and victim policies and
locality settings (plus a --sequential cell per tree), each run checked
exactly against the preset and every other run of its tree."""
import json
import os
import shutil
import subprocess

from utstools import study_common as common
from utstools import study_data

KEYS = {"description", "trees", "threads", "protocol", "steal", "victim", "victims", "init", "domains",
        "remote_delay", "remote_delays", "ranks", "sequential", "reps", "warmup", "bind", "pin", "smt", "order_seed"}

RUN_COLUMNS = study_data.RUN_COLUMNS

# A policy: (protocol, steal, victim, init, domains, remote_delay); None = not passed to uts.
POLICY_OPTIONS = (("protocol", "--protocol"), ("steal", "--steal"), ("victim", "--victim"), ("init", "--init"),
                  ("domains", "--domains"), ("remote_delay", "--remote-delay"))

# Open MPI refuses to start as root without these; harmless otherwise.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def add_arguments(ap):
    ap.add_argument("--trees", help="comma-separated preset names")
    ap.add_argument("--threads", help="e.g. 1,2,4 or 1..all (all = CPUs in this process's affinity)")
    ap.add_argument("--protocol", help="comma-separated: split, locked, request, chaselev, default")
    ap.add_argument("--steal", help="comma-separated: half, one, chunk:K, default (each protocol's own)")
    ap.add_argument("--victim", help="comma-separated: random, linear, tree, hier, default")
    ap.add_argument("--init", help="comma-separated: root, balanced")
    ap.add_argument("--domains", help="comma-separated: numa, l3, package, N (virtual), default (not passed)")
    ap.add_argument("--remote-delay", dest="remote_delay", help="comma-separated ns, e.g. 0,1000,10000")
    ap.add_argument("--ranks", help="comma-separated MPI ranks (each run under mpirun -np R); none: no mpirun")
    ap.add_argument("--sequential", choices=["yes", "no"], help="a --sequential cell per tree (default yes)")
    ap.add_argument("--preset-dir", help="read presets from DIR (passed to uts as UTS_PRESET_DIR)")


def _policy_list(values, key):
    if key not in values:
        return [None]
    items = [None if x == "default" else x for x in study_data.parse_list(values[key])]
    if not items:
        raise ValueError("%s needs at least one value" % key)
    return items


def definition(values, args):
    """The resolved study (JSON-able) from the study file's keys and the
    command line's overrides; ValueError on a bad definition."""
    for plural, key in (("victims", "victim"), ("remote_delays", "remote_delay")):
        if plural in values:
            if key in values:
                raise ValueError("both %s and %s given" % (key, plural))
            values[key] = values.pop(plural)
    unknown = sorted(set(values) - KEYS)
    if unknown:
        raise ValueError("unknown keys %s" % ", ".join(unknown))
    if args.protocol is not None:  # the file's steal and victim were chosen for its own protocols
        for key in ("steal", "victim"):
            if getattr(args, key) is None:
                values.pop(key, None)
    overrides = {}
    for key in ("trees", "threads", "protocol", "steal", "victim", "init", "domains", "remote_delay", "ranks",
                "sequential"):
        if getattr(args, key) is not None:
            values[key] = overrides[key] = str(getattr(args, key))
    if "trees" not in values:
        raise ValueError("no trees given")
    d = {"description": values.get("description", ""),
         "trees": study_data.parse_list(values["trees"]),
         "threads": study_data.parse_threads(values.get("threads", "1..all"), len(common.usable_cpus())),
         "protocol": _policy_list(values, "protocol"),
         "steal": _policy_list(values, "steal"),
         "victim": _policy_list(values, "victim"),
         "init": study_data.parse_list(values.get("init", "root")),
         "domains": _policy_list(values, "domains"),
         "remote_delay": study_data.parse_delays(values["remote_delay"]) if "remote_delay" in values else [None],
         "ranks": study_data.parse_ranks(values["ranks"]) if "ranks" in values else None,
         "sequential": common.parse_bool(values.get("sequential", "yes"), "sequential"),
         "preset_dir": os.path.abspath(args.preset_dir) if args.preset_dir else None,
         "overrides": overrides}
    if not d["trees"] or not d["init"] or not d["remote_delay"]:
        raise ValueError("trees, init and remote_delay need at least one value")
    d.update(common.common_keys(values, args, overrides))
    return d


def _policies(d):
    return [(pr, s, v, i, dm, delay) for pr in d["protocol"] for s in d["steal"] for v in d["victim"]
            for i in d["init"] for dm in d["domains"] for delay in d["remote_delay"]]


def policy_flags(policy):
    flags = []
    for (_, option), value in zip(POLICY_OPTIONS, policy):
        if value is not None:
            flags += [option, str(value)]
    return flags


def policy_text(policy):
    return " ".join("%s=%s" % (name, value) for (name, _), value in zip(POLICY_OPTIONS, policy)
                    if value is not None)


def min_threads(policy):
    """The fewest threads a policy runs with: N virtual domains need N threads."""
    domains = policy[4]
    return int(domains) if domains is not None and str(domains).isdigit() else 1


class Cell:
    def __init__(self, tree, policy=None, ranks=None, threads=1, sequential=False):
        self.tree, self.policy, self.ranks, self.threads, self.sequential = tree, policy, ranks, threads, sequential
        if sequential:
            self.key = "%s sequential" % tree
        else:
            parts = [tree, "threads=%d" % threads] + (["ranks=%d" % ranks] if ranks is not None else [])
            parts += ["%s=%s" % (name, value) for (name, _), value in zip(POLICY_OPTIONS, policy)
                      if value is not None]
            self.key = " ".join(parts)

    def text(self):
        if self.sequential:
            return "%s --sequential" % self.tree
        return "%s %sthreads=%d %s" % (self.tree, "ranks=%d " % self.ranks if self.ranks else "", self.threads,
                                       policy_text(self.policy))


def cells(d):
    """Every cell of the study; cells with fewer threads than N virtual
    domains cannot run and are left out (said on stderr)."""
    policies = _policies(d)
    out = [Cell(tree, policy, r, p) for tree in d["trees"] for policy in policies
           for r in (d["ranks"] or [None]) for p in d["threads"]]
    runnable = [c for c in out if c.threads >= min_threads(c.policy)]
    if not runnable:
        raise ValueError("every cell has fewer threads than virtual domains")
    for dm in sorted({str(c.policy[4]) for c in out if c not in runnable}):
        common.note("skipping threads %s with domains=%s: fewer threads than domains"
                    % (",".join(str(p) for p in d["threads"] if p < int(dm)), dm))
    if d["sequential"]:
        runnable = [Cell(tree, sequential=True) for tree in d["trees"]] + runnable
    return runnable


# ---------------------------------------------------------------- launching

def usable_cores():
    """Physical cores among the usable CPUs (what mpirun's --bind-to core and
    PE=N count); the usable CPUs where the topology cannot be read."""
    cores = set()
    for cpu in common.usable_cpus():
        base = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
        try:
            with open(base + "physical_package_id") as f, open(base + "core_id") as g:
                cores.add((f.read().strip(), g.read().strip()))
        except OSError:
            return len(common.usable_cpus())
    return len(cores) or len(common.usable_cpus())


def mpirun_launch(ranks, threads, bind):
    """How one cell starts under mpirun: (mpirun arguments before the binary,
    OMP variables to set (None: unset), the pinning text for runs.csv).
    bind other than none: each rank bound to `threads` cores (--map-by
    slot:PE=T --bind-to core) with OMP_PLACES=cores OMP_PROC_BIND=close,
    exported with -x, when ranks x threads fit on the usable cores;
    otherwise, and with bind none, --bind-to none and the OMP binding
    variables unset. --oversubscribe only where ranks x threads exceed the
    usable CPUs (or ranks the cores, Open MPI's slots)."""
    pes = ranks * threads
    args = ["mpirun", "-np", str(ranks)]
    words = ["mpirun"]
    if pes > len(common.usable_cpus()) or ranks > usable_cores():
        args.append("--oversubscribe")
        words.append("oversubscribe")
    if bind != "none" and pes <= usable_cores():
        args += ["--map-by", "slot:PE=%d" % threads, "--bind-to", "core",
                 "-x", "OMP_PLACES=cores", "-x", "OMP_PROC_BIND=close"]
        words += ["map-by slot:PE=%d" % threads, "bind-to core"]
        omp = {"OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}
    else:
        args += ["--bind-to", "none"]
        words.append("bind-to none")
        omp = {"OMP_PLACES": None, "OMP_PROC_BIND": None}
    return args, omp, " ".join(words)


class Launcher:
    """Commands for the runs of one study: pinning decided once (and its
    fallbacks recorded), mpirun per cell."""

    def __init__(self, binary, d, fallbacks):
        self.binary, self.d = binary, d
        self.has_bind = common.binary_has_bind(binary)
        self.prefix, self.flags, self.env_changes, self.text = common.pin_plan(d["bind"], d["smt"], self.has_bind,
                                                                              fallbacks)
        if d["preset_dir"]:
            os.environ["UTS_PRESET_DIR"] = d["preset_dir"]

    def command(self, cell):
        tail = ["--format", "json", "--no-progress"]
        if cell.sequential:
            uts = [self.binary, "--preset", cell.tree, "--sequential"] + self.flags + tail
            return self.prefix + uts, common.apply_env(self.env_changes), self.text
        uts = [self.binary, "--preset", cell.tree, "--threads", str(cell.threads)] + policy_flags(cell.policy)
        if cell.ranks is None:
            return self.prefix + uts + self.flags + tail, common.apply_env(self.env_changes), self.text
        launch, omp, text = mpirun_launch(cell.ranks, cell.threads, self.d["bind"])
        changes = dict(omp)
        changes.update(MPI_ENV)
        return launch + uts + tail, common.apply_env(changes), text

    def probe_command(self):
        """A one-node tree at the study's largest thread count, pinned as the
        study pins: the record gives the build, topology and placement."""
        p = max(self.d["threads"])
        cmd = [self.binary, "-t", "balanced", "-b", "1", "-d", "0", "--threads", str(p), "--format", "json",
               "--no-progress"]
        return self.prefix + cmd + self.flags, common.apply_env(self.env_changes)


def one_line(text):
    """uts's message on one line, without the banner mpirun prints after it."""
    kept = []
    for line in text.splitlines():
        if line.startswith("-----"):
            break
        kept.append(line)
    return " ".join(" ".join(kept).split()) or " ".join(text.split())


def check_binary(launcher, d):
    """Try each policy (and the sequential run) on a one-node tree, pinned as
    the study pins: a combination uts rejects is a bad study definition,
    found before hours of runs. With ranks, also start the first policy once
    under mpirun with the most ranks."""
    policies = _policies(d)
    tail = ["--format", "json", "--no-progress"]
    tries = [(policy_text(p), [launcher.binary, "-t", "balanced", "-b", "1", "-d", "0", "--threads",
                               str(max(1, min_threads(p)))] + policy_flags(p)) for p in policies]
    if d["sequential"]:
        tries.append(("--sequential", [launcher.binary, "-t", "balanced", "-b", "1", "-d", "0", "--sequential"]))
    for what, cmd in tries:
        proc = subprocess.run(launcher.prefix + cmd + launcher.flags + tail, capture_output=True, text=True,
                              timeout=60, env=common.apply_env(launcher.env_changes))
        if proc.returncode != 0:
            common.fail_usage("bad study definition: uts rejects %s: %s" % (what, one_line(proc.stderr)))
    ranks = d["ranks"]
    if ranks:
        if not shutil.which("mpirun"):
            common.fail_usage("ranks %s need mpirun, which is not on PATH (apt-get install openmpi-bin)"
                              % ",".join(map(str, ranks)))
        policy = policies[0]
        cmd = ["mpirun", "-np", str(max(ranks)), "--oversubscribe", "--bind-to", "none", launcher.binary, "-t",
               "balanced", "-b", "1", "-d", "0", "--threads", str(max(1, min_threads(policy)))] \
            + policy_flags(policy) + tail
        env = dict(os.environ, **MPI_ENV)
        env.pop("OMP_NUM_THREADS", None)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
            ran = json.loads(proc.stdout)["engine"].get("ranks") if proc.returncode == 0 else None
        except (subprocess.TimeoutExpired, ValueError, KeyError) as e:
            proc, ran = None, "%s" % e
        if ran != max(ranks):
            why = one_line(proc.stderr)[:300] if proc is not None and proc.returncode != 0 else (
                "it reported %s ranks" % ran if proc is not None else ran)
            common.fail_usage("cannot run %s as %d MPI ranks: %s" % (launcher.binary, max(ranks), why))


def mpirun_facts(d):
    if not d["ranks"]:
        return None
    return {
        "path": shutil.which("mpirun"),
        "version": (common.text_of(["mpirun", "--version"]).strip().splitlines() or [""])[0],
        "bind": d["bind"],
        "usable_cores": usable_cores(),
        "launches": {"ranks=%d threads=%d" % (r, t): {"command": " ".join(mpirun_launch(r, t, d["bind"])[0]),
                                                       "pinning": mpirun_launch(r, t, d["bind"])[2]}
                     for r in d["ranks"] for t in d["threads"]},
    }


# ---------------------------------------------------------------- checking and recording

class Checker:
    """Every result exact: against the preset's expected values and against
    every other run of the same tree (sequential runs included)."""

    def __init__(self):
        self.seen = {}

    def check(self, rec, cell, where):
        res = rec["results"]
        got = (res["size"], res["depth"], res["leaves"], res["checksum"])
        if rec.get("status") != "complete":
            raise common.StudyFailed("%s: run ended with status %s" % (where, rec.get("status")))
        exp = rec.get("expected") or {}
        for key in ("size", "depth", "leaves"):
            if exp.get(key) is not None and exp[key] != res[key]:
                raise common.StudyFailed("MISMATCH %s: %s = %d, the preset expects %d" % (where, key, res[key],
                                                                                          exp[key]))
        seen = self.seen.get(cell.tree)
        if seen and seen[0] != got:
            raise common.StudyFailed("MISMATCH %s: %s differs from an earlier run of %s (%s: %s)"
                                     % (where, got, cell.tree, seen[1], seen[0]))
        self.seen.setdefault(cell.tree, (got, where))
        if sum(t["nodes"] for t in rec["threads"]) != res["size"]:
            raise common.StudyFailed("MISMATCH %s: per-thread nodes do not sum to the tree size" % where)
        if cell.ranks is not None:
            engine = rec["engine"]
            if (not engine.get("mpi") or engine.get("ranks") != cell.ranks
                    or len(rec.get("ranks", [])) != cell.ranks or len(rec["threads"]) != cell.ranks * cell.threads):
                raise common.StudyFailed("%s: asked for %d ranks x %d threads, uts reports mpi=%s ranks=%s and %d "
                                         "thread records" % (where, cell.ranks, cell.threads, engine.get("mpi"),
                                                             engine.get("ranks"), len(rec["threads"])))


def rows(rec, cell, pinning):
    """The run's runs.csv row (a list of one). Policy columns are what uts
    reports it ran; steal columns are empty for a --sequential run."""
    res, agg, engine = rec["results"], rec["aggregates"], rec["engine"]
    sequential = engine.get("kind") == "sequential"
    steals = agg.get("steals") or 0
    doms = rec.get("domains")
    ranks = engine.get("ranks", 1)
    per_rank = rec.get("ranks")

    def global_sum(field):
        return sum(r[field] for r in per_rank) if per_rank is not None else None

    def steal(value):
        return None if sequential else value

    row = {
        "tree": cell.tree, "engine": "sequential" if sequential else "parallel",
        "threads": 1 if sequential else cell.threads, "ranks": ranks,
        "pes": engine.get("pes", ranks * (1 if sequential else cell.threads)),
        "protocol": steal(engine.get("protocol")), "steal": steal(engine.get("steal")),
        "victim": steal(engine.get("victim")), "init": steal(engine.get("init")),
        "domains": engine.get("domains"), "remote_delay_ns": engine.get("remote_delay_ns", 0),
        "seconds": rec["timing"]["seconds"], "nodes_per_sec": rec["timing"]["nodes_per_sec"],
        "size": res["size"], "depth": res["depth"], "leaves": res["leaves"], "checksum": res["checksum"],
        "steal_attempts": steal(agg.get("steal_attempts")), "steals": steal(agg.get("steals")),
        "nodes_stolen": steal(agg.get("nodes_stolen")), "deques_examined": steal(agg.get("deques_examined")),
        "shares": steal(agg.get("shares")), "reclaims": steal(agg.get("reclaims")),
        "steal_success_rate": steal(agg.get("steal_success_rate")),
        "nodes_per_steal": steal(agg.get("nodes_per_steal")),
        "deques_examined_per_steal": steal(agg["deques_examined"] / steals if steals else 0.0),
        "node_share_variance": agg.get("node_share_variance"),
        "node_share_relative_variance": agg.get("node_share_relative_variance"),
        "idle_seconds": agg.get("idle_seconds"),
        "thread_nodes": ";".join(str(t["nodes"]) for t in rec["threads"]),
        "requests_sent": agg.get("requests_sent"), "requests_answered": agg.get("requests_answered"),
        "requests_refused": agg.get("requests_refused"), "requests_withdrawn": agg.get("requests_withdrawn"),
        "mean_request_wait_seconds": agg.get("mean_request_wait_seconds"),
        "domain_count": doms["count"] if doms else None,
        "steal_local": engine.get("steal_local"), "steal_remote": engine.get("steal_remote"),
        "local_steal_attempts": agg.get("local_steal_attempts"), "local_steals": agg.get("local_steals"),
        "local_steal_nodes": agg.get("local_steal_nodes"),
        "remote_steal_attempts": agg.get("remote_steal_attempts"), "remote_steals": agg.get("remote_steals"),
        "remote_steal_nodes": agg.get("remote_steal_nodes"),
        "domain_node_share_variance": doms["node_share_variance"] if doms else None,
        "domain_nodes": ";".join(str(x["nodes"]) for x in doms["per_domain"]) if doms else None,
        "global_requests_sent": global_sum("requests_sent"), "global_steals": global_sum("steals"),
        "global_nodes_stolen": global_sum("nodes_received"),
        "work_inflation": agg.get("work_inflation"),
    }
    row.update((c, agg.get(c)) for c in study_data.BREAKDOWN_COLUMNS)  # absent before the time breakdown: empty
    row.update(common.placement_fields(rec, pinning))
    return [row]


def summarize(all_rows, d):
    return study_data.SUMMARY_COLUMNS, study_data.summarize(all_rows)


def plot(out, machine):
    from utstools import study_plots
    return study_plots.plot_all(out, machine)
