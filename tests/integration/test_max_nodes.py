#!/usr/bin/env python3
"""--max-nodes N: the run stops with status max-nodes and a size
in [N, bound), on trees where the limit is easy to overshoot: a root with
2^31 children, an endless chain, the binomial T3 and the geometric T1L; at
every engine shape. The bound is the one docs/output.md section 8 states:

  sequential:   size < N + 2,064
  P threads:    size < N + 12,400 x P

(per thread, a poll every 1,024 nodes, passed by at most one expansion of
1,039 more; the sum is taken every 4th poll; see src/engine/worker.hpp).

usage: test_max_nodes.py UTS_BINARY
"""
import sys

from uts_check import Tally, run_uts
import json

TREES = {
    "a root with 2^31 children": ["-t", "0", "-b", "2147483647", "-q", "0", "-m", "1"],
    "an endless chain": ["-t", "0", "-b", "1", "-q", "1", "-m", "1"],
    "T3 (binomial)": ["--preset", "T3"],
    "T1L (geometric)": ["--preset", "T1L"],
    "a supercritical binomial tree": ["-t", "0", "-b", "8", "-q", "0.5", "-m", "4", "-r", "7"],
}
ENGINES = [["--sequential"], ["--threads", "1"], ["--threads", "2"], ["--threads", "8"],
           ["--threads", "4", "--protocol", "request"], ["--threads", "3", "--protocol", "locked", "--init", "balanced"],
           ["--threads", "2", "-s", "0", "--init", "balanced"]]


def bound(n, engine):
    if engine[0] == "--sequential":
        return n + 2064
    return n + 12400 * int(engine[1])


def main():
    binary = sys.argv[1]
    tally = Tally()
    worst = 0.0
    for what, tree in TREES.items():
        for engine in ENGINES:
            for n in (1000, 100000):
                p = run_uts(binary, tree + engine + ["--max-nodes", str(n), "--format", "json", "--no-progress"],
                            timeout=60)
                try:
                    rec = json.loads(p.stdout)
                    size, status = rec["results"]["size"], rec["status"]
                except ValueError:
                    size, status = -1, None
                ok = p.returncode == 0 and status == "max-nodes" and n <= size < bound(n, engine)
                if engine[0] != "--sequential":
                    worst = max(worst, (size - n) / int(engine[1]))
                tally.check(ok, "%s, %s, --max-nodes %d: stopped at %d (bound %d)" % (
                    what, " ".join(engine), n, size, bound(n, engine)), "rc=%s status=%s err=%r" % (
                    p.returncode, status, p.stderr[-300:]))
    # A limit the tree never reaches: complete, exact.
    p = run_uts(binary, ["--preset", "T3", "--threads", "2", "--max-nodes", "5000000", "--verify", "--format", "json"])
    rec = json.loads(p.stdout) if p.returncode == 0 else {}
    tally.check(rec.get("status") == "complete" and rec.get("verified") is True,
                "a limit above the tree's size: complete and verified")
    print("largest overshoot per thread seen: %.0f nodes" % worst)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
