#!/usr/bin/env bash
# Model-check the split deque protocol with spin: the faithful model must be
# free of assertion violations and invalid end states, and each deliberately
# broken variant must be caught (so the model is not vacuous).
# usage: check.sh [SPIN]
set -u
spin=${1:-spin}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
passed=0 failed=0

verify() {  # verify LABEL EXPECT(clean|caught) [-DMUTATION]
  local label=$1 expect=$2; shift 2
  mkdir -p "$work/$label" && cd "$work/$label" || return 1
  "$spin" -a "$@" "$here/split_deque.pml" >spin.log 2>&1 || { echo "FAIL  $label: spin -a failed"; cat spin.log; failed=$((failed+1)); return; }
  $cc -O2 -DSAFETY -DVECTORSZ=4096 -DBITSTATE_OFF -o pan pan.c 2>cc.log || { echo "FAIL  $label: cc failed"; cat cc.log; failed=$((failed+1)); return; }
  ./pan -m100000 > pan.log 2>&1
  local errors states
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.log | head -1)
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | head -1)
  if grep -q "max search depth too small" pan.log; then
    echo "FAIL  $label: search depth exhausted, result incomplete"; failed=$((failed+1)); return
  fi
  if [ "$expect" = clean ] && [ "$errors" = 0 ]; then
    echo "ok    $label: no errors in $states states"; passed=$((passed+1))
  elif [ "$expect" = caught ] && [ -n "$errors" ] && [ "$errors" != 0 ]; then
    echo "ok    $label: violation found, as it must be"; passed=$((passed+1))
  else
    echo "FAIL  $label: expected $expect, got errors=$errors"; sed -n '1,20p' pan.log; failed=$((failed+1))
  fi
}

verify protocol clean
verify ignore-copying-mutant caught -DBUG_IGNORE_COPYING
verify reclaim-without-cas-mutant caught -DBUG_RECLAIM_NO_CAS
verify grow-from-top-mutant caught -DBUG_GROW_FROM_TOP
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
