"""Summary statistics shared by the bench scripts and the studies.

What each number means (cite these definitions with the figures):

summarize(values) -> dict, over the n repetitions of one configuration
  n         number of values (repetitions).
  median    sample median (mean of the two middle values when n is even).
  mean      arithmetic mean.
  std       sample standard deviation, divisor n - 1 (Bessel); None if n < 2.
  cv        coefficient of variation, std / mean (a fraction, not a
            percentage); None if n < 2 or mean == 0.
  min, max  smallest and largest value.
  ci_low, ci_high
            a two-sided `confidence` (default 95%) bootstrap percentile
            confidence interval of the MEDIAN: the n values are resampled
            with replacement `resamples` times (default 10000), the median
            of each resample is taken, and the interval is the
            (1-confidence)/2 and 1-(1-confidence)/2 quantiles of those
            medians (linear interpolation between order statistics, as
            numpy.percentile). None if n < 2. When every value is equal the
            interval is that value (ci_low == ci_high == median). The
            interval always lies within [min, max]. With few repetitions the
            percentile bootstrap undercovers (at n = 5 the median's bootstrap
            distribution has only a handful of distinct values); report n.
  confidence
            the confidence level used (e.g. 0.95).
  ci_method a short description of how the interval was computed, e.g.
            "bootstrap percentile, 10000 resamples, median, seed 1 (scipy 1.10.1)".

speedup_ci(baseline, run) -> dict; values are times (smaller is faster)
  speedup   median(baseline) / median(run).
  ci_low, ci_high
            bootstrap percentile interval (as above) of that ratio of medians.
            paired=True (default): repetition i of the baseline and of the run
            are resampled together (the same index drawn for both), which is
            right when repetitions were interleaved, so rep i of every
            configuration ran under the same machine conditions; the two
            lists must then have equal length (else ValueError).
            paired=False: each list is resampled independently.
            Both lists' spreads enter the interval. None if either list has
            fewer than 2 values.
  n         number of pairs (paired), else min(len(baseline), len(run));
  n_baseline, n_run   the two lengths.

efficiency(speedup, pus_used) = speedup / pus_used, where pus_used is the
  number of processing units (hardware threads) the run actually used: the
  uts JSON record's placement.pus_used when present, else
  min(threads, len(os.sched_getaffinity(0))) (see pus_used_of()). Never the
  machine's CPU count, which ignores affinity. Efficiency can exceed 1
  (superlinear speedup or a slow baseline); it is reported, not capped.

Implementation: scipy.stats.bootstrap(method='percentile') with a fixed seed
when SciPy imports; otherwise the same percentile bootstrap with numpy, or
with the standard library alone when numpy is missing too. ci_method names
the path ("numpy fallback", "pure-Python fallback"); the fallbacks draw
different random numbers from SciPy, so their intervals agree with SciPy's
to within the bootstrap's own Monte-Carlo error, not bit for bit. Results are
reproducible for a given seed and path. The path can be forced with the
`backend` argument ("scipy", "numpy", "python") or the environment variable
UTS_STATS_BACKEND (for tests).

All functions raise ValueError on empty input, NaN or infinite values, and
speedup_ci on non-positive times.
"""
import importlib
import inspect
import math
import os
import random
import statistics
import warnings

BACKENDS = ("scipy", "numpy", "python")

_COLUMNS = ["n", "median", "mean", "std", "cv", "min", "max", "ci_low", "ci_high", "confidence", "ci_method"]
_SPEEDUP_COLUMNS = ["n", "n_baseline", "n_run", "speedup", "ci_low", "ci_high", "confidence", "ci_method"]


def summary_columns():
    """The keys summarize() returns, in CSV order."""
    return list(_COLUMNS)


def speedup_columns():
    """The keys speedup_ci() returns, in CSV order."""
    return list(_SPEEDUP_COLUMNS)


def _available(name):
    try:
        if name != "python":
            importlib.import_module("scipy.stats" if name == "scipy" else "numpy")
        return True
    except Exception:  # ImportError, or a broken installation
        return False


def backend_in_use(backend=None):
    """The path that will compute the intervals: the one asked for (argument,
    then UTS_STATS_BACKEND), else the first of scipy, numpy, python that
    imports. An unknown name is a ValueError; a named path that does not
    import falls back to the next one."""
    wanted = backend or os.environ.get("UTS_STATS_BACKEND") or "scipy"
    if wanted not in BACKENDS:
        raise ValueError("unknown statistics backend %r (scipy, numpy or python)" % wanted)
    for name in BACKENDS[BACKENDS.index(wanted):]:
        if _available(name):
            return name
    return "python"


def _check(values, what="values"):
    vals = [float(v) for v in values]
    if not vals:
        raise ValueError("no %s to summarize" % what)
    if any(math.isnan(v) or math.isinf(v) for v in vals):
        raise ValueError("%s contain NaN or infinity" % what)
    return vals


def _check_confidence(confidence, resamples):
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1, not %r" % confidence)
    if int(resamples) < 1:
        raise ValueError("resamples must be at least 1, not %r" % resamples)


def _percentile(sorted_vals, q):
    """numpy.percentile's default (linear) rule on a sorted list, q in [0, 1]."""
    pos = q * (len(sorted_vals) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_vals) - 1)
    frac = pos - lo
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * frac


def _method(backend, resamples, seed, what):
    if backend == "scipy":
        import scipy
        where = "scipy %s" % scipy.__version__
    elif backend == "numpy":
        import numpy
        where = "numpy fallback, numpy %s" % numpy.__version__
    else:
        where = "pure-Python fallback"
    return "bootstrap percentile, %d resamples, %s, seed %d (%s)" % (resamples, what, seed, where)


def _scipy_bootstrap(data, statistic, paired, confidence, resamples, seed):
    import numpy as np
    from scipy import stats as sps
    kwargs = dict(confidence_level=confidence, n_resamples=resamples, method="percentile", vectorized=True)
    if len(data) > 1:
        kwargs["paired"] = paired
    params = inspect.signature(sps.bootstrap).parameters
    if "rng" in params:  # SciPy >= 1.15
        kwargs["rng"] = np.random.default_rng(seed)
    else:
        kwargs["random_state"] = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sps.bootstrap(tuple(np.asarray(d, dtype=float) for d in data), statistic, **kwargs)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _median_ci(vals, confidence, resamples, seed, backend):
    alpha = (1 - confidence) / 2
    if backend in ("scipy", "numpy"):
        import numpy as np
    if backend == "scipy":
        return _scipy_bootstrap([vals], lambda x, axis=-1: np.median(x, axis=axis), True, confidence, resamples,
                                seed)
    n = len(vals)
    if backend == "numpy":
        rng = np.random.default_rng(seed)
        x = np.asarray(vals, dtype=float)
        meds = np.median(x[rng.integers(0, n, size=(resamples, n))], axis=1)
        lo, hi = np.percentile(meds, [alpha * 100, (1 - alpha) * 100])
        return float(lo), float(hi)
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(vals, k=n)) for _ in range(resamples))
    return _percentile(meds, alpha), _percentile(meds, 1 - alpha)


def summarize(values, *, confidence=0.95, resamples=10000, seed=1, backend=None):
    """n, median, mean, std, cv, min, max, ci_low, ci_high, confidence and
    ci_method of `values` (see the module docstring for their meaning)."""
    vals = _check(values)
    _check_confidence(confidence, resamples)
    resamples = int(resamples)
    n = len(vals)
    mean = statistics.fmean(vals)
    std = statistics.stdev(vals) if n >= 2 else None
    out = {"n": n, "median": statistics.median(vals), "mean": mean, "std": std,
           "cv": (std / mean if std is not None and mean != 0 else None),
           "min": min(vals), "max": max(vals), "ci_low": None, "ci_high": None, "confidence": confidence}
    name = backend_in_use(backend)
    if n < 2:
        out["ci_method"] = "none (n < 2)"
    elif out["min"] == out["max"]:
        out["ci_low"] = out["ci_high"] = vals[0]
        out["ci_method"] = _method(name, resamples, seed, "median") + "; all values equal"
    else:
        lo, hi = _median_ci(vals, confidence, resamples, seed, name)
        # Rounding in interpolation must not step outside the data.
        out["ci_low"], out["ci_high"] = max(lo, out["min"]), min(hi, out["max"])
        out["ci_method"] = _method(name, resamples, seed, "median")
    return out


def _ratio_ci(b, r, paired, confidence, resamples, seed, backend):
    alpha = (1 - confidence) / 2
    if backend in ("scipy", "numpy"):
        import numpy as np
    if backend == "scipy":
        def ratio(x, y, axis=-1):
            return np.median(x, axis=axis) / np.median(y, axis=axis)
        return _scipy_bootstrap([b, r], ratio, paired, confidence, resamples, seed)
    if backend == "numpy":
        rng = np.random.default_rng(seed)
        x, y = np.asarray(b, dtype=float), np.asarray(r, dtype=float)
        if paired:
            idx = rng.integers(0, len(x), size=(resamples, len(x)))
            stats_b = np.median(x[idx], axis=1) / np.median(y[idx], axis=1)
        else:
            ix = rng.integers(0, len(x), size=(resamples, len(x)))
            iy = rng.integers(0, len(y), size=(resamples, len(y)))
            stats_b = np.median(x[ix], axis=1) / np.median(y[iy], axis=1)
        lo, hi = np.percentile(stats_b, [alpha * 100, (1 - alpha) * 100])
        return float(lo), float(hi)
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        if paired:
            idx = rng.choices(range(len(b)), k=len(b))
            ratios.append(statistics.median(b[i] for i in idx) / statistics.median(r[i] for i in idx))
        else:
            ratios.append(statistics.median(rng.choices(b, k=len(b))) / statistics.median(rng.choices(r, k=len(r))))
    ratios.sort()
    return _percentile(ratios, alpha), _percentile(ratios, 1 - alpha)


def speedup_ci(baseline, run, *, paired=True, confidence=0.95, resamples=10000, seed=1, backend=None):
    """Speedup median(baseline) / median(run) of two lists of times, with a
    bootstrap percentile interval (paired by repetition index by default)."""
    b = _check(baseline, "baseline times")
    r = _check(run, "run times")
    if min(b) <= 0 or min(r) <= 0:
        raise ValueError("times must be positive")
    if paired and len(b) != len(r):
        raise ValueError("paired speedup needs as many baseline as run times (%d != %d)" % (len(b), len(r)))
    _check_confidence(confidence, resamples)
    resamples = int(resamples)
    speedup = statistics.median(b) / statistics.median(r)
    out = {"n": min(len(b), len(r)), "n_baseline": len(b), "n_run": len(r), "speedup": speedup,
           "ci_low": None, "ci_high": None, "confidence": confidence}
    name = backend_in_use(backend)
    what = "median(baseline)/median(run), %s" % ("paired by repetition" if paired else "unpaired")
    if min(len(b), len(r)) < 2:
        out["ci_method"] = "none (n < 2)"
    elif min(b) == max(b) and min(r) == max(r):
        out["ci_low"] = out["ci_high"] = speedup
        out["ci_method"] = _method(name, resamples, seed, what) + "; all values equal"
    else:
        out["ci_low"], out["ci_high"] = _ratio_ci(b, r, paired, confidence, resamples, seed, name)
        out["ci_method"] = _method(name, resamples, seed, what)
    return out


def efficiency(speedup, pus_used):
    """speedup / pus_used; ValueError when pus_used < 1."""
    if pus_used is None or pus_used < 1:
        raise ValueError("efficiency needs at least one PU used, not %r" % (pus_used,))
    return speedup / pus_used


def allowed_pus():
    """PUs this process may run on (its affinity mask), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def pus_used_of(record, threads):
    """The PUs a run used: the uts JSON record's placement.pus_used when
    present, else min(threads, PUs in this process's affinity mask)."""
    placement = (record or {}).get("placement") or {}
    used = placement.get("pus_used")
    if isinstance(used, int) and used >= 1:
        return used
    return min(int(threads), allowed_pus())


def describe(s, scale=1.0, fmt="%.3f"):
    """One line of text for a summarize() result, values multiplied by scale:
    'median 1.234 (mean 1.240, sd 0.010, CV 0.8%, 95% CI 1.220-1.250, n 5)'."""
    def f(v):
        return "-" if v is None else fmt % (v * scale)
    cv = "-" if s["cv"] is None else "%.1f%%" % (100 * s["cv"])
    return "median %s (mean %s, sd %s, CV %s, %g%% CI %s-%s, n %d)" % (
        f(s["median"]), f(s["mean"]), f(s["std"]), cv, 100 * s["confidence"], f(s["ci_low"]), f(s["ci_high"]),
        s["n"])
