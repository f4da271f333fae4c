#!/usr/bin/env bash
# Model-check the split deque, termination, request/response and Chase-Lev
# protocols and the ranks' Dijkstra-Safra and wave (four-counter)
# termination detections with spin:
# each faithful model must be free of assertion violations and invalid end
# states (the termination, request, Safra and wave models also of runs that
# never detect the end), and
# each deliberately broken variant must be caught (so no model is vacuous).
# Every search is exhaustive (no bitstate, no hash compaction).
# The clean searches that take longest run at smaller bounds by default
# (CI's time budget) and at the bounds named beside each below with
# UTS_TEST_EXTENDED=1 (scripts/test --extended); every broken variant is
# caught at the bounds it always ran at, so none of them is weakened.
# The checks run UTS_MODEL_JOBS at a time (default: the CPUs), each in a
# folder of its own; their lines print in the order below once all are done.
# usage: check.sh [SPIN]
# shellcheck disable=SC2046 # bound (below) prints one word or none
set -euo pipefail
spin=${1:-spin}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
jobs_max=${UTS_MODEL_JOBS:-$(nproc 2>/dev/null || echo 1)}
labels=()

# check MODEL CHECK(safety|liveness) LABEL EXPECT(clean|caught) [-DMACRO...]
#   safety:   assertions and invalid end states (pan built with -DSAFETY)
#   liveness: the model's ltl claim `eventually_done` under weak fairness
# prints one line, ok or FAIL; PAN_OPT is cc's optimisation, PAN_ARGS more
# arguments to pan.
check() {
  local model=$1 check=$2 label=$3 expect=$4; shift 4
  # A hash table of 2^22 slots (32 MB) in CI, not pan's 2^24 (128 MB), which
  # pan clears first: 0.15 s of system time for each check, more than most
  # broken variants search for; CI's largest search stores 2.3 million
  # states, about as fast with either.
  local ccflags=("${PAN_OPT:--O0}" -DVECTORSZ=4096 -DBITSTATE_OFF) panflags=(-m100000 "$(bound -w22 -w24)")
  [ -n "${PAN_ARGS:-}" ] && panflags+=("$PAN_ARGS")
  if [ "$check" = safety ]; then
    ccflags+=(-DSAFETY)
  else
    panflags+=(-a -f -N eventually_done)
  fi
  mkdir -p "$work/$label" && cd "$work/$label" || return 1
  "$spin" -a "$@" "$here/$model.pml" >spin.log 2>&1 || { echo "FAIL  $label: spin -a failed"; cat spin.log; return; }
  $cc "${ccflags[@]}" -o pan pan.c 2>cc.log || { echo "FAIL  $label: cc failed"; cat cc.log; return; }
  local start=$SECONDS
  ./pan "${panflags[@]}" > pan.log 2>&1 || true   # its log says what it found
  local secs=$((SECONDS - start))
  local errors states what
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.log | head -1)
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | head -1)
  what=$(sed -n 's/^pan:1: \(.*\) (at depth.*/\1/p' pan.log | head -1)
  if grep -q "max search depth too small" pan.log; then
    echo "FAIL  $label: search depth exhausted, result incomplete"; return
  fi
  if [ "$expect" = clean ] && [ "$errors" = 0 ]; then
    echo "ok    $label: no errors in $states states (${secs}s)"
  elif [ "$expect" = caught ] && [ -n "$errors" ] && [ "$errors" != 0 ]; then
    echo "ok    $label: violation found, as it must be: $what (${secs}s)"
  else
    echo "FAIL  $label: expected $expect, got errors=$errors"; sed -n '1,20p' pan.log
  fi
}

# verify ARGS...: check ARGS in the background, at most jobs_max at once
# (its line goes to $work/LABEL.out). The checks are independent and each
# uses one core, so where a core is free (a `meson test --suite model`
# alone, or CI while the other tests wait on their runs) they end sooner;
# the CPU they use is the same.
verify() {
  labels+=("$3")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  ( check "$@" ) > "$work/$3.out" 2>&1 &
}

# pan is compiled at -O0 (0.5-1 s of CPU): at the bounds CI runs, -O2
# (2.5-6 s) costs more in the compile than it saves in any search, and -O1
# (1.5-3 s) pays only for the searches of more than about 4 s at -O0, which
# it shortens by 30-50%: those go through verify_o1
# (results/benchmarks/2026-11-28-test-suite-times.md).
verify_o1() { PAN_OPT=-O1 verify "$@"; }

# bound CI [FULL]: a long clean search's smaller bound (CI), or its full one
# (none: the model's default) in the extended suite
# (results/benchmarks/2026-11-28-test-suite-times.md).
bound() { if [ "${UTS_TEST_EXTENDED:-}" = 1 ]; then echo "${2:-}"; else echo "$1"; fi; }

# Split deque: 1 owner, 2 thieves, 4 nodes (3 in CI), rings of capacity 2
# then 4.
verify split_deque safety deque-protocol clean $(bound -DN=3)
# Two of the broken variants are caught sooner with the transitions tried
# in reverse order (pan -t_reverse: 1.9 million states instead of 5.2
# million, and 0.3 million instead of 3.4 million); one counterexample is
# enough, whichever order finds it.
PAN_ARGS=-t_reverse verify split_deque safety deque-reclaim-moves-split-down-mutant caught -DBUG_RECLAIM_MOVES_SPLIT_DOWN
verify split_deque safety deque-validate-ring-before-word-mutant caught -DBUG_VALIDATE_RING_BEFORE_WORD
PAN_ARGS=-t_reverse verify split_deque safety deque-free-without-hazard-mutant caught -DBUG_FREE_WITHOUT_HAZARD
# The owner giving its shallowest nodes away (take_shallowest), twice, racing
# one thief (with two thieves: 55 million states, 90 s; run it by hand with
# -DGIVES=1 when changing the give).
verify split_deque safety deque-give clean -DTHIEVES=1 -DGIVES=2
verify split_deque safety deque-give-without-cas-mutant caught -DTHIEVES=1 -DGIVES=2 -DBUG_GIVE_WITHOUT_CAS
verify split_deque safety deque-give-keeps-split-mutant caught -DTHIEVES=1 -DGIVES=2 -DBUG_GIVE_KEEPS_SPLIT

# Termination: 3 threads, 2 initial items, 2 children in all; epochs up to 4
# (up to 3 for the liveness search, whose state space is several times larger;
# in CI up to 3 and 2).
verify_o1 termination safety termination-protocol clean $(bound -DEMAX=3)
verify termination safety termination-single-scan-mutant caught -DBUG_SINGLE_SCAN
verify termination safety termination-no-epoch-mutant caught -DBUG_NO_EPOCH
verify termination safety termination-busy-after-claim-mutant caught -DBUG_BUSY_AFTER_CLAIM
verify_o1 termination liveness termination-progress clean -DLIVENESS $(bound -DEMAX=2 -DEMAX=3)
verify termination liveness termination-no-idle-after-failed-claim-mutant caught -DLIVENESS -DEMAX=3 -DBUG_NO_IDLE_AFTER_FAILED_CLAIM

# Request/response handshake: 3 threads, 2 initial nodes, 2 children in all,
# 2 steal tries per thread (1 in CI; the liveness search visits ~10x its
# states).
verify request safety request-protocol clean $(bound -DATT=1)
verify request safety request-answer-without-claim-mutant caught -DBUG_ANSWER_WITHOUT_CLAIM
verify request safety request-close-blindly-mutant caught -DBUG_CLOSE_BLINDLY
verify request safety request-busy-after-post-mutant caught -DBUG_BUSY_AFTER_POST
verify request safety request-failed-withdrawal-moves-on-mutant caught -DBUG_FAILED_WITHDRAWAL_MOVES_ON
verify_o1 request liveness request-progress clean -DLIVENESS $(bound -DATT=1)
verify request liveness request-close-blindly-liveness-mutant caught -DLIVENESS -DBUG_CLOSE_BLINDLY

# Chase-Lev: 1 owner pushing 5 values and taking, 2 thieves, capacities 2, 4, 8.
verify chaselev safety chaselev-protocol clean
verify chaselev safety chaselev-take-last-without-cas-mutant caught -DBUG_NO_CAS_ON_LAST
verify chaselev safety chaselev-take-top-before-bottom-mutant caught -DBUG_TOP_BEFORE_BOTTOM
verify chaselev safety chaselev-steal-bottom-before-top-mutant caught -DBUG_BOTTOM_BEFORE_TOP
verify chaselev safety chaselev-publish-before-copy-mutant caught -DBUG_PUBLISH_BEFORE_COPY

# Dijkstra-Safra (EWD998) across 3 ranks: any initial activity, 4 basic
# messages in all; the faithful model's search checks the invariant of
# safra.hpp's comment too (its monitor adds no state: the same 122,934
# states with or without it, so one search covers both; the broken variants
# run without it, so that the property itself catches them).
verify safra safety safra-protocol-and-invariant clean -DCHECK_INVARIANT
verify safra safety safra-no-count-mutant caught -DBUG_NO_COUNT
verify safra safety safra-no-blacken-mutant caught -DBUG_NO_BLACKEN
verify safra safety safra-ignore-own-colour-mutant caught -DBUG_IGNORE_OWN_COLOUR
verify safra safety safra-pass-while-active-mutant caught -DBUG_PASS_WHILE_ACTIVE
verify safra liveness safra-progress clean -DLIVENESS
verify safra safety safra-no-whiten-is-safe clean -DBUG_NO_WHITEN
verify safra liveness safra-no-whiten-mutant caught -DLIVENESS -DBUG_NO_WHITEN
# Wave termination (Mattern's four counters) over a tree of 4 ranks (rank 1
# interior): any initial activity, 3 basic messages in all (2 in CI for the
# liveness search); the faithful model's search checks the inequality
# R^k <= S^(k+1) of waves.hpp's argument too (assertions only: the same
# 2,218,230 states with or without them; the broken variants run without).
verify_o1 waves safety waves-protocol-and-chain clean -DCHECK_CHAIN
verify waves safety waves-report-while-active-mutant caught -DBUG_REPORT_WHILE_ACTIVE
verify waves safety waves-root-active-mutant caught -DBUG_ROOT_ACTIVE
verify waves safety waves-one-wave-mutant caught -DBUG_ONE_WAVE
verify waves safety waves-lost-counter-mutant caught -DBUG_LOST_COUNTER
verify waves safety waves-no-forward-when-active-mutant caught -DBUG_NO_FORWARD_WHEN_ACTIVE
verify_o1 waves liveness waves-progress clean -DLIVENESS $(bound -DMSGS=2)
verify waves liveness waves-no-forward-when-active-liveness-mutant caught -DLIVENESS -DBUG_NO_FORWARD_WHEN_ACTIVE
verify_o1 waves safety waves-stale-prev-is-safe clean -DBUG_STALE_PREV
verify waves liveness waves-stale-prev-mutant caught -DLIVENESS -DBUG_STALE_PREV
wait
passed=0 failed=0
for label in "${labels[@]}"; do
  cat "$work/$label.out"
  first=$(head -n 1 "$work/$label.out")
  if [[ $first == "ok "* ]]; then passed=$((passed+1)); else failed=$((failed+1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
