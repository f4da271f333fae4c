/* Exhaustive model of the Chase-Lev deque in src/steal/protocols/chaselev/chase_lev.*
 * (Chase and Lev, SPAA 2005, with the C11 orders of Le, Pop, Cohen and
 * Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory
 * Models", PPoPP 2013, Figure 1), above all the race of take() and steal()
 * for the last node (t == b).
 *
 * One owner pushes the values 1..N and takes, in any order it likes (each
 * step a nondeterministic choice); THIEVES thieves steal until the owner is
 * done. The owner is done when all N are pushed and take() finds the deque
 * empty. Property: every value is returned exactly once, by take() or by a
 * successful steal() (assert on seen[] at each return, and at the end that
 * all were seen), and every returned value is a pushed one (never a slot
 * not yet written or copied).
 *
 * Faithful points (each shared access a separate step, in the code's order):
 *  - take(): b = bottom - 1; store bottom = b; [seq_cst fence] load top;
 *    t <= b: read slot b; t == b: CAS top t -> t + 1 (failure: EMPTY), then
 *    store bottom = b + 1; t < b: return the node; t > b: store bottom =
 *    b + 1, EMPTY;
 *  - push(x): room check against a cached top (top_cache_, a lower bound of
 *    top): when bottom - cached + 1 > capacity, load top into the cache;
 *    still full: grow (copy [cached top, bottom) slot by slot into an array
 *    twice the size, publish the array pointer); then write the slot, then
 *    store bottom = b + 1;
 *  - steal(): load top; [seq_cst fence] load bottom; t < b: load the array
 *    pointer, read slot t, CAS top t -> t + 1 (failure: ABORT, the thief
 *    tries again);
 *  - a retired array is never freed during the run and never written again
 *    (freed by the destructor after the final barrier), so a thief that
 *    loaded the old pointer reads it safely.
 * Simplified:
 *  - sequential consistency for every access. This is the right abstraction
 *    of the C11 code because of its fences and orders, not by assumption:
 *    the seq_cst fence in take() between its bottom store and top load and
 *    the one in steal() between its top and bottom loads forbid exactly the
 *    store-load reordering that would let owner and thief both miss each
 *    other, the CASes on top are seq_cst, and bottom and the array pointer
 *    are released after the slots they cover and acquired before they are
 *    read. Le et al. prove (Section 4 of the paper) that these orders give
 *    only behaviours the algorithm has under SC; spin checks the algorithm
 *    itself, and the mutants below remove the orderings the fences enforce;
 *  - capacities 2, 4 then 8 (N = 5 values, so up to two growths, the second
 *    while a thief may still hold the first array; an assertion checks no
 *    third one is needed); positions never wrap (the code's 64-bit indices);
 *  - sizes: N = 5, THIEVES = 2.
 *
 * Mutations that must be caught (check.sh verifies they are):
 *   -DBUG_NO_CAS_ON_LAST    take() returns the last node (t == b) without
 *        the CAS on top: owner and a thief both get it
 *   -DBUG_TOP_BEFORE_BOTTOM take() loads top before it stores the
 *        decremented bottom (the fence's order lost): a thief steals a node
 *        the owner takes as a non-last one, without a CAS
 *   -DBUG_BOTTOM_BEFORE_TOP steal() loads bottom before top: with a stale
 *        bottom it claims a position the owner has already taken
 *   -DBUG_PUBLISH_BEFORE_COPY growth publishes the new array before copying
 *        the live nodes into it: a thief reads a slot never written (shows
 *        the growth path is explored)
 */
#ifndef N
#define N 5
#endif
#ifndef THIEVES
#define THIEVES 2
#endif
#define NARR 3            /* capacities 2, 4, 8 */
#define CAPMAX 8

typedef Arr { byte s[CAPMAX] };
Arr arr[NARR];
byte cap[NARR];
short top = 0;
short bottom = 0;
byte pub = 0;             /* array_pub_ */
byte seen[N + 1];
bool owner_done = false;
byte thieves_done = 0;

inline got(x) {
  assert(x >= 1 && x <= N);                           /* a pushed value */
  assert(seen[x] == 0);                               /* returned once only */
  seen[x] = 1
}

proctype Owner() {
  short b, t, bown = 0, tcache = 0, i;
  byte a = 0, x, next = 1;
  bool won;
  do
  :: next <= N ->                                     /* push(next) */
     if
     :: bown - tcache + 1 > cap[a] ->                 /* refresh_or_grow */
        tcache = top;                                 /* acquire load */
        if
        :: bown - tcache + 1 > cap[a] ->              /* grow */
           assert(a + 1 < NARR);
           assert(bown - tcache + 1 <= cap[a + 1]);
#ifdef BUG_PUBLISH_BEFORE_COPY
           pub = a + 1;                               /* before the copies: wrong */
#endif
           i = tcache;
           do
           :: i < bown -> arr[a + 1].s[i % cap[a + 1]] = arr[a].s[i % cap[a]]; i++
           :: else -> break
           od;
           i = 0;
#ifndef BUG_PUBLISH_BEFORE_COPY
           pub = a + 1;                               /* publish (release) */
#endif
           a++
        :: else
        fi
     :: else
     fi;
     arr[a].s[bown % cap[a]] = next;                  /* the slot */
     bown++;
     bottom = bown;                                   /* release */
     next++
  :: true ->                                          /* take() */
#ifdef BUG_TOP_BEFORE_BOTTOM
     t = top;                                         /* before the store: wrong */
     b = bown - 1;
     bottom = b;
#else
     b = bown - 1;
     bottom = b;
     t = top;                                         /* after the seq_cst fence */
#endif
     if
     :: t <= b ->
        x = arr[a].s[b % cap[a]];
        if
        :: t == b ->                                  /* the last node */
#ifdef BUG_NO_CAS_ON_LAST
           bown = b;                                  /* no race for it: wrong */
           got(x)
#else
           atomic {                                   /* CAS top t -> t + 1 */
             if
             :: top == t -> top = t + 1; won = true
             :: else -> won = false
             fi
           };
           bottom = b + 1;
           bown = b + 1;
           if
           :: won -> got(x)
           :: else -> if :: next > N -> break :: else fi   /* EMPTY for certain */
           fi
#endif
        :: else -> bown = b; got(x)
        fi
     :: else ->                                       /* empty: restore bottom */
        bottom = b + 1;
        if :: next > N -> break :: else fi
     fi;
     d_step { b = 0; t = 0; x = 0; won = false }
  od;
  owner_done = true
}

proctype Thief() {
  short t, b;
  byte a, x;
  do
  :: owner_done -> break
  :: else ->                                          /* steal() */
#ifdef BUG_BOTTOM_BEFORE_TOP
     b = bottom;                                      /* before top: wrong */
     t = top;
#else
     t = top;                                         /* acquire */
     b = bottom;                                      /* after the seq_cst fence */
#endif
     if
     :: t < b ->
        a = pub;                                      /* acquire */
        x = arr[a].s[t % cap[a]];
        atomic {                                      /* CAS top t -> t + 1 */
          if
          :: top == t -> top = t + 1; got(x)
          :: else                                     /* ABORT: try again */
          fi
        }
     :: else                                          /* EMPTY */
     fi;
     d_step { t = 0; b = 0; a = 0; x = 0 }
  od;
  thieves_done++
}

init {
  byte j;
  atomic {
    cap[0] = 2;
    cap[1] = 4;
    cap[2] = 8;
    run Owner();
    j = 0;
    do
    :: j < THIEVES -> run Thief(); j++
    :: else -> break
    od;
    j = 1
  };
  (owner_done && thieves_done == THIEVES);
  assert(top == bottom);
  do
  :: j <= N -> assert(seen[j] == 1); j++              /* nothing lost */
  :: else -> break
  od
}
