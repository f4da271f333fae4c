"""What every study script shares: how it stops on an error, the CPUs it may
use, a command's output, the commit it runs, and how a CSV is written."""
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fail_usage(script, message):
    """Bad usage or a bad study file: one line, exit status 2."""
    print("%s: %s" % (script, message), file=sys.stderr)
    sys.exit(2)


def fail_run(script, message):
    """A run failed or its result is wrong: exit status 1."""
    print("\n%s: %s" % (script, message), file=sys.stderr)
    sys.exit(1)


def usable_cpus():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def text_of(cmd):
    """A command's stdout, or '' if it cannot run."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def source_commit(out_dir):
    """The commit the study runs, read before any run; '-dirty' if tracked
    files differ from it (the study's own output folder aside)."""
    commit = text_of(["git", "-C", ROOT, "rev-parse", "HEAD"]).strip()
    exclude = os.path.relpath(os.path.abspath(out_dir), ROOT)
    status = ["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", "."]
    if not exclude.startswith(".."):
        status.append(":(exclude)" + exclude)
    return commit + ("-dirty" if commit and text_of(status).strip() else "")


def write_csv(path, columns, rows):
    """Rows (dicts) under `columns`, written whole (to a temporary file, then
    renamed); None (not applicable) is written empty, floats to 6 digits."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
    os.replace(tmp, path)
