"""The schedulers kind of scripts/study: every scheduler the binary registers
(`uts --list-schedulers`), in each of its forms, at several -g node costs,
thread counts and trees, plus a `--sequential` cell per tree and -g (the
node cost and the efficiency baseline); a second binary (the clang build:
OpenMP tasks under libomp) adds the schedulers whose runtime differs from
the main binary's. Every run is checked exactly (study_scaling.Checker)."""
import json
import math
import os
import subprocess

from utstools import stats
from utstools import study_common as common
from utstools import study_data
from utstools import study_scaling

KEYS = {"description", "trees", "granularity", "threads", "schedulers", "forms", "task_grain", "reps", "warmup",
        "bind", "pin", "smt", "order_seed"}
MAIN = "main"  # the label of the --uts binary

RUN_COLUMNS = common.RUN_ID_COLUMNS + [
    "tree", "granularity", "engine", "threads", "scheduler", "form", "task_grain", "runtime", "binary",
    "seconds", "nodes_per_sec", "ns_per_node", "size", "depth", "leaves", "checksum", "thread_nodes",
    "node_share_relative_variance", "steals", "time_work", "time_total",
    "peak_rss_bytes", "start_peak_rss_bytes", "start_rss_bytes", "peak_rss_source",
] + common.PLACEMENT_COLUMNS

CELL_COLUMNS = ["cell", "tree", "granularity", "engine", "threads", "scheduler", "form", "task_grain", "runtime",
                "binary"]
RATIOS = ("seq", "1thread")
SUMMARY_COLUMNS = (CELL_COLUMNS + ["node_cost_ns", "node_cost_ns_ci_low", "node_cost_ns_ci_high"]
                   + study_data.TIME_COLUMNS
                   + ["nodes_per_sec_median", "nodes_per_sec_ci_low", "nodes_per_sec_ci_high"]
                   + ["%s_vs_%s%s" % (w, b, s) for b in RATIOS for w in ("speedup", "efficiency")
                      for s in ("", "_ci_low", "_ci_high")]
                   + ["speedup_vs_seq_n", "speedup_vs_1thread_n", "speedup_ci_method",
                      "bind", "pus_used", "pus_available", "oversubscribed", "placement_source",
                      "peak_rss_bytes_median", "peak_rss_bytes_ci_low", "peak_rss_bytes_ci_high",
                      "peak_rss_bytes_max"])
NODE_COST_COLUMNS = ["tree", "granularity", "ns_per_node", "ns_per_node_ci_low", "ns_per_node_ci_high",
                     "n", "source"]
THRESHOLD_COLUMNS = ["tree", "scheduler", "form", "runtime", "binary", "threads", "pus_used", "target",
                     "threshold_ns", "below_ns", "at_or_above_ns", "verdict"]
TARGET = 0.9  # the efficiency the threshold table asks for


def add_arguments(ap):
    ap.add_argument("--trees", help="comma-separated preset names")
    ap.add_argument("--granularity", "-g", help="comma-separated -g values, e.g. 1,2,4,8,32,128")
    ap.add_argument("--threads", help="e.g. 1,2,cores (cores: the physical cores among the usable CPUs; "
                    "all: the usable CPUs)")
    ap.add_argument("--schedulers", help="comma-separated names from uts --list-schedulers (default: all)")
    ap.add_argument("--forms", help="comma-separated forms of the foreign schedulers (default literature,tuned)")
    ap.add_argument("--task-grain", dest="task_grain", help="passed as --task-grain to the tuned forms")
    ap.add_argument("--uts-clang", dest="uts_clang", metavar="PATH",
                    help="the clang build (OpenMP tasks under libomp); default build-clang/uts when present; "
                    "none: no second binary")
    ap.add_argument("--also-binary", dest="also_binary", action="append", default=[], metavar="LABEL=PATH",
                    help="another uts binary whose schedulers with a runtime of their own join the study "
                    "(repeatable)")
    ap.add_argument("--preset-dir", help="read presets from DIR (passed to uts as UTS_PRESET_DIR)")


def _threads(text):
    """1,2,cores: `cores` is the physical cores this process may use."""
    words = [w.strip() for w in text.split(",")]
    words = [str(study_scaling.usable_cores()) if w == "cores" else w for w in words]
    return study_data.parse_threads(",".join(words), len(common.usable_cpus()))


def _binaries(args):
    """[(label, path)] of the second binaries: --also-binary, --uts-clang,
    else the repository's build-clang/uts when it is there."""
    out = []
    for item in args.also_binary:
        label, sep, path = item.partition("=")
        if not sep or not label.strip() or not path.strip() or label.strip() == MAIN:
            raise ValueError("--also-binary %r: give LABEL=PATH (LABEL not %r)" % (item, MAIN))
        out.append((label.strip(), path.strip()))
    clang = args.uts_clang
    if clang is None and not args.also_binary:
        default = os.path.join(common.ROOT, "build-clang", "uts")
        clang = default if os.access(default, os.X_OK) else "none"
    if clang not in (None, "none"):
        out.append(("clang", clang))
    labels = [label for label, _ in out]
    if len(set(labels)) != len(labels):
        raise ValueError("two second binaries labelled %s" % ", ".join(sorted({x for x in labels
                                                                               if labels.count(x) > 1})))
    checked = []
    for label, path in out:
        path = os.path.abspath(path)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise ValueError("binary %s=%s: no such executable" % (label, path))
        checked.append({"label": label, "path": path, "sha256": common.sha256_of(path)})
    return checked


def _binaries_or_exit(args):
    """The second binaries, or exit 2 naming the option (not the study file)."""
    try:
        return _binaries(args)
    except ValueError as e:
        common.fail_usage(str(e))


def definition(values, args):
    unknown = sorted(set(values) - KEYS)
    if unknown:
        raise ValueError("unknown keys %s" % ", ".join(unknown))
    overrides = {}
    for key in ("trees", "granularity", "threads", "schedulers", "forms", "task_grain"):
        if getattr(args, key) is not None:
            values[key] = overrides[key] = str(getattr(args, key))
    if "trees" not in values:
        raise ValueError("no trees given")
    gs = [common.parse_int(g, "granularity", 1) for g in study_data.parse_list(values.get("granularity", "1"))]
    forms = study_data.parse_list(values.get("forms", "literature, tuned"))
    wanted = study_data.parse_list(values.get("schedulers", "all"))
    d = {"description": values.get("description", ""),
         "trees": study_data.parse_list(values["trees"]),
         "granularity": sorted(set(gs)),
         "threads": _threads(values.get("threads", "1, 2, cores")),
         "schedulers_wanted": None if wanted == ["all"] else wanted,
         "forms": forms,
         "task_grain": (common.parse_int(values["task_grain"], "task_grain", 1)
                        if values.get("task_grain") not in (None, "", "default") else None),
         "also_binaries": _binaries_or_exit(args),
         "preset_dir": os.path.abspath(args.preset_dir) if args.preset_dir else None,
         "overrides": overrides}
    if not d["trees"] or not d["granularity"] or not forms:
        raise ValueError("trees, granularity and forms need at least one value")
    d.update(common.common_keys(values, args, overrides))
    return d


# ---------------------------------------------------------------- what the binaries have

def _tiny(binary, flags, env):
    """A one-node run's record, or (None, its one-line error)."""
    cmd = [binary, "-t", "balanced", "-b", "1", "-d", "0", "--format", "json", "--no-progress"] + flags
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    if proc.returncode != 0:
        return None, proc.returncode, study_scaling.one_line(proc.stderr)
    return json.loads(proc.stdout.splitlines()[0]), 0, ""


def _registered(binary):
    proc = subprocess.run([binary, "--list-schedulers"], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return None
    return [line.strip() for line in proc.stdout.splitlines() if line.strip()]


def discover(d, binary, fallbacks):
    """d["schedulers"]: every scheduler to run, as {name, forms, binary,
    runtime}; read from the binaries (uts --list-schedulers, and whether
    --scheduler-form applies, from a one-node run of each), never a list
    kept here. A second binary adds its schedulers whose runtime differs
    from the main binary's (omp-task under libomp beside libgomp)."""
    env = common.apply_env({})
    runs = []
    main_runtimes = {}
    for label, path in [(MAIN, binary)] + [(b["label"], b["path"]) for b in d["also_binaries"]]:
        names = _registered(path)
        if names is None:
            common.fail_usage("%s: uts --list-schedulers failed: the binary has no --scheduler (too old)" % path)
        if d["schedulers_wanted"] and label == MAIN:
            for name in d["schedulers_wanted"]:
                if name not in names:
                    common.fail_usage("scheduler %s: not in this build (uts --list-schedulers: %s)"
                                      % (name, ", ".join(names)))
        for name in names:
            if d["schedulers_wanted"] and name not in d["schedulers_wanted"]:
                continue
            rec, rc, why = _tiny(path, ["--scheduler", name, "--threads", "1"], env)
            if rec is None:
                common.fail_usage("%s --scheduler %s fails on a one-node tree: %s" % (path, name, why))
            runtime = rec["engine"].get("scheduler_runtime")
            if label == MAIN:
                main_runtimes[name] = runtime
            elif main_runtimes.get(name) == runtime:
                continue  # the same runtime as the main binary's: nothing new to measure
            forms = []
            for form in d["forms"]:
                got, rc, why = _tiny(path, ["--scheduler", name, "--scheduler-form", form, "--threads", "1"], env)
                if got is not None:
                    forms.append(form)
                elif rc != 2:
                    common.fail_usage("%s --scheduler %s --scheduler-form %s failed: %s" % (path, name, form, why))
            if not forms:  # --scheduler-form does not apply (uts's own loop): one form, not named
                rec2, rc, why = _tiny(path, ["--scheduler", name, "--scheduler-form", d["forms"][0],
                                             "--threads", "1"], env)
                if rc != 2:
                    common.fail_usage("scheduler %s takes none of the forms %s" % (name, ", ".join(d["forms"])))
                forms = [None]
            runs.append({"name": name, "forms": forms, "binary": label, "runtime": runtime})
    if not runs:
        common.fail_usage("no scheduler to run")
    taken = {f for r in runs for f in r["forms"]}
    for form in d["forms"]:
        if form not in taken:
            common.fail_usage("form %s: no scheduler takes it (uts --help: --scheduler-form)" % form)
    for b in d["also_binaries"]:
        if not any(r["binary"] == b["label"] for r in runs):
            common.note("binary %s (%s) adds no scheduler with a runtime of its own; not run" % (b["label"],
                                                                                              b["path"]))
    d["schedulers"] = runs


class Cell:
    def __init__(self, tree, g, threads=1, scheduler=None, form=None, binary=MAIN, sequential=False):
        self.tree, self.g, self.threads, self.scheduler, self.form, self.binary = tree, g, threads, scheduler, form, \
            binary
        self.sequential = sequential
        self.ranks = None  # study_scaling.Checker asks
        if sequential:
            self.key = "%s g=%d sequential" % (tree, g)
        else:
            self.key = "%s g=%d threads=%d scheduler=%s%s%s" % (
                tree, g, threads, scheduler, " form=%s" % form if form else "",
                " binary=%s" % binary if binary != MAIN else "")

    def text(self):
        return self.key.replace("sequential", "--sequential")


def cells(d):
    out = [Cell(t, g, sequential=True) for t in d["trees"] for g in d["granularity"]]
    out += [Cell(t, g, p, s["name"], f, s["binary"]) for t in d["trees"] for g in d["granularity"]
            for s in d["schedulers"] for f in s["forms"] for p in d["threads"]]
    return out


# ---------------------------------------------------------------- launching

class Launcher:
    def __init__(self, binary, d, fallbacks):
        self.binary, self.d = binary, d
        self.paths = {MAIN: binary}
        self.paths.update((b["label"], b["path"]) for b in d["also_binaries"])
        self.has_bind = common.binary_has_bind(binary)
        self.prefix, self.flags, self.env_changes, self.text = common.pin_plan(d["bind"], d["smt"], self.has_bind,
                                                                              fallbacks)
        if d["preset_dir"]:
            os.environ["UTS_PRESET_DIR"] = d["preset_dir"]

    def command(self, cell):
        tail = ["--format", "json", "--no-progress"]
        uts = [self.paths[cell.binary], "--preset", cell.tree, "-g", str(cell.g)]
        if cell.sequential:
            uts += ["--sequential"]
        else:
            uts += ["--threads", str(cell.threads), "--scheduler", cell.scheduler]
            if cell.form:
                uts += ["--scheduler-form", cell.form]
                if cell.form == "tuned" and self.d["task_grain"] is not None:
                    uts += ["--task-grain", str(self.d["task_grain"])]
        return self.prefix + uts + self.flags + tail, common.apply_env(self.env_changes), self.text

    def probe_command(self):
        p = max(self.d["threads"])
        cmd = [self.binary, "-t", "balanced", "-b", "1", "-d", "0", "--threads", str(p), "--format", "json",
               "--no-progress"]
        return self.prefix + cmd + self.flags, common.apply_env(self.env_changes)


def check_binary(launcher, d):
    """Each cell's kind of command on a one-node tree, pinned as the study
    pins: a combination uts rejects (--task-grain, --bind) stops the study
    before its runs."""
    listed = subprocess.run([launcher.binary, "--list-presets"], capture_output=True, text=True, timeout=60,
                            env=common.apply_env({})).stdout
    known = {line.split()[0].upper() for line in listed.splitlines()[1:] if line.strip() and not line[0].isspace()}
    for tree in d["trees"]:
        if known and tree.upper() not in known:
            common.fail_usage("tree %s: no such preset (uts --list-presets%s)" % (
                tree, ", UTS_PRESET_DIR=" + d["preset_dir"] if d["preset_dir"] else ""))
    seen = set()
    for cell in cells(d):
        what = (cell.binary, cell.scheduler, cell.form, cell.sequential)
        if what in seen:
            continue
        seen.add(what)
        cmd, env, _ = launcher.command(cell)
        i = cmd.index("--preset")
        cmd = cmd[:i] + ["-t", "balanced", "-b", "1", "-d", "0"] + cmd[i + 2:]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
        if proc.returncode != 0:
            common.fail_usage("bad study definition: uts rejects %s: %s" % (cell.text(),
                                                                            study_scaling.one_line(proc.stderr)))


def extra_facts(d, launcher):
    """machine.json's `binaries`: each binary's label, path, sha256, version
    and the schedulers (and runtimes) the study runs with it."""
    out = []
    for label, path in launcher.paths.items():
        rec, _, _ = _tiny(path, [], common.apply_env({}))
        out.append({"label": label, "path": path, "sha256": common.sha256_of(path),
                    "version": common.text_of([path, "--version"]).strip(),
                    "build": (rec or {}).get("build"),
                    "schedulers": [{"name": s["name"], "forms": s["forms"], "runtime": s["runtime"]}
                                   for s in d["schedulers"] if s["binary"] == label]})
    return {"binaries": out}


# ---------------------------------------------------------------- checking and recording

class Checker(study_scaling.Checker):
    """Exact against the preset and every other run of the tree, whatever
    the scheduler, form, binary or -g (which changes the work per node, not
    the tree); the run must say it ran the scheduler asked for."""

    def check(self, rec, cell, where):
        super().check(rec, cell, where)
        engine = rec["engine"]
        if not cell.sequential and (engine.get("scheduler") != cell.scheduler
                                    or (cell.form and engine.get("scheduler_form") != cell.form)):
            raise common.StudyFailed("%s: uts reports scheduler %s form %s" % (where, engine.get("scheduler"),
                                                                              engine.get("scheduler_form")))
        if (rec.get("parameters") or {}).get("granularity") != cell.g:
            raise common.StudyFailed("%s: uts reports -g %s" % (where, (rec.get("parameters") or {}).get(
                "granularity")))


def rows(rec, cell, pinning):
    res, agg, engine, t = rec["results"], rec["aggregates"], rec["engine"], rec["timing"]
    mem = rec.get("memory") or {}
    row = {"tree": cell.tree, "granularity": cell.g, "engine": "sequential" if cell.sequential else "parallel",
           "threads": 1 if cell.sequential else cell.threads, "scheduler": engine.get("scheduler"),
           "form": engine.get("scheduler_form"), "task_grain": engine.get("task_grain"),
           "runtime": engine.get("scheduler_runtime"), "binary": cell.binary,
           "seconds": t["seconds"], "nodes_per_sec": t["nodes_per_sec"],
           "ns_per_node": t["seconds"] * 1e9 / res["size"] if res["size"] else None,
           "size": res["size"], "depth": res["depth"], "leaves": res["leaves"], "checksum": res["checksum"],
           "thread_nodes": ";".join(str(x["nodes"]) for x in rec["threads"]),
           "node_share_relative_variance": agg.get("node_share_relative_variance"),
           "steals": agg.get("steals"), "time_work": agg.get("time_work"), "time_total": agg.get("time_total"),
           "peak_rss_bytes": mem.get("peak_rss_bytes"), "start_peak_rss_bytes": mem.get("start_peak_rss_bytes"),
           "start_rss_bytes": mem.get("start_rss_bytes"), "peak_rss_source": mem.get("peak_rss_source")}
    row.update(common.placement_fields(rec, pinning))
    return [row]


# ---------------------------------------------------------------- summary

def curve_of(r):
    """The figure's curve a row belongs to: scheduler, form, runtime, binary."""
    return (r.get("scheduler") or "", r.get("form") or "", r.get("runtime") or "", r.get("binary") or "")


def curve_label(curve):
    name, form, runtime, binary = curve
    text = name + ("/" + form if form else "")
    if runtime and runtime != name:
        text += " (%s)" % runtime
    return text


def _measured_cells(all_rows):
    cells_ = {}
    for r in all_rows:
        if str(r["warmup"]) == "0":
            cells_.setdefault(r["cell"], []).append(r)
    return cells_


def node_costs(all_rows):
    """ns per node at one thread, per tree and -g: the median of the
    --sequential runs' seconds / size, with the bootstrap CI of the median."""
    out = []
    for key, runs in _measured_cells(all_rows).items():
        first = runs[0]
        if first["engine"] != "sequential":
            continue
        s = stats.summarize([float(r["ns_per_node"]) for r in runs])
        out.append({"tree": first["tree"], "granularity": int(first["granularity"]), "ns_per_node": s["median"],
                    "ns_per_node_ci_low": s["ci_low"], "ns_per_node_ci_high": s["ci_high"], "n": s["n"],
                    "source": "uts --sequential: seconds / size"})
    out.sort(key=lambda r: (r["tree"], r["granularity"]))
    return out


def summarize(all_rows, d=None):
    """summary.csv: a row per cell over its measured runs. Speedup against
    the --sequential cell of the same tree and -g (the best sequential
    time: efficiency_vs_seq, the figures' efficiency) and against the same
    scheduler, form and binary at 1 thread (self-relative), each the ratio
    of medians with its paired bootstrap CI; efficiency = speedup / PUs used."""
    cells_ = _measured_cells(all_rows)
    costs = {(c["tree"], str(c["granularity"])): c for c in node_costs(all_rows)}
    fallback_pus = len(common.usable_cpus())

    def find(pred):
        return next((runs for runs in cells_.values() if pred(runs[0])), None)

    out = []
    for key in sorted(cells_, key=lambda k: _order(cells_[k][0])):
        runs = cells_[key]
        first = runs[0]
        row = {c: first.get(c) for c in CELL_COLUMNS}
        cost = costs.get((first["tree"], first["granularity"]))
        if cost:
            row.update(node_cost_ns=cost["ns_per_node"], node_cost_ns_ci_low=cost["ns_per_node_ci_low"],
                       node_cost_ns_ci_high=cost["ns_per_node_ci_high"])
        t = stats.summarize([float(r["seconds"]) for r in runs])
        row.update(("seconds_" + c, t[c]) for c in stats.summary_columns())
        rate = study_data._ci([float(r["nodes_per_sec"]) for r in runs])
        row.update(("nodes_per_sec_" + c, v) for c, v in rate.items())
        pus, avail, over, source = study_data._placement(runs, fallback_pus)
        row.update(pus_used=pus, pus_available=avail, oversubscribed=over, placement_source=source,
                   bind=first.get("bind") or first.get("pinning"))
        bases = {"seq": find(lambda b: b["engine"] == "sequential" and b["tree"] == first["tree"]
                             and b["granularity"] == first["granularity"])}
        if first["engine"] == "parallel":
            bases["1thread"] = find(lambda b: b["engine"] == "parallel" and b["tree"] == first["tree"]
                                    and b["granularity"] == first["granularity"] and b["threads"] == "1"
                                    and curve_of(b) == curve_of(first))
        methods = set()
        for name, base in bases.items():
            if not base:
                continue
            b, x = study_data._paired(base, runs)
            if not b:
                continue
            s = stats.speedup_ci(b, x, paired=True)
            methods.add(s["ci_method"].split("; all values equal")[0])
            row["speedup_vs_%s_n" % name] = s["n"]
            for suffix, value in (("", s["speedup"]), ("_ci_low", s["ci_low"]), ("_ci_high", s["ci_high"])):
                row["speedup_vs_%s%s" % (name, suffix)] = value
                row["efficiency_vs_%s%s" % (name, suffix)] = None if value is None else stats.efficiency(value, pus)
        row["speedup_ci_method"] = "; ".join(sorted(methods)) or None
        rss = [float(r["peak_rss_bytes"]) for r in runs if r.get("peak_rss_bytes")]
        if len(rss) == len(runs):
            row.update(("peak_rss_bytes_" + c, v) for c, v in study_data._ci(rss).items())
            row["peak_rss_bytes_max"] = max(rss)
        out.append(row)
    return SUMMARY_COLUMNS, out


def _order(r):
    return (r["tree"], int(r["granularity"]), r["engine"] != "sequential", curve_of(r), int(r["threads"]))


def thresholds(summary, target=TARGET):
    """Per tree and curve, at the study's largest thread count: the node
    cost below which efficiency (vs --sequential) falls under `target`.
    below_ns: the largest node cost measured with efficiency < target;
    at_or_above_ns: the smallest cost from which every larger cost measured
    reaches it; threshold_ns: the crossing, interpolated linearly in
    log(cost) between those two (empty when it is outside the costs
    measured, see verdict)."""
    par = [r for r in summary if r.get("engine") == "parallel" and r.get("efficiency_vs_seq") not in (None, "")
           and r.get("node_cost_ns") not in (None, "")]
    if not par:
        return []
    top = max(int(r["threads"]) for r in par)
    out = []
    groups = {}
    for r in par:
        if int(r["threads"]) == top:
            groups.setdefault((r["tree"], curve_of(r)), []).append(r)
    for (tree, curve), rs in sorted(groups.items()):
        pts = sorted((float(r["node_cost_ns"]), float(r["efficiency_vs_seq"])) for r in rs)
        ok_from = None
        for i in range(len(pts) - 1, -1, -1):
            if pts[i][1] >= target:
                ok_from = i
            else:
                break
        row = {"tree": tree, "scheduler": curve[0], "form": curve[1] or None, "runtime": curve[2],
               "binary": curve[3], "threads": top, "pus_used": max(int(r["pus_used"]) for r in rs),
               "target": target}
        if ok_from is None:
            row.update(below_ns=pts[-1][0], verdict="below %g at every node cost measured (up to %.4g ns)"
                       % (target, pts[-1][0]))
        elif ok_from == 0:
            row.update(at_or_above_ns=pts[0][0], verdict="at least %g from the smallest node cost measured "
                       "(%.4g ns)" % (target, pts[0][0]))
        else:
            (c0, e0), (c1, e1) = pts[ok_from - 1], pts[ok_from]
            f = (target - e0) / (e1 - e0) if e1 != e0 else 1.0
            cross = math.exp(math.log(c0) + f * (math.log(c1) - math.log(c0)))
            row.update(below_ns=c0, at_or_above_ns=c1, threshold_ns=cross,
                       verdict="below %g under about %.4g ns per node" % (target, cross))
        out.append(row)
    return out


def write_extras(out, all_rows, summary):
    """node_cost.csv and thresholds.csv beside summary.csv; the two tables
    printed on stderr."""
    costs = node_costs(all_rows)
    common.write_csv(os.path.join(out, "node_cost.csv"), NODE_COST_COLUMNS, costs)
    th = thresholds(summary)
    common.write_csv(os.path.join(out, "thresholds.csv"), THRESHOLD_COLUMNS, th)
    for c in costs:
        common.note("node cost %s -g %d: %.4g ns per node (uts --sequential, median of %d)"
                    % (c["tree"], c["granularity"], c["ns_per_node"], c["n"]))
    for r in th:
        common.note("%s %s at %d threads: efficiency vs --sequential %s"
                    % (r["tree"], curve_label((r["scheduler"], r["form"] or "", r["runtime"], r["binary"])),
                       r["threads"], r["verdict"]))


def plot(out, machine):
    from utstools import sched_plots
    return sched_plots.plot_all(out, machine)
