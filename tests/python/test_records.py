"""Reading and writing records: compare-records' masks (what of a text,
JSON or CSV record must match between two binaries, and what varies) and
the bench scripts' CSV values, columns and interval texts."""
import pytest

from utstools import bench_common as bc
from utstools import stats
from utstools.commands import compare_records as cr


def test_small_trees_come_from_the_integration_tests():
    assert {"T1", "T3", "bin", "geo-cyclic", "hybrid"} <= set(cr.TREES)
    assert cr.TREES["bin"] == "-t 0 -b 200 -q 0.24 -m 4 -r 2"


def test_json_mask_keeps_results_and_masks_what_varies():
    rec = {"tree": {"size": 4130071}, "timing": {"seconds": 1.5}, "machine": {"hostname": "h"},
           "build": {"commit": "abc"}, "threads": [{"thread": 0, "steals": 12, "nodes": 99}],
           "aggregates": {"steals": 12, "verified": True}}
    varies = cr.mask_json(rec, [], True)
    assert varies == {"tree": {"size": 4130071}, "timing": {"seconds": "<timing>"},
                      "machine": {"hostname": "<machine>"}, "build": {"commit": "<provenance>"},
                      "threads": [{"thread": 0, "steals": "<number>", "nodes": "<number>"}],
                      "aggregates": {"steals": "<number>", "verified": True}}
    # At one thread every statistic is deterministic: compared exactly.
    exact = cr.mask_json(rec, [], False)
    assert exact["threads"] == [{"thread": 0, "steals": 12, "nodes": 99}] and exact["aggregates"]["steals"] == 12
    assert cr.mask_json({"timing": {"seconds": None}}, [], False) == {"timing": {"seconds": None}}


def test_text_mask():
    text = ("Tree size = 4130071, tree depth = 13, num leaves = 3305118 (80.03%)\n"
            "Wallclock time = 1.234 sec, performance = 3.3 M nodes/sec\n"
            "Build: abc -O3\n"
            "steals 12   attempts 40   rate 0.300\n")
    assert cr.mask_text(text, True) == [
        "Tree size = 4130071, tree depth = 13, num leaves = 3305118 (80.03%)",
        "Wallclock time = # sec, performance = # M nodes/sec",
        "<provenance>",
        "steals # attempts # rate #"]
    # At one thread the counts stay, times (decimals) are masked.
    assert cr.mask_text("steals 12   attempts 40   rate 0.300", False) == ["steals 12 attempts 40 rate #"]


def test_csv_mask():
    header, fields = cr.mask_csv("size,seconds,steals,commit,depth\n4130071,1.5,12,abc,13\n", True)
    assert header == ["size", "seconds", "steals", "commit", "depth"]
    assert fields == {"size": "4130071", "seconds": "<timing>", "steals": "<number>", "commit": "<provenance>",
                      "depth": "13"}
    assert cr.mask_csv("size,seconds,steals\n1,,12\n", False)[1] == {"size": "1", "seconds": "", "steals": "12"}


@pytest.mark.parametrize("value, text", [(None, ""), (True, "true"), (False, "false"), (1.0 / 3, "0.333333"),
                                         (12345678.9, "1.23457e+07"), (7, 7), ("x", "x")])
def test_bench_csv_values(value, text):
    assert bc.csv_value(value) == text


def test_bench_columns_follow_the_statistics():
    assert bc.summary_cols("t")[:3] == ["t_n", "t_median", "t_mean"]
    assert bc.ratio_cols("cpu") == ["cpu_" + ("ratio" if k == "speedup" else k) for k in stats.speedup_columns()]
    sp = stats.speedup_ci([2.0, 2.0], [1.0, 1.0])
    assert list(bc.ratio_prefixed("cpu", sp)) == bc.ratio_cols("cpu")
    assert list(bc.prefixed("s", sp)) == bc.speedup_cols("s")


def test_bench_interval_texts():
    s = {"median": 1.5, "ci_low": 1.25, "ci_high": 2.0, "cv": 0.0125}
    assert bc.ci_text(s) == "1.500 [1.250, 2.000]"
    assert bc.ci_text(s, scale=1000, fmt="%.0f") == "1500 [1250, 2000]"
    assert bc.ci_text({"median": 2.0, "ci_low": None}) == "2.000 [n<2]"
    assert bc.ci_text(None) == "-" and bc.ci_text({"speedup": None}, key="speedup") == "-"
    assert bc.cv_text(s) == "1.2%" and bc.cv_text({"cv": None}) == "-"
    assert bc.median_or_none([None, 3.0, 1.0, None, 2.0]) == 2.0 and bc.median_or_none([None]) is None


def test_bench_placement_of_a_configuration():
    recs = [{"placement": {"pus_used": 2, "oversubscribed": False}}, {"placement": {"pus_used": 3,
                                                                                     "oversubscribed": True}}]
    assert bc.pus_used(recs, 8) == 3
    assert bc.oversubscribed(recs, 8) is True
    assert bc.oversubscribed([{"placement": None}], 10 ** 6) is True  # more threads than any affinity mask


def test_batch_job_and_runtime_env_are_left_out_of_the_comparison():
    # A record made in a Slurm job with OMP_* set, and one from a binary
    # older than these fields: the same once masked, in all three formats.
    new = {"results": {"size": 9}, "batch": {"system": "slurm", "job_id": "12"}, "runtime_env": {"OMP_PLACES": "cores"}}
    old = {"results": {"size": 9}}
    assert cr.mask_json(new, [], False) == cr.mask_json(old, [], False) == {"results": {"size": 9}}
    assert cr.mask_json({"results": {"size": 8}, "batch": None}, [], False) != cr.mask_json(old, [], False)
    text_new = "Tree size = 9\nBatch: Slurm job 12, 1 node\nEnvironment: OMP_PLACES=cores\nVerify: OK\n"
    assert cr.mask_text(text_new, False) == cr.mask_text("Tree size = 9\nVerify: OK\n", False)
    h_new, f_new = cr.mask_csv("tree_size,commit,batch_job_id,runtime_env\n9,abc,12,OMP_PLACES=cores\n", False)
    h_old, f_old = cr.mask_csv("tree_size,commit\n9,def\n", False)
    assert h_new == h_old == ["tree_size", "commit"] and f_new == f_old
