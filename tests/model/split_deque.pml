/* Exhaustive model of the split deque protocol in src/parallel/split_deque.*
 * One owner pushes N nodes and pops, shares on request, reclaims and grows or
 * wraps its ring; two thieves claim with the halving policy. Every node must
 * be taken exactly once, whatever the interleaving.
 *
 * Faithful points: claim-then-copy with the copy split into per-slot steps;
 * the owner's plain slot writes and reads; the copying counter and the
 * owner's window check (top read, then copying read, as two steps); growth
 * that copies the live range into a second ring and publishes it; reclaim by
 * CAS; growth copying the whole write window. Simplifications: ring capacity 2 then 8 (the first ring wraps almost
 * at once); the window is extended whenever live < capacity (the C++ code
 * demands live < capacity/2, which only makes it grow more often).
 *
 * Mutations that must be caught (check.sh verifies they are):
 *   -DBUG_IGNORE_COPYING   extend the window without checking copying
 *   -DBUG_RECLAIM_NO_CAS   reclaim with a plain store of split (no settlement)
 *   -DBUG_GROW_FROM_TOP    growth copies only [top, bottom): a thief that
 *                          claimed earlier and loads the new ring reads junk
 */
#define N 4
#define CAP0 2
#define CAP1 8

typedef Ring { byte s[CAP1] };
Ring ring[2];
byte mask[2];

byte top = 0;        /* the shared word: top and split, changed atomically */
byte split = 0;
byte copying = 0;
bool request = false;
byte pubring = 0;    /* the ring pointer thieves read */

byte taken[N + 1];
bool owner_done = false;
byte thieves_done = 0;

inline take(id) {
  assert(id >= 1 && id <= N);
  taken[id]++;
  assert(taken[id] == 1)
}

proctype Owner() {
  byte bottom = 0, osplit = 0, oring = 0, window = 0, safe_end = CAP0, next_id = 1;
  byte t, live, cap, ws, wt, shr, back, p, n;
  do
  :: next_id <= N ->                                   /* push */
     if
     :: bottom == safe_end ->                           /* make_room */
        t = top;
        live = bottom - t;
        cap = mask[oring] + 1;
#ifdef BUG_IGNORE_COPYING
        if
        :: live < cap -> window = t; safe_end = t + cap
#else
        if
        :: live < cap && copying == 0 -> window = t; safe_end = t + cap
#endif
        :: else ->
           assert(oring == 0);
#ifdef BUG_GROW_FROM_TOP
           p = t;
#else
           p = window;                                  /* the whole window */
#endif
           do
           :: p != bottom -> ring[1].s[p & mask[1]] = ring[0].s[p & mask[0]]; p++
           :: else -> break
           od;
           oring = 1;
           pubring = 1;
           safe_end = window + CAP1
        fi
     :: else -> skip
     fi;
     ring[oring].s[bottom & mask[oring]] = next_id;
     bottom++;
     next_id++
  :: bottom != osplit ->                               /* pop from the private part */
     bottom--;
     n = ring[oring].s[bottom & mask[oring]];
     take(n)
  :: request && bottom - osplit >= 2 ->                /* share the shallowest half */
     atomic { split = osplit + (bottom - osplit) / 2 };
     osplit = split;
     request = false
  :: bottom == osplit ->                               /* private part dry: reclaim */
     atomic { wt = top; ws = split };
retry:
     shr = ws - wt;
     if
     :: shr == 0 ->
        if
        :: next_id > N -> break                        /* all pushed, all taken */
        :: else -> skip                                /* empty for now; push more */
        fi
     :: shr > 0 ->
        back = shr - shr / 2;
#ifdef BUG_RECLAIM_NO_CAS
        split = ws - back;
        osplit = ws - back;
        bottom--;
        n = ring[oring].s[bottom & mask[oring]];
        take(n)
#else
        if
        :: atomic { top == wt && split == ws -> split = ws - back };
           osplit = ws - back;
           bottom--;
           n = ring[oring].s[bottom & mask[oring]];
           take(n)
        :: atomic { else -> wt = top; ws = split };
           goto retry
        fi
#endif
     fi
  od;
  owner_done = true
}

proctype Thief() {
  byte wt, ws, k, i, r, id;
  bool ok;
  do
  :: owner_done -> break
  :: !owner_done ->
     copying++;
     atomic { wt = top; ws = split };
claim:
     if
     :: ws == wt -> copying--; request = true        /* nothing shared: ask */
     :: ws != wt ->
        k = (ws - wt) - (ws - wt) / 2;               /* ceil(n/2) */
        atomic {
          if
          :: top == wt && split == ws -> top = wt + k; ok = true
          :: else -> wt = top; ws = split; ok = false
          fi
        };
        if
        :: ok ->
           r = pubring;
           i = 0;
           do
           :: i < k -> id = ring[r].s[(wt + i) & mask[r]]; take(id); i++
           :: else -> break
           od;
           copying--
        :: !ok -> goto claim
        fi
     fi
  od;
  thieves_done++
}

init {
  mask[0] = CAP0 - 1;
  mask[1] = CAP1 - 1;
  atomic {
    run Owner();
    run Thief();
    run Thief()
  };
  (owner_done && thieves_done == 2);
  byte j = 1;
  do
  :: j <= N -> assert(taken[j] == 1); j++      /* nothing lost, nothing twice */
  :: else -> break
  od
}
