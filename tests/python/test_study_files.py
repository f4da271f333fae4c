"""Parsing what a study reads: the study files (configs/studies/*.conf and
the `key = value` format), the value formats (thread and rank ranges,
delays, pool ranges), the run order, runs.csv on --resume, and the
placement and topology taken from a uts record."""
import csv
import glob
import os

import pytest

from utstools import common, study_common, study_data, study_pool, study_scaling, study_schedulers
from utstools.commands import study

STUDY_FILES = sorted(glob.glob(os.path.join(common.ROOT, "configs", "studies", "*.conf")))
CORES = 4


def args_of(kind, *extra):
    """The study's own parse of a command line (its defaults included)."""
    return study.parse_args([kind, "--out", "unused"] + list(extra))


def kind_of(path):
    name = os.path.basename(path)
    return "pool" if name.startswith("pool") else "schedulers" if name.startswith("schedulers") else "scaling"


# What discover() reads from a binary, for the schedulers kind's cells: one
# scheduler without forms and one with both.
SCHEDULERS = [{"name": "uts", "forms": [None], "binary": "main", "runtime": "uts"},
              {"name": "omp-task", "forms": ["literature", "tuned"], "binary": "main", "runtime": "libgomp"}]


def test_study_files_are_there():
    names = [os.path.basename(p) for p in STUDY_FILES]
    assert "default.conf" in names and "pool.conf" in names and "hierarchy.conf" in names


def has_quick(path):
    with open(path) as f:
        return "[quick]" in f.read()


@pytest.mark.parametrize("path, quick", [(p, False) for p in STUDY_FILES] + [(p, True) for p in STUDY_FILES
                                                                           if has_quick(p)],
                         ids=lambda v: os.path.basename(v) if isinstance(v, str) else ("quick" if v else "full"))
def test_every_shipped_study_file_defines_a_study(path, quick):
    kind = kind_of(path)
    mod = {"pool": study_pool, "schedulers": study_schedulers}.get(kind, study_scaling)
    values, text = study_common.read_config(path, quick)
    d = mod.definition(values, args_of(kind, *(["--uts-clang", "none"] if kind == "schedulers" else [])))
    if kind == "schedulers":
        d["schedulers"] = SCHEDULERS
    cells = mod.cells(d)
    assert cells and len({c.key for c in cells}) == len(cells)
    runs = study_common.plan(cells, d["reps"], d["warmup"], seed=7)
    assert len(runs) == len(cells) * (d["reps"] + d["warmup"])


def write(tmp_path, text, name="s.conf"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_quick_section_replaces_keys_only_with_quick(tmp_path):
    path = write(tmp_path, "# a comment\ntrees = T1L, T3L   # trailing comment\nreps = 5\n\n[quick]\ntrees = T1\n")
    values, text = study_common.read_config(path, False)
    assert values == {"trees": "T1L, T3L", "reps": "5"} and text.startswith("# a comment")
    values, _ = study_common.read_config(path, True)
    assert values == {"trees": "T1", "reps": "5"}


@pytest.mark.parametrize("text, quick, message", [
    ("[slow]\nreps = 1\n", False, "unknown section [slow]"),
    ("reps 5\n", False, "expected 'key = value'"),
    ("reps = 5\n", True, "no [quick] section"),
])
def test_bad_study_files(tmp_path, text, quick, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        study_common.read_config(write(tmp_path, text), quick)


def test_scaling_definition_from_file_and_command_line(tmp_path):
    path = write(tmp_path, "trees = T1, T3\nthreads = 1,2\nvictims = random, tree\nreps = 3\nwarmup = 0\n"
                           "pin = numactl\norder_seed = 9\n")
    values, _ = study_common.read_config(path, False)
    d = study_scaling.definition(values, args_of("scaling", "--threads", "1,4", "--reps", "2"))
    assert d["trees"] == ["T1", "T3"] and d["threads"] == [1, 4] and d["victim"] == ["random", "tree"]
    assert (d["reps"], d["warmup"], d["bind"], d["smt"], d["order_seed"]) == (2, 0, "numactl", False, 9)
    assert d["overrides"] == {"threads": "1,4", "reps": "2"}
    cells = study_scaling.cells(d)
    # A --sequential cell per tree first, then trees x victims x threads.
    assert [c.key for c in cells[:2]] == ["T1 sequential", "T3 sequential"]
    assert len(cells) == 2 + 2 * 2 * 2
    assert "T3 threads=4 victim=tree init=root" in {c.key for c in cells}


def test_protocol_on_the_command_line_drops_the_files_steal_and_victim(tmp_path):
    values, _ = study_common.read_config(write(tmp_path, "trees = T1\nsteal = one\nvictim = tree\n"), False)
    d = study_scaling.definition(values, args_of("scaling", "--protocol", "locked"))
    assert d["protocol"] == ["locked"] and d["steal"] == [None] and d["victim"] == [None]


@pytest.mark.parametrize("text, message", [
    ("threads = 1\n", "no trees given"),
    ("trees = T1\nfrobnicate = 1\n", "unknown keys frobnicate"),
    ("trees = T1\nvictim = tree\nvictims = random\n", "both victim and victims"),
    ("trees = T1\nbind = everywhere\n", "bind 'everywhere'"),
    ("trees = T1\npin = none\nbind = none\n", "both bind and pin"),
    ("trees = T1\nreps = 0\n", "reps must be at least 1"),
    ("trees = T1\nsmt = maybe\n", "smt 'maybe': yes or no"),
])
def test_bad_scaling_definitions(tmp_path, text, message):
    values, _ = study_common.read_config(write(tmp_path, text), False)
    with pytest.raises(ValueError, match=message):
        study_scaling.definition(values, args_of("scaling"))


def test_plan_rounds_are_shuffled_per_seed_and_warmups_come_first():
    cells = ["a", "b", "c", "d", "e"]
    runs = study_common.plan(cells, reps=3, warmup=1, seed=42)
    assert runs == study_common.plan(cells, reps=3, warmup=1, seed=42)
    assert [r[0] for r in runs] != [r[0] for r in study_common.plan(cells, reps=3, warmup=1, seed=43)]
    assert [(w, rep) for _, w, rep in runs] == [(1, 1)] * 5 + [(0, 1)] * 5 + [(0, 2)] * 5 + [(0, 3)] * 5
    for i in range(0, len(runs), 5):  # each round runs every cell once
        assert sorted(c for c, _, _ in runs[i:i + 5]) == cells


@pytest.mark.parametrize("text, expected", [
    ("1..all", [1, 2, 3, 4]), ("1,2,4..6", [1, 2, 4, 5, 6]), ("all, 1", [1, 4]), ("2..3, 2", [2, 3])])
def test_parse_threads(text, expected):
    assert study_data.parse_threads(text, CORES) == expected


@pytest.mark.parametrize("text", ["0", "x", "1..y", ""])
def test_parse_threads_refuses(text):
    with pytest.raises(ValueError):
        study_data.parse_threads(text, CORES)


def test_parse_ranks_and_delays():
    assert study_data.parse_ranks("none") is None
    assert study_data.parse_ranks("1..3, 8") == [1, 2, 3, 8]
    with pytest.raises(ValueError):
        study_data.parse_ranks("0")
    assert study_data.parse_delays("0, 1000, default") == [0, 1000, None]
    with pytest.raises(ValueError, match="negative"):
        study_data.parse_delays("-5")
    assert [study_data.delay_text(x) for x in (None, 0, 500, 1000, 25000)] == ["0", "0", "500 ns", "1 µs", "25 µs"]


def test_pool_values():
    assert study_pool.parse_values("0..100 step 25, 7") == ["0", "25", "50", "75", "100", "7"]
    assert study_pool.parse_values("1..3") == ["1", "2", "3"]
    for bad in ("3..1", "1..5 by 2", "1..5 step 0"):
        with pytest.raises(ValueError):
            study_pool.parse_values(bad)


def test_placement_fields_of_a_record():
    rec = {"placement": {"bind": "compact", "smt": False, "oversubscribed": True, "pus_available": 2, "pus_used": 2,
                         "threads": [{"thread": 0, "pu": 0}, {"thread": 1, "pu": None}]},
           "machine": {"hostname": "h1"}}
    assert study_common.placement_fields(rec, "uts --bind compact") == {
        "bind": "compact", "smt": "false", "oversubscribed": "true", "pus_available": 2, "pus_used": 2,
        "placement": "0:0 1:-", "hosts": "h1", "pinning": "uts --bind compact"}
    mpi = {"engine": {"mpi": True}, "placement": {"threads": [{"rank": 1, "thread": 0, "pu": 3}]},
           "machine": {"hosts": ["a", "b"]}}
    f = study_common.placement_fields(mpi, "mpirun")
    assert f["placement"] == "r1.0:3" and f["hosts"] == "a;b" and f["bind"] is None
    assert study_common.placement_fields({}, "none")["placement"] is None


def test_topology_of_a_one_line_record():
    topo = study_common.topology_of({"topology": "2 packages, 2 NUMA nodes, 16 cores, 32 PUs"})
    assert (topo["packages"], topo["numa_nodes"], topo["cores"], topo["pus"]) == (2, 2, 16, 32)
    assert study_common.topology_of({"topology": {"pus": 4}}) == {"pus": 4}
    assert study_common.topology_of({}) is None


def test_runs_csv_on_resume_drops_a_torn_line_and_incomplete_runs(tmp_path, capsys):
    path = str(tmp_path / "runs.csv")
    columns = study_common.RUN_ID_COLUMNS + ["part"]
    log = study_common.RunLog(path, columns, resume=False)
    log.append([{"cell": "a", "warmup": 0, "rep": 1, "order": 1, "time_utc": "t", "part": "x"},
                {"cell": "a", "warmup": 0, "rep": 1, "order": 1, "time_utc": "t", "part": "y"}])
    log.append([{"cell": "b", "warmup": 0, "rep": 1, "order": 2, "time_utc": "t", "part": "x"}])  # one of two rows
    with open(path, "a") as f:
        f.write("c,0,1,3,t")  # torn: no newline
    again = study_common.RunLog(path, columns, resume=True, rows_per_run=lambda row: 2)
    assert again.done == {("a", "0", "1")}
    assert "a torn last line and 1 incomplete run(s)" in capsys.readouterr().err
    with open(path, newline="") as f:
        assert [r["cell"] for r in csv.DictReader(f)] == ["a", "a"]


def test_runs_csv_of_other_columns_is_refused_on_resume(tmp_path):
    path = str(tmp_path / "runs.csv")
    study_common.RunLog(path, ["cell", "warmup", "rep"], resume=False)
    with pytest.raises(SystemExit) as e:
        study_common.RunLog(path, study_common.RUN_ID_COLUMNS, resume=True)
    assert e.value.code == 2


def test_missing_libraries_are_fallbacks_that_say_how_to_get_them(monkeypatch):
    # A study installs nothing: a missing library is a machine.json fallback
    # naming its Debian package, and no command runs to fetch it.
    monkeypatch.setattr(study_common, "_version_of", lambda module: None)

    def no_commands(*args, **kwargs):
        raise AssertionError("a command ran: %r" % (args,))
    monkeypatch.setattr(study_common.subprocess, "run", no_commands)
    fallbacks = []
    software = study_common.software(fallbacks)
    assert software["scipy"] is None and software["matplotlib"] is None
    assert [f["missing"] for f in fallbacks] == ["scipy (apt-get install python3-scipy)",
                                                 "matplotlib (apt-get install python3-matplotlib)"]


def test_runtime_env_of_an_environment():
    # machine.json's runtime_env: the OpenMP runtimes' variables only (not
    # Open MPI's OMPI_*), sorted by name, as the records have them.
    env = {"PATH": "/bin", "OMP_PLACES": "cores", "OMPI_COMM_WORLD_RANK": "0", "KMP_AFFINITY": "compact",
           "GOMP_SPINCOUNT": "0", "MY_OMP_X": "1"}
    got = study_common.runtime_env_of(env)
    assert got == {"GOMP_SPINCOUNT": "0", "KMP_AFFINITY": "compact", "OMP_PLACES": "cores"}
    assert list(got) == sorted(got)
    assert study_common.runtime_env_of({"PATH": "/bin"}) == {}


def _eff_row(cost, eff, threads=8, scheduler="tbb"):
    return {"engine": "parallel", "tree": "T1", "scheduler": scheduler, "form": "tuned", "runtime": "r",
            "binary": "main", "threads": str(threads), "pus_used": str(threads), "node_cost_ns": str(cost),
            "efficiency_vs_seq": str(eff)}


def test_schedulers_threshold_interpolates_in_log_cost_at_the_most_threads():
    rows = [_eff_row(10, 0.5), _eff_row(100, 0.8), _eff_row(1000, 1.0), _eff_row(10000, 0.95),
            _eff_row(10, 0.1, threads=2)]  # not the largest thread count: ignored
    (t,) = study_schedulers.thresholds(rows)
    assert (t["below_ns"], t["at_or_above_ns"], t["threads"]) == (100, 1000, 8)
    assert abs(t["threshold_ns"] - 10 ** 2.5) < 1e-6  # 0.9 lies halfway between 0.8 and 1.0


def test_schedulers_threshold_outside_the_costs_measured():
    low = study_schedulers.thresholds([_eff_row(10, 0.5), _eff_row(100, 0.7)])[0]
    high = study_schedulers.thresholds([_eff_row(10, 0.95), _eff_row(100, 0.99)])[0]
    dip = study_schedulers.thresholds([_eff_row(10, 0.95), _eff_row(100, 0.5), _eff_row(1000, 0.97)])[0]
    assert low.get("threshold_ns") is None and low["below_ns"] == 100 and "every node cost" in low["verdict"]
    assert high.get("threshold_ns") is None and high["at_or_above_ns"] == 10
    assert dip["below_ns"] == 100 and dip["at_or_above_ns"] == 1000  # the last dip counts, not the first success
