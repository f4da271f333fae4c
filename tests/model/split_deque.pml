/* Exhaustive model of the split deque protocol in src/steal/protocols/split/split_deque.*
 * (copy-before-claim thieves, split and top only rising, reclaim by taking
 * the whole shared part, rings retired behind hazard pointers).
 *
 * One owner pushes N nodes and pops them; at any step it may also share half
 * of its private part. THIEVES thieves steal with the halving policy. Every
 * node id must be taken (popped by the owner or kept by a thief after a
 * successful claim) exactly once, whatever the interleaving, and no thief
 * may ever read a ring that has been freed.
 *
 * Faithful points (each a separate atomic step, in the code's order):
 *  - the word W = (top, split): loaded as one value, changed only by CAS
 *    (claim, share, reclaim); the owner keeps its own copy of split;
 *  - owner push: make_room when bottom == safe_end (read top once; live <
 *    capacity: reuse the ring by wrap-around with no look at thieves; else
 *    grow: new ring of double capacity, copy [top, bottom) slot by slot,
 *    publish the ring pointer, retire the old ring, scan every thief's hazard
 *    slot one load at a time and free each retired ring nobody names; a ring
 *    still named stays retired until a later growth scans again, as in
 *    free_unreferenced_rings);
 *    then a plain slot write and bottom++;
 *  - owner pop from the private part: no CAS, plain slot read;
 *  - reclaim: load W; empty -> the deque is empty; else CAS (t,s) -> (s,s),
 *    retried with the fresh value on failure; on success read slots t..s-1
 *    into scratch, ensure_room(s-t) (which may wrap the ring), write the
 *    copies to s..2s-t-1 one slot at a time, pop the deepest;
 *  - thief: load ring, announce it as hazard; loop { load W; reload ring;
 *    changed -> announce the new one and restart; k = ceil(shared/2), 0 ->
 *    give up; copy slots top..top+k-1 one slot at a time from the announced
 *    ring into a private buffer (racing the owner's writes); CAS W from the
 *    loaded value to (top+k, split); failure -> discard the copy, loop };
 *    clear the hazard. A read of a freed ring is an assertion failure (in
 *    C++ it is a use-after-free even if the value is then discarded).
 * Simplified:
 *  - the owner may share at any step with >= 2 private nodes (a superset of
 *    the code's "on request" policy); the share CAS loop is one atomic step
 *    (only the owner changes split, so every retry writes the same split);
 *  - positions never wrap (bytes, N small); the checkpoint wait of point 6
 *    (bounding the position advance during one attempt) is not modelled;
 *  - a slot holds one byte, so a read racing a write sees the old or the
 *    new value, never a torn mix (a torn value is kept only if the CAS
 *    succeeds, and then it cannot have raced, which is what is checked);
 *  - ring pointers are distinct indices, never reused (in C++ a freed
 *    address could be reused, but not while a hazard names it);
 *  - capacities 2 then 4 (N = 4: at most 3 other live nodes at any push, so
 *    one growth; an assertion checks no further growth is needed);
 *  - sequential consistency for every access (the code uses seq_cst where
 *    this order matters and acquire/release elsewhere).
 *
 *  - give (take_shallowest, an MPI rank's agent handing nodes to another
 *    rank), at most GIVES times a run, at any step: load W; n = 1 or 2 of the held nodes, shared ones first, private
 *    ones only once every shared one goes; read slots top..top+n-1; CAS W
 *    from the loaded value to (top+n, split+p), p the private nodes taken;
 *    failure -> reload and retry; success -> the n nodes are taken (given).
 *
 * Mutations that must be caught (check.sh verifies they are):
 *   -DBUG_RECLAIM_MOVES_SPLIT_DOWN  reclaim the old way: CAS (t,s) ->
 *        (t, s - ceil((s-t)/2)) and pop the reclaimed nodes in place; W can
 *        then take a value twice (ABA) and a stale copy is accepted
 *   -DBUG_VALIDATE_RING_BEFORE_WORD  the thief reloads the ring pointer
 *        before loading W instead of after: it can copy, from a ring retired
 *        meanwhile, positions that were pushed only into the new ring
 *   -DBUG_FREE_WITHOUT_HAZARD  growth frees the old ring at once, without
 *        scanning the hazard slots
 *   -DBUG_GIVE_WITHOUT_CAS  give stores the new W blindly instead of by CAS:
 *        a thief's claim of the same shared nodes also succeeds
 *   -DBUG_GIVE_KEEPS_SPLIT  give takes private nodes by raising top alone,
 *        past split: W no longer says what is shared
 */
#ifndef N
#define N 4
#endif
#ifndef THIEVES
#define THIEVES 2
#endif
#ifndef GIVES
#define GIVES 0           /* owner gives (take_shallowest) per run; check.sh runs 2 with one thief */
#endif
#define NRINGS 2
#define CAPMAX 4
#define KMAX 2            /* ceil(shared/2) <= ceil((N-1)/2) */

typedef Ring { byte s[CAPMAX] };
Ring ring[NRINGS];
byte cap[NRINGS];
bool retired[NRINGS];
bool freed[NRINGS];

byte top = 0;             /* the shared word W = (top, split) */
byte split = 0;
byte pubring = 0;         /* the ring pointer thieves load */
byte hazard[THIEVES];     /* announced ring + 1; 0 = none */

byte taken[N + 1];
bool owner_done = false;
byte thieves_done = 0;

inline take(id) {
  assert(id >= 1 && id <= N);
  assert(taken[id] == 0);
  taken[id] = 1
}

inline slot_write(pos, v) {
  ring[oring].s[(pos) % cap[oring]] = v
}

/* make_room(needed): owner only, when safe_end - bottom < needed */
inline make_room() {
  tp = top;                                         /* acquire load of W's top */
  if
  :: bottom - tp + needed <= cap[oring] ->
     safe_end = tp + cap[oring]                     /* wrap: no look at thieves */
  :: else ->                                        /* grow */
     assert(!in_reclaim);                           /* reclaim never needs growth */
     assert(oring + 1 < NRINGS);
     assert(bottom - tp + needed <= cap[oring + 1]);
     p = tp;
     do
     :: p != bottom ->
        ring[oring + 1].s[p % cap[oring + 1]] = ring[oring].s[p % cap[oring]];
        p++
     :: else -> break
     od;
     p = 0;
     retired[oring] = true;
     oring++;
     pubring = oring;                               /* publish (seq_cst) */
     safe_end = tp + cap[oring];
#ifdef BUG_FREE_WITHOUT_HAZARD
     d_step {
       r = 0;
       do
       :: r < NRINGS -> if :: retired[r] -> freed[r] = true :: else fi; r++
       :: else -> break
       od;
       r = 0
     };
#else
     /* free_unreferenced_rings: each retired ring, each hazard slot, one load at a time */
     r = 0;
     do
     :: r < NRINGS ->
        if
        :: retired[r] && !freed[r] ->
           h = 0; ref = false;
           do
           :: h < THIEVES -> if :: hazard[h] == r + 1 -> ref = true :: else fi; h++
           :: else -> break
           od;
           if :: !ref -> freed[r] = true :: else fi
        :: else
        fi;
        r++
     :: else -> break
     od;
     r = 0; h = 0; ref = false;
#endif
  fi;
  tp = 0; needed = 0
}

proctype Owner() {
  byte bottom = 0, osplit = 0, oring = 0, safe_end = 0, next_id = 1;
  byte t, s, tp, needed, p, r, h, n, i, g, fp, gives;
  bool ref, ok, in_reclaim;
  byte scratch[N];
  safe_end = cap[0];
  do
  :: next_id <= N ->                                   /* push */
     if
     :: bottom == safe_end -> needed = 1; make_room()
     :: else
     fi;
     slot_write(bottom, next_id);
     bottom++;
     next_id++
  :: bottom != osplit ->                               /* pop from the private part */
     bottom--;
     n = ring[oring].s[bottom % cap[oring]];
     take(n);
     n = 0
  :: bottom - osplit >= 2 ->                           /* share the shallowest half */
     atomic { split = osplit + (bottom - osplit) / 2; osplit = split }
  :: gives < GIVES && (bottom != osplit || top != split) ->  /* give the shallowest nodes away */
     gives++;
     if :: g = 1 :: g = 2 fi;
     do
     ::
        atomic { t = top; s = split };                 /* load W */
        n = (s - t) + (bottom - osplit);               /* held */
        if :: n > g -> n = g :: else fi;
        if :: n == 0 -> break :: else fi;
        fp = 0;
        if :: n > s - t -> fp = n - (s - t) :: else fi;
        i = 0;
        do
        :: i < n -> scratch[i] = ring[oring].s[(t + i) % cap[oring]]; i++
        :: else -> break
        od;
#ifdef BUG_GIVE_WITHOUT_CAS
        atomic { top = t + n; split = s + fp; ok = true };
#elif defined(BUG_GIVE_KEEPS_SPLIT)
        atomic {
          if
          :: top == t && split == s -> top = t + n; ok = true
          :: else -> ok = false
          fi
        };
#else
        atomic {
          if
          :: top == t && split == s -> top = t + n; split = s + fp; ok = true
          :: else -> ok = false
          fi
        };
#endif
        if
        :: ok ->
           osplit = osplit + fp;
           i = 0;
           do
           :: i < n -> take(scratch[i]); scratch[i] = 0; i++
           :: else -> break
           od;
           break
        :: else ->                                     /* a thief claimed first: retry */
           d_step { i = 0; do :: i < N -> scratch[i] = 0; i++ :: else -> break od; i = 0 }
        fi
     od;
     t = 0;
     d_step { s = 0; n = 0; g = 0; fp = 0; i = 0; ok = false }
  :: bottom == osplit ->                               /* private part dry: reclaim */
     atomic { t = top; s = split };                    /* load W */
     do
     :: s == t ->                                      /* empty for certain */
        t = 0; s = 0;
        if
        :: next_id > N -> goto finished                /* all pushed, all taken */
        :: else -> break                               /* empty for now; push more */
        fi
     :: s != t ->
#ifdef BUG_RECLAIM_MOVES_SPLIT_DOWN
        atomic {
          if
          :: top == t && split == s ->
             split = s - ((s - t) - (s - t) / 2); osplit = split; ok = true
          :: else -> t = top; s = split; ok = false
          fi
        };
        if
        :: ok ->                                       /* pop the reclaimed nodes in place */
           bottom--;
           n = ring[oring].s[bottom % cap[oring]];
           take(n);
           t = 0; s = 0; n = 0; ok = false;
           break
        :: else
        fi
#else
        atomic {
          if
          :: top == t && split == s -> top = s; ok = true
          :: else -> t = top; s = split; ok = false
          fi
        };
        if
        :: ok ->                                       /* we own [t, s) now */
           in_reclaim = true;
           i = 0;
           do
           :: i < s - t -> scratch[i] = ring[oring].s[(t + i) % cap[oring]]; i++
           :: else -> break
           od;
           if                                          /* ensure_room(s - t) */
           :: safe_end - bottom < s - t -> needed = s - t; make_room()
           :: else
           fi;
           i = 0;
           do
           :: i < s - t -> slot_write(bottom + i, scratch[i]); scratch[i] = 0; i++
           :: else -> break
           od;
           bottom = bottom + (s - t);
           in_reclaim = false;
           bottom--;                                   /* pop the deepest */
           n = ring[oring].s[bottom % cap[oring]];
           take(n);
           t = 0; s = 0; n = 0; i = 0; ok = false;
           break
        :: else
        fi
#endif
     od
  od;
finished:
  owner_done = true
}

proctype Thief(byte me) {
  byte rr, now, wt, ws, k, i;
  byte buf[KMAX];
  bool ok;
  do
  :: owner_done -> break
  :: else ->
     rr = pubring;                                     /* announce */
     hazard[me] = rr + 1;
     do
     ::
#ifdef BUG_VALIDATE_RING_BEFORE_WORD
        now = pubring;
        atomic { wt = top; ws = split };
#else
        atomic { wt = top; ws = split };               /* load W */
        now = pubring;                                 /* validate after the load */
#endif
        if
        :: now != rr -> rr = now; hazard[me] = rr + 1  /* re-announce, restart */
        :: else ->
           k = (ws - wt) - (ws - wt) / 2;              /* halving: ceil(n/2) */
           if
           :: k == 0 -> break                          /* nothing shared: give up */
           :: else
           fi;
           assert(k <= KMAX);
           i = 0;
           do
           :: i < k ->
              assert(!freed[rr]);                      /* no read of a freed ring */
              buf[i] = ring[rr].s[(wt + i) % cap[rr]];
              i++
           :: else -> break
           od;
           atomic {                                    /* claim */
             if
             :: top == wt && split == ws -> top = wt + k; ok = true
             :: else -> ok = false
             fi
           };
           if
           :: ok ->
              i = 0;
              do
              :: i < k -> take(buf[i]); buf[i] = 0; i++
              :: else -> break
              od;
              break
           :: else ->                                  /* discard the copy */
              d_step { i = 0; do :: i < KMAX -> buf[i] = 0; i++ :: else -> break od; i = 0 }
           fi
        fi
     od;
     hazard[me] = 0;                                   /* clear the hazard */
     d_step { rr = 0; now = 0; wt = 0; ws = 0; k = 0; i = 0; ok = false }
  od;
  thieves_done++
}

init {
  byte j;
  cap[0] = 2;
  cap[1] = 4;
  atomic {
    run Owner();
    j = 0;
    do
    :: j < THIEVES -> run Thief(j); j++
    :: else -> break
    od;
    j = 1
  };
  (owner_done && thieves_done == THIEVES);
  do
  :: j <= N -> assert(taken[j] == 1); j++              /* nothing lost, nothing twice */
  :: else -> break
  od
}
