"""Helpers for the integration tests: run the uts binary, read its JSON."""
import json
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
