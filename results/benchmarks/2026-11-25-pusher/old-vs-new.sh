#!/bin/bash
# usage: old-vs-new.sh REPS TREE OLD_UTS NEW_UTS [uts args]: the two binaries interleaved; median, best, mean of the best 3 M nodes/s of each
reps=$1; tree=$2; a=$3; b=$4; shift 4
for i in $(seq $reps); do
  for bin in $a $b; do
    r=$($bin --preset $tree "$@" --format json --no-progress | /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(round(d['timing']['nodes_per_sec']/1e6,2))")
    echo "$bin $r"
  done
done | /usr/bin/python3 -c "
import sys,statistics,collections
d=collections.defaultdict(list)
for l in sys.stdin:
  k,v=l.split(); d[k].append(float(v))
for k,v in d.items(): print('%-24s median %.2f best %.2f top3 %.2f n=%d'%(k,statistics.median(v),max(v),statistics.mean(sorted(v)[-3:]),len(v)))
"
