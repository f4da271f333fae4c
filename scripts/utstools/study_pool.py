"""The pool kind of scripts/study: Kotz and Ellis's experiment on Manber's
concurrent pool, rerun with `uts --workload pool` on split-deque segments
(random model over job mixes, producer/consumer model over producer counts
and arrangements, segment-size traces, a remote-delay sweep; every search).
Each run makes `trials` trials; every trial is checked for item
conservation and is one row of runs.csv."""
import os

from utstools import stats
from utstools import study_common as common

SEARCHES = ("linear", "random", "tree")
ARRANGEMENTS = ("contiguous", "spread")
INT_KEYS = ("threads", "ops", "fill", "trials", "seed", "trace_producers")
LIST_KEYS = ("searches", "mixes", "producers", "arrangements", "trace_searches", "remote_delays")
POOL_KEYS = set(INT_KEYS) | set(LIST_KEYS) | {"description", "steal", "delay_model"}
KEYS = POOL_KEYS | {"reps", "warmup", "bind", "pin", "smt", "order_seed"}

CONFIG_COLUMNS = ["model", "mix", "producers", "arrangement", "victim", "remote_delay_ns"]
TRIAL_COLUMNS = ["trial", "initial", "added", "removed", "remaining", "aborted", "lost", "duplicated", "conserved",
                 "seconds", "mean_add_us", "mean_remove_us", "removes_stole_pct", "segments_examined_per_steal",
                 "elements_per_steal"]
# Summed over each trial's threads (from uts's JSON).
SUM_COLUMNS = ["threads_active", "removes_stole", "steals", "segments_examined", "elements_stolen"]
RUN_COLUMNS = (common.RUN_ID_COLUMNS + CONFIG_COLUMNS + ["threads", "ops", "fill", "steal", "seed"]
               + TRIAL_COLUMNS + SUM_COLUMNS + common.PLACEMENT_COLUMNS)

# Per configuration, summarized over its trials: (name, runs.csv column, which trials count).
MEASURES = [
    ("add_us", "mean_add_us", "added"), ("remove_us", "mean_remove_us", "removed"),
    ("removes_stole_pct", "removes_stole_pct", None),
    ("segments_per_steal", "segments_examined_per_steal", "steals"),
    ("elements_per_steal", "elements_per_steal", "steals"),
    ("aborted", "aborted", None), ("threads_active", "threads_active", None), ("seconds", "seconds", None),
]
STATS = ["n", "median", "mean", "std", "cv", "min", "max", "ci_low", "ci_high"]
SUMMARY_COLUMNS = (["cell"] + CONFIG_COLUMNS + ["threads", "ops", "fill", "steal", "trials", "trials_with_steals"]
                   + ["%s_%s" % (name, s) for name, _, _ in MEASURES for s in STATS]
                   + ["confidence", "ci_method", "bind", "pus_used", "pus_available", "oversubscribed"])


def add_arguments(ap):
    ap.add_argument("--threads", type=int, help="threads of every run (the study file's `threads`)")
    ap.add_argument("--ops", type=int, help="operations per trial")
    ap.add_argument("--trials", type=int, help="trials per run")


def parse_values(text):
    """'1, 2, 4' or '0..100 step 10' or a mix of both: a list of strings."""
    out = []
    for item in (i.strip() for i in text.split(",")):
        if not item:
            continue
        if ".." in item:
            lo, rest = item.split("..", 1)
            parts = rest.split()
            if len(parts) == 1:
                hi, step = parts[0], "1"
            elif len(parts) == 3 and parts[1] == "step":
                hi, step = parts[0], parts[2]
            else:
                raise ValueError("bad range %r (A..B or A..B step S)" % item)
            lo, hi, step = int(lo), int(hi), int(step)
            if step < 1 or hi < lo:
                raise ValueError("bad range %r" % item)
            out.extend(str(v) for v in range(lo, hi + 1, step))
        else:
            out.append(item)
    return out


def definition(values, args):
    unknown = sorted(set(values) - KEYS)
    if unknown:
        raise ValueError("unknown keys %s" % ", ".join(unknown))
    overrides = {}
    for key in ("threads", "ops", "trials"):
        if getattr(args, key) is not None:
            values[key] = overrides[key] = str(getattr(args, key))
    values.setdefault("bind", "none")  # the study's threads usually outnumber the cores
    missing = sorted(POOL_KEYS - set(values))
    if missing:
        raise ValueError("missing keys %s" % ", ".join(missing))
    d = {"description": values["description"], "steal": values["steal"]}
    for key in INT_KEYS:
        d[key] = common.parse_int(values[key], key)
    for key in LIST_KEYS:
        d[key] = parse_values(values[key])
    for key in ("mixes", "producers", "remote_delays"):
        d[key] = [common.parse_int(v, key) for v in d[key]]
    model = values["delay_model"].split()
    if len(model) == 2 and model[0] == "mix":
        d["delay_model"] = {"model": "random", "mix": common.parse_int(model[1], "delay_model mix")}
    elif len(model) == 3 and model[0] == "producers":
        d["delay_model"] = {"model": "producer-consumer", "producers": common.parse_int(model[1], "producers"),
                            "arrangement": model[2]}
    else:
        raise ValueError("delay_model %r: `mix P` or `producers K contiguous|spread`" % values["delay_model"])
    problems = []
    if d["threads"] < 1 or d["trials"] < 1 or d["ops"] < 1 or d["fill"] < 0:
        problems.append("threads, ops and trials must be positive, fill not negative")
    for key in ("searches", "trace_searches"):
        problems += ["%s: %r is not linear, random or tree" % (key, v) for v in d[key] if v not in SEARCHES]
    arrangements = d["arrangements"] + [d["delay_model"].get("arrangement", "contiguous")]
    problems += ["%r is not contiguous or spread" % a for a in arrangements if a not in ARRANGEMENTS]
    problems += ["mix %d is not from 0 to 100" % m for m in d["mixes"] + [d["delay_model"].get("mix", 0)]
                 if not 0 <= m <= 100]
    problems += ["producers %d is not from 1 to threads (%d)" % (k, d["threads"])
                 for k in d["producers"] + [d["trace_producers"], d["delay_model"].get("producers", 1)]
                 if not 1 <= k <= d["threads"]]
    problems += ["remote delay %d is negative" % x for x in d["remote_delays"] if x < 0]
    if not d["searches"]:
        problems.append("no searches")
    if problems:
        raise ValueError("; ".join(problems))
    d.update(common.common_keys(values, args, overrides))
    d["overrides"] = overrides
    return d


class Cell:
    def __init__(self, config, trace):
        self.config, self.trace = config, trace
        model, mix, producers, arrangement, victim, delay = config
        what = "mix=%d" % mix if model == "random" else "producers=%d arrangement=%s" % (producers, arrangement)
        self.key = "%s %s victim=%s remote_delay_ns=%d" % (model, what, victim, delay)

    def text(self):
        return self.key


def cells(d):
    """Every configuration once (runs shared by two parts are made once);
    config = (model, mix, producers, arrangement, victim, remote_delay_ns)."""
    runs = []

    def add(key, trace=None):
        for i, (k, t) in enumerate(runs):
            if k == key:
                runs[i] = (k, t or trace)
                return
        runs.append((key, trace))

    for v in d["searches"]:
        for m in d["mixes"]:
            add(("random", m, None, None, v, 0))
    for a in d["arrangements"]:
        for v in d["searches"]:
            for k in d["producers"]:
                add(("producer-consumer", None, k, a, v, 0))
    k = d["trace_producers"]
    for a in ARRANGEMENTS:
        for v in d["trace_searches"]:
            add(("producer-consumer", None, k, a, v, 0), "trace-%s-%s-%d.csv" % (v, a, k))
    dm = d["delay_model"]
    for v in d["searches"]:
        for delay in d["remote_delays"]:
            add((dm["model"], dm.get("mix"), dm.get("producers"), dm.get("arrangement"), v, delay))
    return [Cell(k, t) for k, t in runs]


class Launcher:
    def __init__(self, binary, d, fallbacks):
        self.binary, self.d = binary, d
        self.has_bind = common.binary_has_bind(binary)
        self.prefix, self.flags, self.env_changes, self.text = common.pin_plan(d["bind"], d["smt"], self.has_bind,
                                                                              fallbacks)

    def _base(self, threads, ops, fill, trials):
        d = self.d
        return [self.binary, "--workload", "pool", "--threads", str(threads), "--ops", str(ops), "--fill", str(fill),
                "--trials", str(trials), "--steal", d["steal"], "-r", str(d["seed"])]

    def command(self, cell, warmup=0, rep=1, out=None):
        """A measured run writes its cell's trace (the first repetition only)."""
        model, mix, producers, arrangement, victim, delay = cell.config
        d = self.d
        cmd = self._base(d["threads"], d["ops"], d["fill"], d["trials"]) + [
            "--victim", victim, "--remote-delay", str(delay), "--format", "json"]
        cmd += ["--mix", str(mix)] if model == "random" else ["--producers", str(producers), "--arrangement",
                                                               arrangement]
        if cell.trace and not warmup and rep == 1 and out:
            cmd += ["--trace", os.path.join(out, cell.trace)]
        return self.prefix + cmd + self.flags, common.apply_env(self.env_changes), self.text

    def probe_command(self):
        cmd = self._base(self.d["threads"], 1, 0, 1) + ["--mix", "100", "--format", "json"]
        return self.prefix + cmd + self.flags, common.apply_env(self.env_changes)


def check_binary(launcher, d):
    """Nothing beyond the probe run: every pool option is checked by the
    study file's validation."""


class Checker:
    def pre_check(self, rec, cell, where):
        """Every trial conserved its items (checked before the exit status, so
        the broken trials are named)."""
        res = rec.get("results") or {}
        bad = [t["trial"] for t in rec.get("trials", [])
               if not t["conserved"] or t["lost"] or t["duplicated"]
               or t["initial"] + t["added"] - t["removed"] != t["remaining"]]
        if not res.get("conserved") or bad:
            raise common.StudyFailed("NOT CONSERVED %s: trials %s lost or duplicated items (%s)" % (where, bad, res))

    def check(self, rec, cell, where):
        if len(rec.get("trials", [])) != rec["parameters"]["trials"]:
            raise common.StudyFailed("%s: %d trials reported, %d asked for"
                                     % (where, len(rec.get("trials", [])), rec["parameters"]["trials"]))


def rows_per_run(d):
    return lambda row: d["trials"]


def rows(rec, cell, pinning):
    """One row per trial: the configuration, uts's per-trial fields, and the
    per-trial sums over its threads."""
    prm = rec["parameters"]
    place = common.placement_fields(rec, pinning)
    out = []
    for t in rec["trials"]:
        threads = t["threads"]
        row = {c: prm.get(c) for c in CONFIG_COLUMNS + ["threads", "ops", "fill", "steal", "seed"]}
        row["victim"] = prm.get("victim")
        row.update({c: t.get(c) for c in TRIAL_COLUMNS})
        row["threads_active"] = sum(1 for x in threads if x["adds"] + x["removes"] + x["aborted"] > 0)
        for c in SUM_COLUMNS[1:]:
            row[c] = sum(x[c] for x in threads)
        row.update(place)
        out.append(row)
    return out


def _num(v):
    return None if v in (None, "") else float(v)


def summarize(all_rows, d):
    """Per configuration, over the trials of its measured runs (warm-up runs
    excluded): n, median, mean, sd, CV, min, max and the 95% bootstrap CI of
    the median of each measure. Add time counts only trials that added,
    remove time trials that removed, the per-steal measures trials that
    stole (uts reports 0 for the others); empty where none did."""
    cells = {}
    for r in all_rows:
        if str(r["warmup"]) == "0":
            cells.setdefault(r["cell"], []).append(r)
    out, methods = [], set()
    for key, trials in cells.items():
        first = trials[0]
        row = {"cell": key}
        row.update({c: first[c] for c in CONFIG_COLUMNS + ["threads", "ops", "fill", "steal"]})
        row.update(trials=len(trials), trials_with_steals=sum(1 for t in trials if int(t["steals"]) > 0))
        for name, column, counted in MEASURES:
            use = [t for t in trials if counted is None or int(t[counted]) > 0]
            values = [_num(t[column]) for t in use if _num(t[column]) is not None]
            if values:
                s = stats.summarize(values)
                methods.add(s["ci_method"].split("; all values equal")[0])
                row["confidence"] = s["confidence"]
                row.update(("%s_%s" % (name, k), s[k]) for k in STATS)
        used = [int(t["pus_used"]) for t in trials if t.get("pus_used")]
        avail = [int(t["pus_available"]) for t in trials if t.get("pus_available")]
        row.update(bind=first.get("bind") or first.get("pinning"), pus_used=max(used) if used else None,
                   pus_available=max(avail) if avail else None,
                   oversubscribed="true" if any(t.get("oversubscribed") == "true" for t in trials) else (
                       "false" if all(t.get("oversubscribed") == "false" for t in trials) else None))
        out.append(row)
    for row in out:
        row["ci_method"] = "; ".join(sorted(m for m in methods if not m.startswith("none"))) or None
    return SUMMARY_COLUMNS, out


def plot(out, machine):
    from utstools import pool_plots
    return pool_plots.plot_all(out, machine)
