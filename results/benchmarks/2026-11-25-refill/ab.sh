#!/bin/bash
# usage: abn.sh REPS TREE BIN... -- [uts args]: binaries interleaved; median, best, mean of best 3
reps=$1; tree=$2; shift 2; bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bins+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
for i in $(seq $reps); do
  for bin in "${bins[@]}"; do
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
