"""The data the figures are drawn from, not their pixels: a study's
summary.csv rows (speedups and efficiencies with their paired intervals,
work inflation, placement), the policy labels of the legends, and what a
uts event trace gives the trace figures (tracks, state intervals, the
steal matrix, the per-thread breakdown)."""
import json

import pytest

from utstools import study_data

CPUS = len(study_data.usable_cpus())


def run_row(cell, engine, threads, rep, seconds, warmup=0, **extra):
    row = {c: "" for c in study_data.RUN_COLUMNS}
    row.update(cell=cell, tree="T", engine=engine, threads=str(threads), ranks="1", pes=str(threads),
               warmup=str(warmup), rep=str(rep), seconds=repr(seconds), protocol="split" if engine == "parallel"
               else "", nodes_per_sec=repr(1000.0 / seconds))
    row.update({k: str(v) for k, v in extra.items()})
    return row


def study_rows():
    """A sequential cell, and the parallel cell at 1 and 2 threads: 3
    measured repetitions each (plus a wild warm-up that must not count).
    Repetition i of the 2-thread cell takes exactly half the 1-thread
    cell's time, and the 1-thread cell 1.25x the sequential one."""
    seq = [8.0, 9.0, 10.0]
    rows = [run_row("T sequential", "sequential", 1, 1, 100.0, warmup=1)]
    for rep, s in enumerate(seq, 1):
        rows.append(run_row("T sequential", "sequential", 1, rep, s))
        rows.append(run_row("T threads=1", "parallel", 1, rep, 1.25 * s, pus_used=1, pus_available=2,
                            oversubscribed="false", time_work=repr(1.25 * s)))
        rows.append(run_row("T threads=2", "parallel", 2, rep, 0.625 * s, pus_used=2, pus_available=2,
                            oversubscribed="false", time_work=repr(1.5 * s)))
    return rows


def by_cell(summary):
    return {r["cell"]: r for r in summary}


def test_summary_speedups_are_exact_for_exact_ratios():
    s = by_cell(study_data.summarize(study_rows()))
    assert list(s) == ["T sequential", "T threads=1", "T threads=2"]
    two = s["T threads=2"]
    assert two["seconds_n"] == 3 and two["seconds_median"] == 0.625 * 9.0  # the warm-up left out
    # Paired by repetition, every resample has the same ratio: a point interval.
    assert (two["speedup_vs_1pe"], two["speedup_vs_1pe_ci_low"], two["speedup_vs_1pe_ci_high"]) == (2.0, 2.0, 2.0)
    assert two["speedup_vs_seq"] == pytest.approx(1.6, rel=1e-12)
    assert two["speedup_vs_seq_ci_low"] == pytest.approx(1.6, rel=1e-12)
    assert two["efficiency_vs_1pe"] == 1.0 and two["efficiency_vs_seq"] == pytest.approx(0.8, rel=1e-12)
    assert two["speedup_vs_1pe_n"] == 3 and "paired by repetition" in two["speedup_ci_method"]
    assert (two["pus_used"], two["pus_available"], two["placement_source"]) == (2, 2, "records")
    # Work inflation: summed work time over the sequential time, 1.5x in every repetition.
    assert (two["work_inflation"], two["work_inflation_n"]) == (pytest.approx(1.5, rel=1e-12), 3)
    one = s["T threads=1"]
    assert one["speedup_vs_1pe"] == 1.0 and one["speedup_vs_seq"] == pytest.approx(0.8, rel=1e-12)
    assert "speedup_vs_1pe" not in s["T sequential"] and s["T sequential"]["speedup_vs_seq"] == 1.0


def test_summary_rows_have_only_summary_columns():
    for row in study_data.summarize(study_rows()):
        assert set(row) <= set(study_data.SUMMARY_COLUMNS)


def test_summary_without_placement_estimates_pus_from_the_affinity():
    rows = [r for r in study_rows() if r["cell"] != "T threads=1"]
    for r in rows:
        r["pus_used"] = r["pus_available"] = r["oversubscribed"] = ""
    two = by_cell(study_data.summarize(rows))["T threads=2"]
    assert two["pus_used"] == min(2, CPUS) and two["placement_source"].startswith("estimate: min(PEs")
    assert "speedup_vs_1pe" not in two  # no 1-PE cell to compare with


def test_policy_labels_name_what_varies():
    row = {"protocol": "split", "steal": "half", "victim": "tree", "init": "root", "domains": "2",
           "remote_delay_ns": "10000"}
    assert study_data.policy_label(row, {"victim"}) == "victim=tree"
    assert study_data.policy_label(row, {"domains", "remote_delay_ns"}) == "domains=2, delay 10 µs"
    assert study_data.policy_label(row, set()) == "split/half/tree/root, domains=2, delay 10 µs"
    assert study_data.policy_label(dict(row, domains=""), {"domains"}) == "no domains"


# ---------------------------------------------------------------- traces

trace_plots = pytest.importorskip("utstools.trace_plots", reason="needs numpy and matplotlib "
                                  "(apt-get install python3-matplotlib)")


def state(pid, tid, name, ts, dur):
    return {"ph": "X", "cat": "state", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}


def steal(pid, tid, victim, ts, outcome, nodes, victim_rank=None):
    args = {"victim_thread": victim, "outcome": outcome, "nodes": nodes}
    if victim_rank is not None:
        args["victim_rank"] = victim_rank
    return {"ph": "X", "cat": "steal", "name": "steal", "pid": pid, "tid": tid, "ts": ts, "dur": 1, "args": args}


def write_trace(tmp_path, events, **other):
    doc = {"traceEvents": events, "otherData": dict({"protocol": "split", "dropped": [0, 0]}, **other)}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    return str(path)


def two_thread_trace(tmp_path):
    events = [{"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "thread 0"}},
              state(0, 0, "work", 0, 600), state(0, 0, "search", 600, 100), state(0, 0, "termination", 700, 300),
              state(0, 0, "idle", 800, 100),  # inside the termination interval: counted as termination
              state(0, 1, "search", 0, 50), state(0, 1, "claim", 50, 10), state(0, 1, "work", 60, 900),
              steal(0, 1, 0, 50, "success", 40), steal(0, 1, 0, 20, "empty", 0),
              steal(0, 0, 1, 650, "success", 2), steal(0, 0, 1, 660, "contended", 0)]
    return trace_plots.Trace(write_trace(tmp_path, events))


def test_trace_tracks_and_states(tmp_path):
    t = two_thread_trace(tmp_path)
    assert t.threads == [(0, 0), (0, 1)] and not t.multi_rank() and t.label((0, 1)) == "t1"
    assert t.t_start == 0.0 and t.t_end == 1000.0 and not t.truncated()
    assert t.nested == pytest.approx(100e-6)
    b = trace_plots.breakdown(t)
    assert b[(0, 0)] == pytest.approx({"work": 600e-6, "search": 100e-6, "termination": 300e-6, "idle": 0.0})
    assert b[(0, 1)] == pytest.approx({"search": 50e-6, "claim": 10e-6, "work": 900e-6})


def test_steal_matrix_counts_successes_and_nodes(tmp_path):
    t = two_thread_trace(tmp_path)
    keys, steals, nodes = trace_plots._matrix(t, lambda track: track)
    assert keys == [(0, 0), (0, 1)]
    assert steals.tolist() == [[0, 1], [1, 0]]  # thief row, victim column; failures not counted
    assert nodes.tolist() == [[0, 2], [40, 0]]


def test_multi_rank_trace_and_domains(tmp_path):
    events = [state(0, 0, "work", 0, 10), state(1, 0, "work", 0, 20), steal(1, 0, 0, 5, "success", 7, victim_rank=0)]
    t = trace_plots.Trace(write_trace(tmp_path, events, ranks=2, dropped=[0, 3],
                                      domains={"0.0": 0, "1.0": 1}))
    assert t.multi_rank() and t.label((1, 0)) == "r1 t0" and t.ranks == [0, 1]
    assert t.truncated() and t.dropped() == [0, 3]
    assert t.domains() == {(0, 0): 0, (1, 0): 1}
    _, steals, nodes = trace_plots._matrix(t, lambda track: track[0])
    assert steals.tolist() == [[0, 0], [1, 0]] and nodes.tolist() == [[0, 0], [7, 0]]


@pytest.mark.parametrize("doc, message", [
    ({"traceEvents": []}, "otherData lacks"),
    ({"events": []}, "no traceEvents list"),
    ({"traceEvents": [state(0, 0, "napping", 0, 1)], "otherData": {"protocol": "split", "dropped": 0}},
     "unknown state 'napping'"),
    ({"traceEvents": [], "otherData": {"protocol": "split", "dropped": 0}}, "no thread tracks"),
])
def test_not_a_trace_is_one_clear_error(tmp_path, doc, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(trace_plots.TraceError, match=message):
        trace_plots.Trace(str(path))
