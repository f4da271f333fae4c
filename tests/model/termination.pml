/* Exhaustive model of the termination protocol in src/steal/idle/termination.hpp
 * (per-thread state words (epoch, busy) and a double scan).
 *
 * P threads. Thread i alone writes S[i] = epoch * 2 + busy. Work items live
 * in the threads' deques (cnt[i]) or in the hand of the thread expanding
 * one; `work` counts them all. Thread 0 starts with ITEMS items, and
 * expanding an item may create children (SPAWN of them in all), so the work
 * is finite. Property: when a detector sets done, no work item exists
 * anywhere (assert), and every run ends with done set and every thread
 * stopped (valid end state; with -DLIVENESS, also `<> done` under weak
 * fairness, i.e. no run of idle threads that never detects the end).
 *
 * Faithful points (each a separate atomic step, in the code's order):
 *  - every thread starts busy with epoch 1 (Termination's constructor);
 *  - a thread works while pop() succeeds; pop() returning false (deque
 *    certainly empty) is the only way to idle(): store (epoch, idle);
 *  - only a busy thread creates items, into its own deque;
 *  - an idle thread picks any victim; if the victim's deque looks non-empty
 *    (a hint load) it stores (epoch + 1, busy) BEFORE its claim, then
 *    claims (ceil(half) of the victim's items, one atomic step: the claim
 *    CAS); on failure it stores (epoch, idle) again;
 *  - detect(), by any idle thread at any time, and always after a steal
 *    try found its victim empty (so an idle thread with nothing to steal
 *    keeps detecting, as one about to sleep does): scan 1 loads S[0..P-1]
 *    one at a time, giving up at a busy word; scan 2 loads them again one at
 *    a time, giving up at a word different from its scan-1 value; then done
 *    is set. Each load is one step; the local work around it is folded into
 *    that step.
 * Simplified:
 *  - a deque is a counter and a claim moves items in one atomic step (the
 *    split deque's claim is one CAS; its copy-before-claim is not needed
 *    here: a thief's copy is not work until the CAS succeeds);
 *  - the pop and the owner's own pushes are atomic steps on the counter;
 *  - epochs are bounded: a thread stops trying to steal once its epoch
 *    reaches EMAX (epochs never wrap; in C++ they are 63 bits), which keeps
 *    the state space finite; it can still detect;
 *  - sequential consistency for every access. In the code the state stores
 *    and scan loads are seq_cst, but the claim CAS is acq_rel and the
 *    victim's empty observation an acquire; the busy-before-idle order the
 *    model assumes still holds in S through strongly-happens-before (see
 *    src/steal/idle/termination.hpp);
 *  - the request-to-share and backoff are left out (they do not change S);
 *  - sizes: P = 3, ITEMS = 2, SPAWN = 2, EMAX = 4 (check.sh runs the
 *    liveness search with EMAX = 3: its state space is several times larger).
 *
 * Mutations that must be caught (check.sh verifies they are):
 *   -DBUG_SINGLE_SCAN       detect() does only scan 1
 *   -DBUG_NO_EPOCH          scan 2 compares only the busy bits, not epochs
 *   -DBUG_BUSY_AFTER_CLAIM  a thief stores busy after its claim succeeded
 * and, with -DLIVENESS only (it breaks progress, not safety):
 *   -DBUG_NO_IDLE_AFTER_FAILED_CLAIM  a thief whose claim failed stays busy,
 *        so no detector can ever succeed (shows the liveness check can fail)
 */
#define P 3
#ifndef ITEMS
#define ITEMS 2
#endif
#ifndef SPAWN
#define SPAWN 2
#endif
#ifndef EMAX
#define EMAX 4
#endif

byte S[P];          /* epoch * 2 + busy; S[i] written only by thread i */
byte cnt[P];        /* items in each deque */
byte work = ITEMS;  /* items in deques and in hand */
byte spawn = SPAWN; /* children still to be created */
bool done = false;
byte stopped = 0;

#ifdef LIVENESS
ltl eventually_done { <> done }
#endif

proctype Thread(byte me) {
  byte ep = 1, v, j, e, k;
  byte a[P];
  bool ok;
working:
  do                                                  /* while (deque.pop(node)) */
  :: atomic { cnt[me] > 0 -> cnt[me]-- } ->           /* the item is in hand */
     do                                               /* expand: maybe children */
     :: atomic { spawn > 0 -> spawn--; cnt[me]++; work++ }
     :: break
     od;
     work--                                           /* expanded */
  :: atomic { cnt[me] == 0 } -> break                 /* pop: empty for certain */
  od;
  S[me] = ep * 2;                                     /* idle() */
  do                                                  /* find_work / detect */
  :: done -> break
  :: !done && ep < EMAX ->                            /* try a steal */
     atomic {                                         /* any victim; the hint load */
       if
       :: me != 0 -> v = 0
       :: me != 1 -> v = 1
       :: me != 2 -> v = 2
       fi;
       if
       :: cnt[v] > 0 -> ok = true
       :: else -> v = 0; goto detecting               /* nothing to steal: detect */
       fi
     };
#ifndef BUG_BUSY_AFTER_CLAIM
     atomic { ep++; S[me] = ep * 2 + 1 };             /* busy() before the claim */
#endif
     atomic {                                         /* the claim CAS */
       if
       :: cnt[v] > 0 -> k = cnt[v] - cnt[v] / 2; cnt[v] = cnt[v] - k; cnt[me] = cnt[me] + k; ok = true
       :: else -> ok = false
       fi;
       k = 0; v = 0
     };
#ifdef BUG_BUSY_AFTER_CLAIM
     atomic { ep++; S[me] = ep * 2 + 1 };             /* busy() after the claim: wrong */
#endif
     if
     :: ok -> ok = false; goto working
#ifdef BUG_NO_IDLE_AFTER_FAILED_CLAIM
     :: else                                          /* stays busy: wrong */
#else
     :: else -> S[me] = ep * 2                        /* idle() again */
#endif
     fi
  :: !done ->                                         /* detect(), at any time */
detecting:
     atomic { ok = false; j = 0 };
     do                                               /* scan 1: one load per step */
     :: atomic {
          j < P; e = S[j];
          if
          :: e % 2 == 1 -> e = 0; goto failed
          :: else -> a[j] = e; e = 0; j++
          fi
        }
     :: j == P -> break
     od;
#ifndef BUG_SINGLE_SCAN
     j = 0;
     do                                               /* scan 2: one load per step */
     :: atomic {
          j < P; e = S[j];
          if
#ifdef BUG_NO_EPOCH
          :: e % 2 != a[j] % 2 -> e = 0; goto failed  /* busy bits only: wrong */
#else
          :: e != a[j] -> e = 0; goto failed
#endif
          :: else -> e = 0; j++
          fi
        }
     :: j == P -> break
     od;
#endif
     atomic {
       assert(work == 0);                             /* nothing left anywhere */
       done = true
     };
failed:
     atomic { j = 0; a[0] = 0; a[1] = 0; a[2] = 0 }
  od;
  assert(cnt[me] == 0);
  stopped++
}

init {
  atomic {
    S[0] = 3; S[1] = 3; S[2] = 3;                     /* all busy, epoch 1 */
    cnt[0] = ITEMS;
    run Thread(0);
    run Thread(1);
    run Thread(2)
  };
  stopped == P;
  assert(done && work == 0)
}
