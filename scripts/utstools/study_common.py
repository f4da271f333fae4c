"""What every study kind of scripts/study shares: usage errors, the study
file format, the output folder (refused if it exists, unless --resume),
runs.csv appended run by run, machine.json written before the first run
(one schema for every kind), the binary's provenance from a probe run,
pinning through `uts --bind`, the interleaved run order, and the fallbacks
taken when a tool is missing (said, never installed). Standard library only."""
import csv
import json
import os
import platform
import random
import re
import shlex
import shutil
import subprocess
import sys

# The root, provenance and checksum helpers every tool shares.
from utstools.common import ROOT, scripts_commit, sha256_of, text_of, utc_now  # noqa: F401

SCHEMA = 1
KINDS = ("scaling", "hierarchy", "pool", "schedulers")
BINDS = ("compact", "scatter", "numa", "none", "omp", "numactl")
PROG = "study"

# Columns every runs.csv starts with: a run is identified by its cell and
# (warmup, rep); order is its place in the planned order, time_utc its start.
RUN_ID_COLUMNS = ["cell", "warmup", "rep", "order", "time_utc"]
# Columns every runs.csv ends with: where the run's threads really ran, from
# the uts record (empty when the binary does not report placement).
PLACEMENT_COLUMNS = ["bind", "smt", "oversubscribed", "pus_available", "pus_used", "placement", "hosts", "pinning"]


class StudyFailed(Exception):
    """A run failed or its result was wrong: exit status 1."""


def fail_usage(message):
    """Bad usage or a bad study file: one line, exit status 2."""
    print("%s: %s" % (PROG, message), file=sys.stderr)
    sys.exit(2)


def fail_run(message):
    """A run failed or its result is wrong: exit status 1."""
    print("\n%s: %s" % (PROG, message), file=sys.stderr)
    sys.exit(1)


def note(message):
    """A fallback or a decision the user should know about, on stderr."""
    print("%s: %s" % (PROG, message), file=sys.stderr, flush=True)


def usable_cpus():
    """The CPUs this process may run on (its affinity), not the machine's count."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


# ---------------------------------------------------------------- study files

def config_path(name):
    """--config NAME (configs/studies/NAME.conf) or FILE."""
    if os.path.sep in name or name.endswith(".conf") or os.path.isfile(name):
        return name
    return os.path.join(ROOT, "configs", "studies", name + ".conf")


def read_config(path, quick):
    """(values, text) of a study file: `key = value` lines, `#` comments;
    the keys after a `[quick]` line replace the earlier ones when quick is
    set (--quick) and are ignored otherwise. ValueError on a bad line, an
    unknown section, or --quick on a file without [quick]."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    values, section, has_quick = {}, None, False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            if section != "quick":
                raise ValueError("%s:%d: unknown section [%s] (only [quick])" % (path, number, section))
            has_quick = True
            continue
        if "=" not in line:
            raise ValueError("%s:%d: expected 'key = value'" % (path, number))
        key, value = (part.strip() for part in line.split("=", 1))
        if section is None or quick:
            values[key] = value
    if quick and not has_quick:
        raise ValueError("%s has no [quick] section for --quick" % path)
    return values, text


def parse_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_int(text, what, low=None):
    try:
        value = int(str(text).strip())
    except ValueError:
        raise ValueError("%s %r is not a whole number" % (what, text))
    if low is not None and value < low:
        raise ValueError("%s must be at least %d, not %d" % (what, low, value))
    return value


def parse_bool(text, what):
    t = str(text).strip().lower()
    if t in ("yes", "true", "on", "1"):
        return True
    if t in ("no", "false", "off", "0"):
        return False
    raise ValueError("%s %r: yes or no" % (what, text))


def common_keys(values, args, overrides):
    """The keys every kind has: reps, warmup, bind, smt, order_seed (from the
    file, then the command line, noted in `overrides`). `pin` is the old
    name of bind (numactl, omp or none)."""
    if "pin" in values:
        if "bind" in values:
            raise ValueError("both bind and pin given (pin is the old name of bind)")
        values["bind"] = values.pop("pin")
    for key in ("reps", "warmup", "bind", "order_seed"):
        if getattr(args, key, None) is not None:
            values[key] = overrides[key] = str(getattr(args, key))
    if getattr(args, "smt", False):
        values["smt"] = overrides["smt"] = "yes"
    out = {"reps": parse_int(values.get("reps", "1"), "reps", 1),
           "warmup": parse_int(values.get("warmup", "1"), "warmup", 0),
           "bind": values.get("bind", "compact"),
           "smt": parse_bool(values.get("smt", "no"), "smt")}
    if out["bind"] not in BINDS:
        raise ValueError("bind %r: one of %s" % (out["bind"], ", ".join(BINDS)))
    if values.get("order_seed") not in (None, "", "random"):
        out["order_seed"] = parse_int(values["order_seed"], "order_seed", 0)
    return out


# ---------------------------------------------------------------- the binary

def build_default_binary(binary):
    """Build the repository's build/uts with scripts/lib/setup.sh's
    uts_build. It installs nothing: a missing build dependency fails the
    build, which names it, and scripts/run installs them."""
    note("%s is missing: building it (scripts/lib/setup.sh)" % binary)
    script = 'source "%s/scripts/lib/setup.sh" && uts_build build' % ROOT
    bash = shutil.which("bash") or "/bin/bash"
    proc = subprocess.run([bash, "-c", script])
    if proc.returncode != 0 or not os.access(binary, os.X_OK):
        fail_run("could not build %s (see the messages above; scripts/run installs what the build needs)" % binary)


def resolve_binary(given):
    if given:
        path = os.path.abspath(given)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            fail_usage("--uts %s: no such executable" % given)
        return path
    path = os.path.join(ROOT, "build", "uts")
    if os.access(path, os.X_OK):
        return path
    if os.path.isfile(os.path.join(ROOT, "meson.build")):  # a source tree: build it
        build_default_binary(path)
        return path
    # An installed copy of the scripts (PREFIX/share/uts/scripts): the installed binary.
    for candidate in (os.path.join(ROOT, "..", "..", "bin", "uts"), shutil.which("uts")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    fail_usage("no uts binary found (not a source tree, no uts on PATH): give --uts PATH")


def binary_has_bind(binary):
    """Whether this uts takes --bind (binaries from before it do not)."""
    return "--bind" in text_of([binary, "--help"])


# ---------------------------------------------------------------- pinning

def pin_plan(bind, smt, has_bind, fallbacks):
    """How a run outside mpirun is pinned: (prefix command, uts flags, env
    changes (None: unset), text for runs.csv's pinning column). Records a
    fallback when the request cannot be met as asked."""
    omp_unset = {"OMP_PLACES": None, "OMP_PROC_BIND": None}
    smt_flags = ["--smt"] if smt else []
    if bind == "none":
        return [], (["--bind", "none"] if has_bind else []), omp_unset, "none"
    if bind == "omp":
        return [], [], {"OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}, "OMP_PLACES=cores OMP_PROC_BIND=close"
    prefix = []
    if bind == "numactl":
        numactl = shutil.which("numactl")
        ok = numactl and subprocess.run([numactl, "--localalloc", "true"], capture_output=True).returncode == 0
        if ok:
            prefix = [numactl, "--localalloc"]
        else:
            add_fallback(fallbacks, "numactl (apt-get install numactl)", "threads bound with uts --bind compact; "
                         "memory placed by first touch (no numactl --localalloc)")
        bind = "compact"
    if not has_bind:
        places = {"compact": "close", "scatter": "spread", "numa": "spread"}[bind]
        add_fallback(fallbacks, "uts --bind (the binary is older than --bind)",
                     "OMP_PLACES=cores OMP_PROC_BIND=%s instead of --bind %s" % (places, bind))
        text = "OMP_PLACES=cores OMP_PROC_BIND=%s" % places
        return prefix, [], {"OMP_PLACES": "cores", "OMP_PROC_BIND": places}, text
    text = ("numactl --localalloc, " if prefix else "") + "uts --bind %s%s" % (bind, " --smt" if smt else "")
    return prefix, ["--bind", bind] + smt_flags, omp_unset, text


def apply_env(changes):
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def add_fallback(fallbacks, missing, instead):
    """Recorded in machine.json; said on stderr when the runs start
    (say_fallbacks), so that a usage error stays one line."""
    entry = {"missing": missing, "instead": instead}
    if entry not in fallbacks:
        fallbacks.append(entry)


def say_fallbacks(fallbacks):
    for f in fallbacks:
        note("fallback: no %s; %s" % (f["missing"], f["instead"]))


def _csv_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else v


def placement_fields(rec, pinning):
    """The PLACEMENT_COLUMNS of a run from its uts record: what uts reports
    the run really had (empty where the binary reports no placement)."""
    p = rec.get("placement") or {}
    threads = p.get("threads") or []
    mpi = bool((rec.get("engine") or {}).get("mpi")) or any(t.get("rank", 0) for t in threads)

    def where(t):
        pu = "-" if t.get("pu") is None else t["pu"]
        if mpi:
            return "r%s.%s:%s" % (t.get("rank", 0), t.get("thread"), pu)
        return "%s:%s" % (t.get("thread"), pu)

    machine = rec.get("machine") or {}
    hosts = machine.get("hosts") or ([machine["hostname"]] if machine.get("hostname") else [])
    return {"bind": p.get("bind"), "smt": _csv_value(p.get("smt")),
            "oversubscribed": _csv_value(p.get("oversubscribed")), "pus_available": p.get("pus_available"),
            "pus_used": p.get("pus_used"), "placement": " ".join(where(t) for t in threads) or None,
            "hosts": ";".join(hosts) or None, "pinning": pinning}


# ---------------------------------------------------------------- run order

def plan(cells, reps, warmup, seed):
    """Every run of the study, in order: `warmup` rounds of warm-up runs,
    then `reps` rounds of measured runs; each round runs every cell once, in
    an order shuffled per round with random.Random(seed). Returns
    [(cell, warmup flag 0/1, rep index from 1)]."""
    rng = random.Random(seed)
    runs = []
    for flag, count in ((1, warmup), (0, reps)):
        for rep in range(1, count + 1):
            order = list(cells)
            rng.shuffle(order)
            runs += [(cell, flag, rep) for cell in order]
    return runs


def run_key(row):
    return (row["cell"], str(row["warmup"]), str(row["rep"]))


# ---------------------------------------------------------------- runs.csv

class RunLog:
    """runs.csv, appended run by run (flushed and synced), so that a study
    stopped at any point keeps every finished run. On --resume the rows
    already there are kept; a torn last line or a run with too few rows
    (rows_per_run) is dropped and run again."""

    def __init__(self, path, columns, resume, rows_per_run=None):
        self.path, self.columns = path, columns
        self.done = set()
        if resume and os.path.exists(path):
            self._load(rows_per_run)
        else:
            with open(path, "w", newline="") as f:
                csv.writer(f).writerow(columns)

    def _load(self, rows_per_run):
        with open(self.path, newline="") as f:
            text = f.read()
        torn = bool(text) and not text.endswith("\n")
        lines = text.splitlines(keepends=True)
        if torn:
            lines = lines[:-1]
        reader = csv.DictReader(lines)
        if reader.fieldnames != self.columns:
            fail_usage("--resume: %s has other columns than this study writes (written by another version?)"
                       % self.path)
        rows = list(reader)
        groups = {}
        for r in rows:
            groups.setdefault(run_key(r), []).append(r)
        bad = {k for k, g in groups.items() if rows_per_run is not None and len(g) != rows_per_run(g[0])}
        keep = [r for r in rows if run_key(r) not in bad]
        if torn or bad:
            parts = (["a torn last line"] if torn else []) + (["%d incomplete run(s)" % len(bad)] if bad else [])
            note("--resume: dropped %s from %s (run again)" % (" and ".join(parts), os.path.basename(self.path)))
            tmp = self.path + ".tmp"
            with open(tmp, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=self.columns)
                w.writeheader()
                w.writerows(keep)
            os.replace(tmp, self.path)
        self.done = {run_key(r) for r in keep}

    def append(self, rows):
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=self.columns)
            for r in rows:
                w.writerow({k: _csv_value(v) for k, v in r.items()})
            f.flush()
            os.fsync(f.fileno())


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, columns, rows):
    """Rows (dicts) under `columns`, written whole (to a temporary file, then
    renamed); None (not applicable) is written empty, floats to 6
    significant digits."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % v if isinstance(v, float) else _csv_value(v)) for k, v in r.items()})
    os.replace(tmp, path)


# ---------------------------------------------------------------- machine.json

def _version_of(module):
    try:
        return __import__(module).__version__
    except Exception:  # ImportError or a broken installation
        return None


def software(fallbacks):
    """Python and library versions; a fallback for each missing one."""
    out = {"python": platform.python_version(), "python_executable": sys.executable,
           "numpy": _version_of("numpy"), "scipy": _version_of("scipy"), "matplotlib": _version_of("matplotlib"),
           "matplotlib_backend": "Agg (files only: no display needed)"}
    from utstools import stats
    out["statistics_backend"] = stats.backend_in_use()
    if out["scipy"] is None:
        add_fallback(fallbacks, "scipy (apt-get install python3-scipy)",
                     "bootstrap intervals computed by stats.py's %s path" % out["statistics_backend"])
    if out["matplotlib"] is None:
        add_fallback(fallbacks, "matplotlib (apt-get install python3-matplotlib)",
                     "no figures drawn; CSVs only (draw them later with scripts/plot-results DIR)")
    return out


def _tool_text(fallbacks, names, args, missing, instead):
    for name in names:
        path = shutil.which(name)
        if path:
            return text_of([path] + args) or None
    add_fallback(fallbacks, missing, instead)
    return None


def sysfs_topology():
    """Packages, cores and PUs among this process's CPUs, from /sys (for a
    binary that reports no topology)."""
    cpus = usable_cpus()
    packages, cores = set(), set()
    for cpu in cpus:
        base = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
        try:
            with open(base + "physical_package_id") as f, open(base + "core_id") as g:
                package, core = f.read().strip(), g.read().strip()
        except OSError:
            return {"packages": None, "numa_nodes": None, "cores": None, "pus": len(cpus),
                    "allowed_pus": len(cpus), "source": "affinity only (no /sys topology)"}
        packages.add(package)
        cores.add((package, core))
    return {"packages": len(packages), "numa_nodes": None, "cores": len(cores), "pus": len(cpus),
            "allowed_pus": len(cpus), "source": "/sys of this process's CPUs (the binary reports no topology)"}


def cpu_model_of_host():
    """The CPU model from /proc/cpuinfo (for records that do not name it)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def topology_of(record_machine):
    """The record's machine.topology as a dict: as the record gives it, or
    parsed from its one-line form ("1 package, 1 NUMA node, 2 cores, 2
    PUs"), or (a record without it) read from /sys."""
    topo = (record_machine or {}).get("topology")
    if isinstance(topo, dict):
        return topo
    if isinstance(topo, str):
        out = {"summary": topo, "source": "the record's one-line topology"}
        for number, word in re.findall(r"(\d+) (package|NUMA node|core|PU)s?\b", topo):
            out[{"package": "packages", "NUMA node": "numa_nodes", "core": "cores", "PU": "pus"}[word]] = int(number)
        if out.get("pus"):
            out.setdefault("allowed_pus", len(usable_cpus()))
            return out
    return None


def runtime_env_of(environ):
    """The OMP_*, GOMP_* and KMP_* variables of an environment, by name (the
    record's runtime_env; {} when none)."""
    return {k: environ[k] for k in sorted(environ) if k.startswith(("OMP_", "GOMP_", "KMP_"))}


def machine_facts(kind, config, definition, binary, probe_rec, command_line, fallbacks, extra=None):
    """machine.json as written before the first run (schema 1, every kind)."""
    rec = probe_rec or {}
    m = rec.get("machine") or {}
    build = rec.get("build")
    facts = {
        "schema": SCHEMA,
        "study": kind,
        "command_line": command_line,
        "started_utc": utc_now(),
        "finished_utc": None,
        "resumed": [],
        "config": config,
        "definition": definition,
        "binary": {"path": binary, "sha256": sha256_of(binary), "version": text_of([binary, "--version"]).strip()},
        "build": build,
        "scripts_commit": scripts_commit(),
        "machine": {
            "hostname": m.get("hostname") or platform.node(),
            "kernel": " ".join(platform.uname()),
            "cpu_model": m.get("cpu_model") or cpu_model_of_host(),
            # "VENDOR family F model M stepping S" from the record (docs/output.md
            # section 4a): tells apart CPUs whose model name is generic (a VM's
            # "Intel(R) Xeon(R) Processor"); null from a uts older than that.
            "cpu_signature": m.get("cpu_signature"),
            "logical_cpus": m.get("logical_cpus"),
            "topology": topology_of(m) or sysfs_topology(),
            "hosts": m.get("hosts") or [m.get("hostname") or platform.node()],
            "affinity_cpus": usable_cpus(),
            "openmp_runtime": (build or {}).get("openmp_runtime") or m.get("openmp_runtime"),
        },
        "placement": rec.get("placement"),
        # The batch job the study runs in, as the probe run's record gives it
        # (docs/output.md, section 4a; null outside a job, and from a uts
        # older than the field), and the OMP_*, GOMP_*, KMP_* variables the
        # study was started with: each run's own are in its record, since
        # the study sets OMP_PLACES and OMP_PROC_BIND to pin.
        "batch": rec.get("batch"),
        "runtime_env": runtime_env_of(os.environ),
        "fallbacks": fallbacks,
    }
    if build is None:
        facts["build_note"] = ("the binary's record has no build object (a uts older than the build object): its commit, "
                               "compiler flags and build type are unknown; scripts_commit is the scripts' checkout, "
                               "not necessarily the binary's")
        facts["machine"]["compiler"] = m.get("compiler")
        facts["machine"]["build_type"] = m.get("build_type")
        add_fallback(fallbacks, "build provenance in the binary's record",
                     "machine.json says so (build: null); the binary's sha256 identifies it")
    if topology_of(m) is None:
        add_fallback(fallbacks, "machine.topology in the binary's record", "topology read from /sys")
    if rec.get("placement") is None:
        add_fallback(fallbacks, "placement in the binary's records",
                     "runs.csv's placement columns are empty; efficiency uses min(PEs, affinity CPUs) as PUs used")
    facts["machine"]["lscpu"] = _tool_text(fallbacks, ["lscpu"], [], "lscpu (apt-get install util-linux)",
                                           "CPU facts from the uts record only")
    facts["machine"]["lstopo"] = _tool_text(fallbacks, ["lstopo-no-graphics", "lstopo"], ["--of", "console"],
                                            "lstopo (apt-get install hwloc)", "topology from the uts record only")
    numactl = shutil.which("numactl")
    facts["machine"]["numactl_hardware"] = text_of([numactl, "--hardware"]) if numactl else None
    facts["software"] = software(fallbacks)
    facts.update(extra or {})
    return facts


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def build_identity(facts):
    """What must not change between a study and its --resume: the binary
    itself (its sha256; two builds of one dirty commit differ) and the build
    it reports (commit, dirty, compiler, flags, type)."""
    build = facts.get("build") or {}
    out = {k: build.get(k) for k in ("commit", "commit_dirty", "compiler", "compiler_flags", "build_type")}
    out["sha256"] = facts["binary"]["sha256"]
    return out


def check_resume(old, kind, definition, facts):
    """--resume must continue the same study with the same binary."""
    where = "--resume"
    if old.get("schema") != SCHEMA:
        fail_usage("%s: machine.json has schema %s, not %d (a study written by other scripts)"
                   % (where, old.get("schema"), SCHEMA))
    if old.get("study") != kind:
        fail_usage("%s: the folder holds a %s study, not %s" % (where, old.get("study"), kind))
    was = dict(old.get("definition") or {})
    now = dict(definition)
    was.pop("order_seed", None)
    now.pop("order_seed", None)
    if was != now:
        diff = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
        fail_usage("%s: the study differs from the one in the folder (%s); it was started with: %s"
                   % (where, ", ".join(diff), " ".join(shlex.quote(a) for a in old.get("command_line", []))))
    if build_identity(old) != build_identity(facts):
        fail_usage("%s: the binary differs from the one the study started with (%s, now %s)"
                   % (where, json.dumps(build_identity(old)), json.dumps(build_identity(facts))))
