#!/bin/bash
# Device run for the AVX-512 engine (2026-11-28): probe, bench-sequential (AVX-512), default study, SHA-NI vs 71df344.
cd "$(dirname "$0")/.." || exit 1
R=$PWD
export UTS_PRESET_DIR=$R/configs/presets
export LD_LIBRARY_PATH=$R/dev/lib
if ! dev/new/uts --version >/dev/null 2>&1 || ! dev/old/uts --version >/dev/null 2>&1; then
  export LD_LIBRARY_PATH=$R/dev/lib:$R/dev/lib2; echo "using carried libstdc++" >&2
fi
W=/tmp/w; mkdir -p $W
log() { echo "== $(date -u +%FT%TZ) $*" | tee -a $OUT/log.txt >&2; }
{
  uname -a; nproc; lscpu; grep -m1 -A27 '^processor' /proc/cpuinfo; free -g
  python3 -c 'import sys,numpy,scipy,matplotlib; print(sys.version, numpy.__version__, scipy.__version__, matplotlib.__version__)'
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; dev/new/uts --version; dev/old/uts --version; which taskset python3
} > $OUT/env.txt 2>&1
log probe
{
  echo "# uts-sha1-rate 5000000: one copy on CPU 0, then 16 copies at once (taskset -c i), then one copy again"
  echo "## one copy (before)"; taskset -c 0 dev/new/uts-sha1-rate 5000000
  for i in $(seq 0 ${LASTCPU:-15}); do taskset -c $i dev/new/uts-sha1-rate 5000000 > $W/copy$i.txt 2>&1 & done; wait
  for i in $(seq 0 ${LASTCPU:-15}); do echo "## copy $i of 16"; cat $W/copy$i.txt; done
  echo "## one copy (after)"; taskset -c 0 dev/new/uts-sha1-rate 5000000
} > $OUT/probe.txt 2>&1
log bench avx512
timeout -s INT 150 scripts/bench-sequential --reps ${RA:-9} --warmup 1 --trees ${TA:-T1L,T3L,T1,T3} --sha1 avx512 --blocks 4000000 --build dev/new --out $W/bench-avx512 > $W/bench-avx512.log 2>&1
log "bench avx512 rc=$?"
mkdir -p $W/bench-avx512; cp $W/bench-avx512.log $W/bench-avx512/; tar czf $OUT/bench-avx512.tgz -C $W bench-avx512
log study
timeout -s INT 270 scripts/study scaling ${SA:-} --reps ${RS:-4} --uts dev/new/uts --out $W/default 2> $W/default.log
log "study rc=$?"
mkdir -p $W/default; cp $W/default.log $W/default/; tar czf $OUT/study.tgz -C $W default
log bench shani
timeout -s INT 70 scripts/bench-sequential --reps ${RB:-7} --warmup 1 --trees T1,T3 --sha1 shani --blocks 2000000 --build dev/new --compare dev/old --out $W/bench-shani > $W/bench-shani.log 2>&1
log "bench shani rc=$?"
mkdir -p $W/bench-shani; cp $W/bench-shani.log $W/bench-shani/; tar czf $OUT/bench-shani.tgz -C $W bench-shani
log done
