"""utstools.stats against known data: the summary numbers against values
derived by hand and with the statistics module, the bootstrap interval of
the median against its exact distribution, paired against unpaired speedup
intervals, and every computation path (SciPy, numpy, pure Python) against
the others. Every interval uses a fixed seed (stats' default, 1)."""
import math
import os
import random
import statistics
import subprocess
import sys
import warnings

import pytest

from utstools import stats

BACKENDS = [b for b in stats.BACKENDS if stats.backend_in_use(b) == b]


def exact_median_ci(vals, confidence):
    """The percentile interval of the bootstrap distribution of the median
    of an odd number of distinct values, from the binomial law:
    P(resampled median <= x_(k)) = P(Binomial(n, k/n) >= (n+1)/2).
    Returns (low, high, margin): margin is how far the quantile levels are
    from the nearest jump of the distribution (Monte-Carlo safety)."""
    xs = sorted(vals)
    n = len(xs)
    assert n % 2 == 1 and len(set(xs)) == n
    m = (n + 1) // 2
    cdf = [sum(math.comb(n, j) * (k / n) ** j * (1 - k / n) ** (n - j) for j in range(m, n + 1))
           for k in range(1, n + 1)]
    alpha = (1 - confidence) / 2
    ends, margin = [], 1.0
    for q in (alpha, 1 - alpha):
        k = next(i for i, c in enumerate(cdf) if c >= q)
        ends.append(xs[k])
        margin = min(margin, cdf[k] - q, q - (cdf[k - 1] if k else 0.0))
    return ends[0], ends[1], margin


def normal_sample(n, seed, mu=10.0, sigma=1.0):
    rng = random.Random(seed)
    return [rng.gauss(mu, sigma) for _ in range(n)]


def width(s):
    return s["ci_high"] - s["ci_low"]


# ---------------------------------------------------------------- numbers without resampling

def test_summary_by_hand():
    # mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, sample variance 32/7, median (4+5)/2.
    s = stats.summarize([2, 4, 4, 4, 5, 5, 7, 9])
    assert (s["n"], s["median"], s["mean"], s["min"], s["max"]) == (8, 4.5, 5.0, 2, 9)
    assert s["std"] == pytest.approx(math.sqrt(32 / 7), rel=1e-12)
    assert s["cv"] == pytest.approx(math.sqrt(32 / 7) / 5, rel=1e-12)


def test_summary_odd_n_against_statistics_module():
    data = [1.31, 1.27, 1.45, 1.29, 1.33, 1.30, 1.52]
    s = stats.summarize(data)
    assert s["median"] == statistics.median(data) == 1.31
    assert s["mean"] == pytest.approx(statistics.fmean(data), rel=1e-12)
    assert s["std"] == pytest.approx(statistics.stdev(data), rel=1e-12)
    assert s["cv"] == pytest.approx(statistics.stdev(data) / statistics.fmean(data), rel=1e-12)
    assert list(s) == stats.summary_columns()


def test_summary_of_one_value_has_no_spread_and_no_interval():
    s = stats.summarize([3.5])
    assert s["n"] == 1 and s["median"] == 3.5
    assert s["std"] is None and s["cv"] is None and s["ci_low"] is None and s["ci_high"] is None
    assert s["ci_method"] == "none (n < 2)"


def test_cv_undefined_at_mean_zero():
    s = stats.summarize([-1.0, 1.0])
    assert s["mean"] == 0 and s["cv"] is None and s["std"] == pytest.approx(math.sqrt(2))


def test_speedup_and_efficiency():
    sp = stats.speedup_ci([2.0, 4.0], [1.0, 1.0])
    assert list(sp) == stats.speedup_columns()
    assert sp["speedup"] == 3.0  # median(2, 4) / median(1, 1)
    assert stats.efficiency(1.8, 2) == 0.9


@pytest.mark.parametrize("call", [
    lambda: stats.speedup_ci([1, 2, 3], [1, 2]),           # paired needs equal lengths
    lambda: stats.efficiency(1.5, 0),
    lambda: stats.summarize([]),
    lambda: stats.summarize([1.0, float("nan")]),
    lambda: stats.summarize([1.0, float("inf")]),
    lambda: stats.speedup_ci([1.0, 2.0], [0.0, 1.0]),      # a time of zero
    lambda: stats.summarize([1, 2], confidence=95),        # a percentage, not a level
    lambda: stats.summarize([1, 2], resamples=0),
    lambda: stats.summarize([1, 2], backend="R"),
], ids=["paired lengths", "efficiency 0 PUs", "empty", "NaN", "infinity", "zero time", "confidence 95",
        "resamples 0", "unknown backend"])
def test_bad_input_is_a_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_pus_used_of():
    assert stats.pus_used_of({"placement": {"pus_used": 3}}, 8) == 3
    allowed = len(os.sched_getaffinity(0))
    assert stats.pus_used_of({"placement": None}, 64) == min(64, allowed)
    assert stats.pus_used_of({}, 1) == 1


def test_describe():
    s = {"n": 5, "median": 1.2344, "mean": 1.24, "std": 0.01, "cv": 0.008, "ci_low": 1.22, "ci_high": 1.25,
         "confidence": 0.95}
    assert stats.describe(s) == "median 1.234 (mean 1.240, sd 0.010, CV 0.8%, 95% CI 1.220-1.250, n 5)"


# ---------------------------------------------------------------- intervals, every path

@pytest.mark.parametrize("backend", BACKENDS)
def test_two_values_interval_is_their_range(backend):
    # Resampled medians of [1, 2]: 1, 1.5, 2 with probability 1/4, 1/2, 1/4;
    # the 2.5% and 97.5% quantiles are 1 and 2.
    s = stats.summarize([1.0, 2.0], backend=backend)
    assert (s["ci_low"], s["ci_high"]) == (1.0, 2.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_median_interval_against_exact_bootstrap_distribution(backend):
    for data, conf in ((normal_sample(11, 5), 0.95), (normal_sample(13, 6), 0.90),
                       ([1.0, 2.0, 3.0, 4.0, 10.0], 0.95)):
        lo, hi, margin = exact_median_ci(data, conf)
        assert margin > 0.01, "test data too close to a jump of the distribution"
        s = stats.summarize(data, confidence=conf, backend=backend)
        assert s["ci_low"] == pytest.approx(lo, rel=1e-12) and s["ci_high"] == pytest.approx(hi, rel=1e-12)
    # The outlier does not move the interval past the 4th value's neighbours.
    s = stats.summarize([1.0, 2.0, 3.0, 4.0, 10.0], backend=backend)
    assert (s["ci_low"], s["ci_high"]) == (1.0, 10.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_interval_contains_median_within_range_and_names_its_path(backend):
    sets = [normal_sample(11, 3), [1.0, 1.01, 1.02, 1.02, 1.03, 1.05, 1.2, 1.5, 2.0],
            [0.51, 0.49, 0.50, 0.55, 0.48, 0.52], [1.0, 2.0]]
    for data in sets:
        s = stats.summarize(data, backend=backend)
        assert s["min"] <= s["ci_low"] <= s["median"] <= s["ci_high"] <= s["max"]
        assert (backend in s["ci_method"]) or (backend == "python" and "pure-Python" in s["ci_method"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_samples_give_a_point_interval_without_warnings(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for data in ([1.25] * 5, [7, 7]):
            s = stats.summarize(data, backend=backend)
            assert s["ci_low"] == s["ci_high"] == s["median"] == data[0]
            assert s["std"] == 0 and s["cv"] == 0
        sp = stats.speedup_ci([2.0] * 4, [1.0] * 4, backend=backend)
        assert sp["ci_low"] == sp["ci_high"] == sp["speedup"] == 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_more_data_narrower_interval(backend):
    small = stats.summarize(normal_sample(10, 11), backend=backend)
    large = stats.summarize(normal_sample(400, 12), backend=backend)
    assert width(large) < width(small) / 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_reproduces_and_another_seed_differs(backend):
    data = normal_sample(30, 13)
    a, b = stats.summarize(data, backend=backend), stats.summarize(data, backend=backend)
    c = stats.summarize(data, seed=2, backend=backend)
    assert a == b
    assert (a["ci_low"], a["ci_high"]) != (c["ci_low"], c["ci_high"])
    run = normal_sample(30, 14, mu=5)
    assert stats.speedup_ci(data, run, backend=backend) == stats.speedup_ci(data, run, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_paired_ratio_of_two_exact_factors(backend):
    # Each run's baseline is 2x or 2.05x it (same order), so every resampled
    # ratio of medians lies in [2, 2.05], and each end has probability above
    # 1/16 (all four draws from the 2x pairs, or from the 2.05x pairs): the
    # 95% interval is exactly [2, 2.05].
    run = [1.0, 2.0, 3.0, 4.0]
    base = [2.0, 4.1, 6.0, 8.2]
    sp = stats.speedup_ci(base, run, paired=True, backend=backend)
    assert sp["speedup"] == pytest.approx((4.1 + 6.0) / (2.0 + 3.0), rel=1e-12)
    assert (sp["ci_low"], sp["ci_high"]) == pytest.approx((2.0, 2.05), rel=1e-12)
    exact = stats.speedup_ci([2 * x for x in run], run, paired=True, backend=backend)
    assert exact["ci_low"] == exact["ci_high"] == 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_paired_much_narrower_than_unpaired_on_correlated_repetitions(backend):
    # Repetition i of both configurations shares a machine slowdown factor
    # (uniform 1-2); the baseline is 2x the run.
    rng = random.Random(21)
    load = [rng.uniform(1.0, 2.0) for _ in range(12)]
    run = [x * rng.uniform(0.99, 1.01) for x in load]
    base = [2 * x * rng.uniform(0.99, 1.01) for x in load]
    p = stats.speedup_ci(base, run, paired=True, backend=backend)
    u = stats.speedup_ci(base, run, paired=False, backend=backend)
    assert p["ci_low"] <= p["speedup"] <= p["ci_high"] and u["ci_low"] <= u["speedup"] <= u["ci_high"]
    assert width(p) < width(u) / 3
    assert "paired by repetition" in p["ci_method"] and "unpaired" in u["ci_method"]
    un = stats.speedup_ci(base[:7], run, paired=False, backend=backend)
    assert (un["n_baseline"], un["n_run"], un["n"]) == (7, 12, 7) and un["ci_low"] < un["ci_high"]


def test_pure_python_path_is_reproducible_to_the_digit():
    # The pure-Python path draws with random.Random(seed): these are the
    # values seed 1 gives, and must stay so (a study's intervals are
    # recomputed from its runs.csv, on another machine too). Both ends are
    # medians of resamples: a sample value (odd n) or the mean of two.
    s = stats.summarize([0.9, 1.4, 1.0, 1.3, 1.1, 1.2, 5.0, 1.25], backend="python", resamples=1000)
    assert (s["median"], s["ci_low"], s["ci_high"]) == (1.225, 1.0, 1.4)
    p = stats.speedup_ci([2.0, 2.3, 2.1, 2.6, 2.2, 2.5], [1.0, 1.2, 1.05, 1.1, 1.15, 1.3], backend="python",
                         resamples=1000)
    assert p["speedup"] == 2.0  # median 2.25 / median 1.125
    assert p["ci_low"] == pytest.approx(2.2 / 1.15, rel=1e-12)
    assert p["ci_high"] == pytest.approx(2.55 / 1.1, rel=1e-12)
    assert p["ci_method"] == ("bootstrap percentile, 1000 resamples, median(baseline)/median(run), paired by "
                              "repetition, seed 1 (pure-Python fallback)")


def test_paths_agree_within_monte_carlo_error():
    if len(BACKENDS) < 2:
        pytest.skip("one statistics path imports here: %s" % BACKENDS)
    data = normal_sample(20, 31)
    rng = random.Random(21)
    load = [rng.uniform(1.0, 2.0) for _ in range(12)]
    run = [x * rng.uniform(0.99, 1.01) for x in load]
    base = [2 * x * rng.uniform(0.99, 1.01) for x in load]
    results = {b: {"median": stats.summarize(data, backend=b),
                   "paired": stats.speedup_ci(base, run, backend=b),
                   "unpaired": stats.speedup_ci(base, run, paired=False, backend=b)} for b in BACKENDS}
    for a in BACKENDS:
        for b in BACKENDS:
            if a < b:
                for key in results[a]:
                    x, y = results[a][key], results[b][key]
                    w = max(width(x), width(y))
                    assert abs(x["ci_low"] - y["ci_low"]) <= 0.15 * w, (a, b, key)
                    assert abs(x["ci_high"] - y["ci_high"]) <= 0.15 * w, (a, b, key)


def test_environment_forces_the_fallback():
    env = dict(os.environ, UTS_STATS_BACKEND="python")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(stats.__file__))]
                                        + [p for p in [env.get("PYTHONPATH")] if p])
    out = subprocess.run([sys.executable, "-c", "from utstools import stats; "
                          "print(stats.summarize([1, 2, 3])['ci_method'])"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "pure-Python fallback" in out.stdout
