"""Helpers for the integration tests: run the uts binary, read its JSON."""
import itertools
import json
import random
import subprocess


def run_uts(binary, args, timeout=600):
    cmd = [binary] + args
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        # Report a hang as a failed run instead of crashing the test driver.
        return subprocess.CompletedProcess(cmd, -1, e.stdout or "", "timed out after %ss" % timeout)


def run_json(binary, args, timeout=600):
    proc = run_uts(binary, args + ["--format", "json"], timeout)
    if proc.returncode != 0:
        raise AssertionError("%s exited %d: %s" % (" ".join(args), proc.returncode, proc.stderr.strip()))
    return json.loads(proc.stdout)


def until(run, happened, what, tries=5):
    """Call run() until happened(its result) holds, at most `tries` times;
    return the last result.

    For checks that an event is counted when it happens (a steal, a share,
    a sleep, a remote attempt). On 2 cores shared with other tests, the
    scheduler can keep every thief off the CPU for the whole of a run of a
    few tens of milliseconds, so one run without the event is legal and
    says nothing about the counter. A counter stuck at zero still fails
    every try. Whatever must hold on any run belongs in run() itself, so
    that it is checked on the retried runs too."""
    for n in range(1, tries + 1):
        result = run()
        if happened(result):
            if n > 1:
                print("note  %s: the event took %d runs" % (what, n), flush=True)
            return result
    print("note  %s: the event did not happen in %d runs" % (what, tries), flush=True)
    return result


def run_json_until(binary, args, happened, tries=5, each=None, timeout=600):
    """run_json until happened(record) holds (see until); each(record), when
    given, is called on every run, retried ones included."""
    def run():
        record = run_json(binary, args, timeout)
        if each is not None:
            each(record)
        return record
    return until(run, happened, " ".join(args), tries)


def hash_path(binary, extra=(), env=None):
    """The child-id hashing path a run with these arguments uses (--sha1
    auto resolves per CPU): tests print it, so a log says whether the
    AVX-512 kernel was exercised on this machine."""
    proc = subprocess.run([binary, "-t", "1", "-b", "1", "-d", "1", "--format", "json"] + list(extra),
                          capture_output=True, text=True, timeout=60, env=env)
    if proc.returncode != 0:
        raise AssertionError("hash path probe exited %d: %s" % (proc.returncode, proc.stderr.strip()))
    return json.loads(proc.stdout)["engine"]["sha1"]


def results_of(record):
    r = record["results"]
    return r["size"], r["depth"], r["leaves"], int(r["checksum"], 16)


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, label, detail=""):
        if ok:
            self.passed += 1
            print("ok    " + label, flush=True)
        else:
            self.failed += 1
            print("FAIL  " + label + ("  " + detail if detail else ""), flush=True)
        return ok

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 0 if self.failed == 0 and self.passed > 0 else 1


def signal_on_line(cmd, prefix, sig, stdout=subprocess.DEVNULL, timeout=120):
    """Run cmd and send it sig when a line of its stderr starts with prefix.
    Returns (its exit status, or None when it outlived `timeout` seconds
    and was killed; everything it wrote on stderr)."""
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith(prefix):
            proc.send_signal(sig)
            break
    seen.extend(proc.stderr.readlines())
    try:
        return proc.wait(timeout=timeout), "".join(seen)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None, "".join(seen)


def covering_design(axes, groups, allowed, needed=lambda combo: True, seed=20240612, tries=40):
    """Rows (dicts axis -> value) in which, for each group of axes, every
    combination of their values that allowed() admits and needed() asks for
    (both take a partial row) appears at least once:
    a mixed-strength covering array, built greedily as AETG does (each row the
    best of `tries` candidates, each grown from an uncovered combination, axis
    by axis, each axis taking the value that covers most). Deterministic:
    the same seed gives the same rows."""
    rng = random.Random(seed)
    values = dict(axes)
    names = [n for n, _ in axes]
    uncovered = set()
    for g in groups:
        for combo in itertools.product(*(values[a] for a in g)):
            if allowed(dict(zip(g, combo))) and needed(dict(zip(g, combo))):
                uncovered.add((g, combo))
    by_axis = {a: [g for g in groups if a in g] for a in names}

    def newly(row, axis):
        # Combinations this row covers that use `axis`, with all axes set.
        n = 0
        for g in by_axis[axis]:
            if all(x in row for x in g) and (g, tuple(row[x] for x in g)) in uncovered:
                n += 1
        return n

    rows = []
    while uncovered:
        pool = sorted(uncovered, key=repr)
        best, best_gain = None, -1
        for _ in range(tries):
            g, combo = rng.choice(pool)
            row = dict(zip(g, combo))
            rest = [a for a in names if a not in row]
            rng.shuffle(rest)
            for a in rest:
                scored = []
                for v in values[a]:
                    row[a] = v
                    if allowed(row):
                        scored.append((newly(row, a), rng.random(), v))
                del row[a]
                row[a] = max(scored)[2]
            gain = sum(1 for g2 in groups if (g2, tuple(row[x] for x in g2)) in uncovered)
            if gain > best_gain:
                best, best_gain = row, gain
        rows.append(best)
        uncovered -= {(g, tuple(best[x] for x in g)) for g in groups}
    return rows
