#!/usr/bin/env python3
"""scripts/lib/stats.py against known data: the summary numbers against
values derived independently (by hand and with the statistics module), the
bootstrap interval of the median against its exact distribution, the
properties every interval must have, paired against unpaired speedup
intervals, and every computation path (SciPy, numpy, pure Python) against
the others.

usage: test_stats.py       (exit 0 when every check passes)

When SciPy does not import in this interpreter but /usr/bin/python3 (Debian's,
with python3-scipy) has it, the SciPy checks run again under that interpreter.
"""
import math
import os
import random
import statistics
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "lib"))
import stats  # noqa: E402

FAILED = []


def check(ok, label, detail=""):
    print("%s: %s%s" % ("ok" if ok else "FAIL", label, "" if ok or not detail else " (%s)" % detail))
    if not ok:
        FAILED.append(label)


def close(a, b, tol=1e-12):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def raises(fn, label):
    try:
        fn()
    except ValueError as e:
        check(True, label + " -> ValueError (%s)" % e)
        return
    except Exception as e:  # noqa: BLE001
        check(False, label, "raised %s, not ValueError" % type(e).__name__)
        return
    check(False, label, "no error")


def available_backends():
    return [b for b in stats.BACKENDS if stats.backend_in_use(b) == b]


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


def test_summary_numbers():
    # Hand-derived: mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32,
    # sample variance 32/7, median (4+5)/2.
    s = stats.summarize([2, 4, 4, 4, 5, 5, 7, 9])
    check(s["n"] == 8 and s["median"] == 4.5 and s["mean"] == 5.0 and s["min"] == 2 and s["max"] == 9,
          "summarize [2,4,4,4,5,5,7,9]: n 8, median 4.5, mean 5, min 2, max 9", str(s))
    check(close(s["std"], math.sqrt(32 / 7)), "sample sd is sqrt(32/7) = %.6f (divisor n-1)" % math.sqrt(32 / 7),
          str(s["std"]))
    check(close(s["cv"], math.sqrt(32 / 7) / 5), "cv is sd/mean = %.6f" % (math.sqrt(32 / 7) / 5), str(s["cv"]))
    # Odd n, against the statistics module.
    data = [1.31, 1.27, 1.45, 1.29, 1.33, 1.30, 1.52]
    s = stats.summarize(data)
    check(s["median"] == statistics.median(data) == 1.31, "odd n: median 1.31", str(s["median"]))
    check(close(s["mean"], statistics.fmean(data)) and close(s["std"], statistics.stdev(data))
          and close(s["cv"], statistics.stdev(data) / statistics.fmean(data)),
          "odd n: mean, sd, cv equal the statistics module's")
    check(list(s) == stats.summary_columns(), "summary_columns() lists summarize()'s keys in order",
          "%s vs %s" % (list(s), stats.summary_columns()))
    s = stats.summarize([3.5])
    check(s["n"] == 1 and s["median"] == 3.5 and s["std"] is None and s["cv"] is None and s["ci_low"] is None
          and s["ci_high"] is None, "n=1: median given, sd, cv and CI None", str(s))
    s = stats.summarize([-1.0, 1.0])
    check(s["mean"] == 0 and s["cv"] is None and close(s["std"], math.sqrt(2)), "mean 0: cv None, sd sqrt(2)", str(s))
    sp = stats.speedup_ci([2.0, 4.0], [1.0, 1.0])
    check(list(sp) == stats.speedup_columns() and sp["speedup"] == 3.0,
          "speedup_ci: keys as speedup_columns(), median(2,4)/median(1,1) = 3", str(sp))
    check(stats.efficiency(1.8, 2) == 0.9, "efficiency(1.8, 2) = 0.9")


def test_intervals(backend):
    tag = "[%s] " % backend
    sets = {"normal n=11": normal_sample(11, 3), "skewed n=9": [1.0, 1.01, 1.02, 1.02, 1.03, 1.05, 1.2, 1.5, 2.0],
            "even n=6": [0.51, 0.49, 0.50, 0.55, 0.48, 0.52], "n=2": [1.0, 2.0]}
    for name, data in sets.items():
        s = stats.summarize(data, backend=backend)
        check(s["ci_low"] <= s["median"] <= s["ci_high"], tag + name + ": CI contains the median",
              "%s <= %s <= %s" % (s["ci_low"], s["median"], s["ci_high"]))
        check(s["min"] <= s["ci_low"] <= s["ci_high"] <= s["max"], tag + name + ": CI within [min, max]")
        check(backend in s["ci_method"] or (backend == "python" and "pure-Python" in s["ci_method"]),
              tag + name + ": ci_method names the path: " + s["ci_method"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for data in ([1.25] * 5, [7, 7]):
            s = stats.summarize(data, backend=backend)
            check(s["ci_low"] == s["ci_high"] == s["median"] == data[0] and s["std"] == 0 and s["cv"] == 0,
                  tag + "constant sample %s: CI is the point %s, sd 0, cv 0, no warning" % (data, data[0]), str(s))
        sp = stats.speedup_ci([2.0] * 4, [1.0] * 4, backend=backend)
        check(sp["ci_low"] == sp["ci_high"] == sp["speedup"] == 2.0, tag + "constant times: speedup CI is 2.0",
              str(sp))
    # Exact bootstrap distribution of the median (odd n, distinct values).
    for data, conf in ((normal_sample(11, 5), 0.95), (normal_sample(13, 6), 0.90)):
        lo, hi, margin = exact_median_ci(data, conf)
        check(margin > 0.01, tag + "test data: quantile levels clear of the distribution's jumps (%.3f)" % margin)
        s = stats.summarize(data, confidence=conf, backend=backend)
        xs = sorted(data)
        check(close(s["ci_low"], lo) and close(s["ci_high"], hi),
              tag + "n=%d, %d%% CI equals the exact bootstrap quantiles x(%d), x(%d)" % (
                  len(data), 100 * conf, xs.index(lo) + 1, xs.index(hi) + 1),
              "got %r-%r, exact %r-%r" % (s["ci_low"], s["ci_high"], lo, hi))
    # More data from the same distribution: a narrower interval.
    small = stats.summarize(normal_sample(10, 11), backend=backend)
    large = stats.summarize(normal_sample(400, 12), backend=backend)
    w_small, w_large = small["ci_high"] - small["ci_low"], large["ci_high"] - large["ci_low"]
    check(w_large < w_small / 2, tag + "CI width n=400 %.3f < half of n=10's %.3f" % (w_large, w_small))
    # Reproducible with a seed; another seed draws other resamples.
    data = normal_sample(30, 13)
    a, b = stats.summarize(data, backend=backend), stats.summarize(data, backend=backend)
    c = stats.summarize(data, seed=2, backend=backend)
    check(a == b, tag + "same seed: identical summary")
    check((a["ci_low"], a["ci_high"]) != (c["ci_low"], c["ci_high"]), tag + "seed 2: another interval",
          "%s vs %s" % ((a["ci_low"], a["ci_high"]), (c["ci_low"], c["ci_high"])))
    b1 = stats.speedup_ci(data, normal_sample(30, 14, mu=5), backend=backend)
    b2 = stats.speedup_ci(data, normal_sample(30, 14, mu=5), backend=backend)
    check(b1 == b2, tag + "speedup_ci: same seed, identical result")
    # Paired against unpaired: repetition i of both configurations shares a
    # machine slowdown factor (uniform 1-2); the baseline is 2x the run.
    rng = random.Random(21)
    load = [rng.uniform(1.0, 2.0) for _ in range(12)]
    run = [x * rng.uniform(0.99, 1.01) for x in load]
    base = [2 * x * rng.uniform(0.99, 1.01) for x in load]
    p = stats.speedup_ci(base, run, paired=True, backend=backend)
    u = stats.speedup_ci(base, run, paired=False, backend=backend)
    wp, wu = p["ci_high"] - p["ci_low"], u["ci_high"] - u["ci_low"]
    check(p["ci_low"] <= p["speedup"] <= p["ci_high"] and u["ci_low"] <= u["speedup"] <= u["ci_high"],
          tag + "speedup CIs contain the speedup %.3f" % p["speedup"])
    check(wp < wu / 3, tag + "correlated pairs: paired CI %.3f-%.3f much narrower than unpaired %.3f-%.3f" % (
        p["ci_low"], p["ci_high"], u["ci_low"], u["ci_high"]))
    check("paired by repetition" in p["ci_method"] and "unpaired" in u["ci_method"],
          tag + "ci_method says paired or unpaired")
    exact = stats.speedup_ci([2 * x for x in run], run, paired=True, backend=backend)
    check(exact["ci_low"] == exact["ci_high"] == 2.0, tag + "baseline exactly 2x each run: paired CI is 2.0",
          str(exact))
    # Unpaired lists may differ in length.
    un = stats.speedup_ci(base[:7], run, paired=False, backend=backend)
    check(un["n_baseline"] == 7 and un["n_run"] == 12 and un["n"] == 7 and un["ci_low"] < un["ci_high"],
          tag + "unpaired speedup of 7 and 12 times", str(un))
    return {"median_ci": (a["ci_low"], a["ci_high"]), "paired": (p["ci_low"], p["ci_high"]),
            "unpaired": (u["ci_low"], u["ci_high"]),
            "even": (lambda s: (s["ci_low"], s["ci_high"]))(stats.summarize(normal_sample(20, 31), backend=backend))}


def test_errors():
    raises(lambda: stats.speedup_ci([1, 2, 3], [1, 2]), "paired speedup with 3 and 2 times")
    raises(lambda: stats.efficiency(1.5, 0), "efficiency with 0 PUs used")
    raises(lambda: stats.summarize([]), "summarize of nothing")
    raises(lambda: stats.summarize([1.0, float("nan")]), "summarize with NaN")
    raises(lambda: stats.speedup_ci([1.0, 2.0], [0.0, 1.0]), "speedup with a zero time")
    raises(lambda: stats.summarize([1, 2], confidence=95), "confidence 95 (not 0.95)")
    raises(lambda: stats.summarize([1, 2], backend="R"), "unknown backend")


def test_pus_used():
    check(stats.pus_used_of({"placement": {"pus_used": 3}}, 8) == 3, "pus_used_of: the record's placement.pus_used")
    allowed = len(os.sched_getaffinity(0))
    check(stats.pus_used_of({"placement": None}, 64) == min(64, allowed) and stats.pus_used_of({}, 1) == 1,
          "pus_used_of without placement: min(threads, %d PUs in the affinity mask)" % allowed)


def test_forced_fallback():
    env = dict(os.environ, UTS_STATS_BACKEND="python")
    out = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import stats; "
                          "print(stats.summarize([1, 2, 3])['ci_method'])" % os.path.dirname(stats.__file__)],
                         capture_output=True, text=True, env=env)
    check(out.returncode == 0 and "pure-Python fallback" in out.stdout,
          "UTS_STATS_BACKEND=python forces the fallback: " + out.stdout.strip(), out.stderr.strip())


def compare_backends(results):
    names = list(results)
    for a in names:
        for b in names:
            if a >= b:
                continue
            for key in results[a]:
                (la, ha), (lb, hb) = results[a][key], results[b][key]
                width = max(ha - la, hb - lb)
                ok = abs(la - lb) <= 0.15 * width and abs(ha - hb) <= 0.15 * width
                check(ok, "%s and %s agree on the %s CI within 15%% of its width: %.4f-%.4f vs %.4f-%.4f"
                      % (a, b, key, la, ha, lb, hb))


def main():
    test_summary_numbers()
    test_errors()
    test_pus_used()
    results = {}
    for backend in available_backends():
        results[backend] = test_intervals(backend)
    compare_backends(results)
    test_forced_fallback()
    print("paths tested in %s: %s" % (sys.executable, ", ".join(results)))
    system = "/usr/bin/python3"
    if ("scipy" not in results and not os.environ.get("UTS_STATS_TEST_CHILD") and os.path.exists(system)
            and os.path.realpath(system) != os.path.realpath(sys.executable)
            and subprocess.run([system, "-c", "import scipy.stats"], capture_output=True).returncode == 0):
        print("SciPy is missing here; running the checks again under %s" % system)
        sys.stdout.flush()
        child = subprocess.run([system, os.path.abspath(__file__)], env=dict(os.environ, UTS_STATS_TEST_CHILD="1"))
        check(child.returncode == 0, "checks under %s" % system)
    if FAILED:
        print("%d check(s) failed" % len(FAILED))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
