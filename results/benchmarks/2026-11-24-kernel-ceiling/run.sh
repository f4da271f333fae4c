#!/bin/bash
# Reproduces 2026-11-24-kernel-ceiling.md from the repository root:
#   results/benchmarks/2026-11-24-kernel-ceiling/run.sh BUILD_DIR
# (BUILD_DIR: a release build of uts, e.g. build-dev). Run on a quiet machine.
set -eu
here=$(dirname "$0")
build=${1:-build-dev}
gcc -O2 -Wall "$here/zmm_rates.c" -o /tmp/zmm_rates
echo "== zmm instruction rates (best of 3)"
/tmp/zmm_rates
echo "== vector instructions in the slot kernel as built"
"$here/count_ops.sh" "$build"
echo "== the kernel's own rate"
"$build/uts-sha1-rate" | grep -E 'avx512|auto_path'
echo "== T1L --sequential with G hashes per node (-g G), 3 runs each: seconds"
for g in 1 2 3; do
  for r in 1 2 3; do
    "$build/uts" --preset T1L --sequential -g "$g" --verify --format json --no-progress |
      python3 -c "import json,sys; d=json.load(sys.stdin); print('g', $g, 'seconds', round(d['timing']['seconds'], 3), 'size', d['results']['size'], 'verified', d['verified'])"
  done
done
echo "== the kernel's rounds on NB batches interleaved (two_batches.cpp), M blocks/s"
g++ -O3 -std=c++20 -I src "$here/two_batches.cpp" -o /tmp/two_batches
/tmp/two_batches
