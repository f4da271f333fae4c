#!/bin/bash
# The codegen-flags set: base (383f831) against new (the flags on
# engine.cpp and sequential.cpp), interleaved. Binaries and rate tools in
# /tmp/ab: uts-base2 / rate-base2 and uts-new / rate-new, both built with
# `meson setup --buildtype=release -Dmpi=disabled`. ab.sh is
# ../2026-11-25-refill/ab.sh (REPS TREE BIN... -- ARGS: medians).
set -e
ab=$(dirname "$0")/../2026-11-25-refill/ab.sh
w=/tmp/cgw; mkdir -p $w
for b in base2 new; do
  printf '#!/bin/sh\nexec taskset -c 1 /tmp/ab/uts-%s --sequential "$@"\n' $b > $w/$b-seq
  printf '#!/bin/sh\nexec taskset -c 1 /tmp/ab/uts-%s --threads 1 "$@"\n' $b > $w/$b-1t
  printf '#!/bin/sh\nexec /tmp/ab/uts-%s --threads 2 "$@"\n' $b > $w/$b-2t
  chmod +x $w/$b-*
done
rates() { for r in 1 2 3; do for b in base2 new; do echo "$b $(taskset -c 1 /tmp/ab/rate-$b 10000000 | grep -E 'avx512_pair|avx512_lanes_16' | tr '\n' ' ')"; done; done; }
echo "# pair kernel (taskset -c 1 uts-sha1-rate 10000000), 3 rounds"; rates
for t in T1L T3L; do echo "# $t, n = 9: --sequential and --threads 1 pinned to CPU 1, --threads 2 unpinned"
  $ab 9 $t $w/base2-seq $w/new-seq $w/base2-1t $w/new-1t $w/base2-2t $w/new-2t; done
for t in T1 T3 T2 T5 T4 T2L; do echo "# $t, n = 5"; $ab 5 $t $w/base2-seq $w/new-seq $w/base2-1t $w/new-1t; done
for p in locked request chaselev; do for t in T1L T3L; do echo "# $t --protocol $p, --threads 1, n = 5"
  $ab 5 $t $w/base2-1t $w/new-1t -- --protocol $p; done; done
for t in T1L T3L; do echo "# $t --sha1 shani, n = 3"; $ab 3 $t $w/base2-seq $w/new-seq $w/base2-1t $w/new-1t -- --sha1 shani; done
echo "# pair kernel again"; rates
