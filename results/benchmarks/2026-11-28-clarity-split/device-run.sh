#!/bin/bash
# Device check of the codebase split (expander types, sha1 files, rank agent, loop_args):
# the AVX-512 path, which the 2-core development VM lacks, run exact and timed against the
# build before the split. Binaries built on the VM and carried under dev/ with their
# shared libraries: dev/new (release), dev/dbo (debugoptimized, assertions on: the slot
# ring's invariant checks; uts only), dev/old (release build of 6f13f10, before the split).
cd "$(dirname "$0")/../../.." || exit 1
R=$PWD
export UTS_PRESET_DIR=$R/configs/presets
export LD_LIBRARY_PATH=$R/dev/lib
if ! dev/new/uts --version >/dev/null 2>&1 || ! dev/old/uts --version >/dev/null 2>&1; then
  export LD_LIBRARY_PATH=$R/dev/lib:$R/dev/lib2; echo "using carried libstdc++" >&2
fi
W=/tmp/w; mkdir -p $W
log() { echo "== $(date -u +%FT%TZ) $*" | tee -a $OUT/log.txt >&2; }
{ uname -a; nproc; lscpu | head -20; grep -o -w 'avx512f\|avx512vl\|sha_ni' /proc/cpuinfo | sort | uniq -c
  python3 -c 'import sys,numpy,scipy; print(sys.version, numpy.__version__, scipy.__version__)'
  dev/new/uts --version; dev/old/uts --version; } > $OUT/env.txt 2>&1
log unit
{ for b in new; do echo "## $b unit_tests"; timeout 120 dev/$b/unit_tests 2>&1 | tail -4; echo "rc=$?"; done; } > $OUT/unit.txt 2>&1
log exact
{ ok=0; bad=0
  for b in new dbo; do
    trees="T1 T2 T3 T4 T5 T1L T2L T3L"; [ $b = dbo ] && trees="T1 T3 T1L T3L"
    for t in $trees; do for m in "--sequential" "--threads 1" "--threads 2" "--threads 16"; do
      out=$(timeout 60 dev/$b/uts --preset $t $m --sha1 avx512 --verify 2>&1)
      if echo "$out" | grep -q "Verify: OK"; then ok=$((ok+1)); else bad=$((bad+1)); echo "FAIL $b $t $m"; echo "$out" | tail -3; fi
    done; done
  done; echo "exact: $ok OK, $bad failed"; } > $OUT/exact.txt 2>&1
log "exact: $(tail -1 $OUT/exact.txt)"
log bench
timeout -s INT 140 python3 scripts/bench-sequential --reps 6 --warmup 1 --trees T1L,T3L,T1,T3 --sha1 avx512 --blocks 4000000 --build dev/new --compare dev/old --out $W/bench > $W/bench.log 2>&1
log "bench rc=$?"
mkdir -p $W/bench; cp $W/bench.log $W/bench/; tar czf $OUT/bench.tgz -C $W bench
log t16
{ echo "tree build threads nodes_per_sec (interleaved, alternating first)"
  for rep in 1 2 3 4 5; do for t in T1L T3L; do
    order="old new"; [ $((rep % 2)) = 0 ] && order="new old"
    for b in $order; do
      r=$(timeout 30 dev/$b/uts --preset $t --threads 16 --bind compact --sha1 avx512 --verify --format csv 2>/dev/null | python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); print(r[0]["nodes_per_sec"] if r else "none")' 2>/dev/null)
      echo "$t $b 16 $r"
    done; done; done; } > $OUT/t16.txt 2>&1
log done
