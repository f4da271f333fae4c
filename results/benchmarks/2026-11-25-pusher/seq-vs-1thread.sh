#!/bin/bash
# Interleaved --sequential and --threads 1 runs of one uts binary on one preset:
# medians, best, mean of the best 3, and the ratio 1 thread / seq of each.
# Run from the repository root: results/benchmarks/2026-11-25-pusher/seq-vs-1thread.sh 9 T1L BUILD/uts --verify
reps=$1; tree=$2; bin=$3; shift 3
for i in $(seq $reps); do
  for m in seq t1; do
    if [ $m = seq ]; then a=--sequential; else a="--threads 1"; fi
    r=$($bin --preset $tree $a "$@" --format json --no-progress | /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(round(d['timing']['nodes_per_sec']/1e6,2))")
    echo "$m $r"
  done
done | /usr/bin/python3 -c "
import sys,statistics,collections
d=collections.defaultdict(list)
for l in sys.stdin:
  k,v=l.split(); d[k].append(float(v))
for k,v in d.items(): print('%-6s median %.2f best %.2f top3 %.2f n=%d'%(k,statistics.median(v),max(v),statistics.mean(sorted(v)[-3:]),len(v)))
m={k:statistics.median(v) for k,v in d.items()}; t={k:statistics.mean(sorted(v)[-3:]) for k,v in d.items()}
print('t1/seq median %.3f top3 %.3f'%(m['t1']/m['seq'], t['t1']/t['seq']))
"
