#!/bin/bash
# What the traversal costs besides the hash, and whether any of it overlaps
# with the kernel (issue 22). Builds four variants of the commit checked out
# in the repository root (release, no MPI) in a temporary directory:
#   real    as committed
#   busy    + busy-loop.patch -DUTS_BUSY=50: 200 integer adds (two chains of
#           100, about 100 cycles) after each pair's kernel call, independent
#           of its results
#   fake    + fake-kernel.patch -DUTS_FAKE_KERNEL: the 80 SHA-1 rounds
#           replaced by a few multiply/xor-shift mixes (a different tree of
#           the same shape; its time is the traversal's work besides hashing)
#   fakebusy both
# then runs `uts --preset T1L --sequential` on each, interleaved, REPS times
# (default 9), and prints the median and the mean of the best 3 per variant
# in M nodes/s and ns per node.
# usage: run.sh [REPS]   (from the repository root)
set -euo pipefail
reps=${1:-9}
root=$(git rev-parse --show-toplevel)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/uts-overhead.XXXXXX)
trap 'rm -rf "$work"' EXIT
git -C "$root" worktree add -q --detach "$work/src" HEAD
trap 'git -C "$root" worktree remove --force "$work/src"; rm -rf "$work"' EXIT
(cd "$work/src" && git apply "$here/fake-kernel.patch" "$here/busy-loop.patch")
build() {  # name cpp_args
  meson setup "$work/$1" "$work/src" --buildtype release -Dmpi=disabled "-Dcpp_args=$2" >/dev/null
  ninja -C "$work/$1" uts >/dev/null
}
build real ""
build busy "-DUTS_BUSY=50"
build fake "-DUTS_FAKE_KERNEL"
build fakebusy "-DUTS_FAKE_KERNEL -DUTS_BUSY=50"
echo "commit $(git -C "$root" rev-parse --short HEAD), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$reps"); do
  for v in real busy fake fakebusy; do
    printf '%s ' "$v"
    "$work/$v/uts" --preset T1L --sequential --no-progress --format json |
      python3 -c "import json,sys; d=json.load(sys.stdin); print(d['timing']['nodes_per_sec'], d['results']['size'])"
  done
done | python3 -c "
import sys, statistics, collections
rates, sizes = collections.defaultdict(list), {}
for line in sys.stdin:
    v, r, n = line.split()
    rates[v].append(float(r) / 1e6)
    sizes[v] = int(n)
print('variant    tree size   runs  median M nodes/s  best-3 mean  ns/node (best-3)')
best = {}
for v in ('real', 'busy', 'fake', 'fakebusy'):
    x = sorted(rates[v])
    best[v] = statistics.mean(x[-3:])
    print('%-9s %11d %6d %17.2f %12.2f %16.3f' % (v, sizes[v], len(x), statistics.median(x), best[v], 1e3 / best[v]))
ns = {v: 1e3 / best[v] for v in best}
print('the 100 integer-add cycles per 32-node pair cost, in ns per node (best-3):')
print('  after the real kernel: %.3f   after the fake one: %.3f' % (ns['busy'] - ns['real'], ns['fakebusy'] - ns['fake']))
print('non-hash work (fake build): %.3f ns/node; real minus fake: %.3f ns/node' % (ns['fake'], ns['real'] - ns['fake']))
"
