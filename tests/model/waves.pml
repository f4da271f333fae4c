/* Exhaustive model of Mattern's four-counter termination detection with
 * waves over a tree of ranks (the rules of src/distrib/waves.hpp), the
 * alternative to the Dijkstra-Safra ring of safra.pml.
 *
 * N = 4 ranks in a heap tree of arity 2: parent(i) = (i - 1) / 2, so rank 0
 * (the root) has children 1 and 2, rank 1 (an interior rank) has child 3,
 * ranks 2 and 3 are leaves. The basic computation is safra.pml's: each rank
 * is active or passive; an active rank may send a basic message (an answer
 * carrying nodes) to any other rank and may become passive at any time; a
 * passive rank becomes active only by receiving a basic message. At most
 * MSGS basic messages are sent in the whole run, so the work is finite.
 * Each rank i keeps two monotone counters: s_i, the basic messages it sent,
 * and r_i, those it received. Control messages (WAVE down the tree, REPORT
 * up) are not counted and never activate a rank. Properties:
 *  - when rank 0 concludes, every rank is passive and no basic message is in
 *    flight (assert at the conclusion), so nothing can activate a rank again;
 *  - every run ends with the conclusion (valid end state: detection never
 *    hangs); with -DLIVENESS also `<> concluded` under weak fairness, which
 *    only has to deliver the basic messages: each destination's deliveries
 *    are a process of their own. The ranks' steps are one process; of them,
 *    the sends and the turns passive are bounded, and the control steps are
 *    too while a WAVE or REPORT waits undelivered or a rank that must report
 *    is active (one wave is out at a time, and it cannot complete), so a
 *    fair run cannot postpone a control message's receipt or a rank's going
 *    passive forever. Every fair run thus reaches a state where all ranks
 *    are passive with nothing in flight; from there the wave under way
 *    completes, the next one reads R = the final total of messages sent,
 *    and the one after it reads S = that total and concludes (if none
 *    concluded before). check.sh runs it once, with mutants to show that it
 *    can fail;
 *  - with -DCHECK_CHAIN also, at every wave's completion, R^k <= S^(k+1),
 *    the inequality the argument below rests on, and at the conclusion that
 *    the last wave's S and R equal the messages sent (check.sh runs it on
 *    the faithful model only, so that the mutants are caught by the property
 *    itself).
 *
 * Why it is safe (the argument of waves.hpp, shortened). Let T be the moment
 * wave k completes at the root. Every rank's wave-k report was taken at
 * t_i^k <= T (the root's at T), its wave-(k+1) report at t_i^(k+1) > T (that
 * wave starts at T). Counters are monotone and, at any time, the messages
 * received so far are at most those sent so far, so
 *   R^k = sum r_i(t_i^k) <= sum r_i(T) <= sum s_i(T) <= sum s_i(t_i^(k+1))
 *       = S^(k+1).
 * If R^k == S^(k+1) all are equal: sum r_i(T) == sum s_i(T), nothing in
 * flight at T; and no rank received anything between its wave-k report,
 * taken while passive, and T, so every rank was still passive at T. All
 * passive with nothing in flight is stable: terminated at T, and still at
 * the conclusion (the completion of wave k + 1).
 *
 * Faithful points (each step one atomic action of one rank):
 *  - send: an active rank, s_i += 1 before the message is in flight;
 *  - receipt: at any time after the send, r_j += 1, rank j active;
 *  - rank 0, passive, no wave out: start a wave (acc = (0, 0), pending = 2,
 *    WAVE to ranks 1 and 2);
 *  - rank i > 0 receiving the WAVE, at any time, passive or active: forward
 *    it to its children in the same step, waveActive, acc = (0, 0),
 *    pending = its number of children;
 *  - a rank receiving a child's REPORT(S, R), at any time: acc += (S, R),
 *    pending -= 1;
 *  - rank i > 0 with waveActive, pending == 0 and passive: REPORT(acc.S +
 *    s_i, acc.R + r_i) to its parent, the counters read in that step;
 *  - rank 0 with a wave out, pending == 0 and passive: total = (acc.S + s_0,
 *    acc.R + r_0); conclude if a wave completed before and its total R ==
 *    total.S, else remember total.R and start the next wave at once;
 *  - WAVE and REPORT messages travel separately from their sending and
 *    handling: they may be delayed arbitrarily, and basic messages overtake
 *    them in any way.
 * Simplified:
 *  - a control message in flight is a flag per tree edge (and the REPORT's
 *    sums): one wave is out at a time and every rank reports to its parent
 *    before the next wave can start, so at most one control message is on
 *    an edge at any time (asserted at every send, with no WAVE reaching a
 *    rank still in the previous wave and no REPORT a rank that expects
 *    none); hence no wave id is modelled: no
 *    stale message can exist. A rank's acc is cleared when it reports (the
 *    next WAVE clears it anyway), the REPORT's sums at their receipt;
 *  - basic messages in flight are a count per destination, delivered in any
 *    order; any active rank may send to any other at any time (a superset
 *    of the request/answer exchange, as in safra.pml);
 *  - the initial activity of every rank is chosen nondeterministically (the
 *    real start, rank 0 active alone, is one of the 16 initial states);
 *  - the tree's arity is 2, not waves.hpp's kWaveArity = 4: the rules do
 *    not depend on it, and arity 2 gives 4 ranks an interior rank other
 *    than the root (arity 4 would need 6 ranks);
 *  - sizes: N = 4, MSGS = 3: 2.2 million states, about 2 s (safety)
 *    and 10 s (liveness). Tried by hand: MSGS = 4 is clean too, safety (19
 *    million states, 24 s) and liveness (136 s); MSGS = 5 safety too (129
 *    million states, 7 min with -DCOLLAPSE).
 *
 * Mutations that must be caught (check.sh verifies they are; each is also
 * caught from the real start alone, with MSGS = 3):
 *   -DBUG_REPORT_WHILE_ACTIVE  a rank i > 0 reports without waiting to be
 *        passive: rank 3, active and sending nothing, reports (0, 0) in two
 *        waves of zeros, and rank 0 concludes while rank 3 is active
 *   -DBUG_ROOT_ACTIVE          rank 0 starts and completes waves while
 *        active: the same run with rank 0 the active one
 *   -DBUG_ONE_WAVE             rank 0 concludes after a single wave whose
 *        total S == R: rank 3, active, sends m1 to rank 2 (s_3 = 1); rank 2,
 *        passive, reports (0, 0); m1 activates rank 2 (r_2 = 1), which sends
 *        m2 to rank 3 (s_2 = 1, never counted in this wave); m2 reaches rank
 *        3 (r_3 = 1), which goes passive and reports (1, 1): total (1, 1)
 *        while rank 2 is active
 *   -DBUG_LOST_COUNTER         rank 1 drops its child's REPORT sums (still
 *        counting the REPORT against pending): rank 3 sends a message and
 *        goes passive before the first wave; two waves of zeros conclude
 *        with the message in flight
 *   -DBUG_NO_FORWARD_WHEN_ACTIVE  rank 1, active when the WAVE arrives, does
 *        not forward it to rank 3 but still waits for its REPORT: the wave
 *        never completes (an invalid end state, and with -DLIVENESS an
 *        acceptance cycle: every rank passive, nothing in flight, no
 *        conclusion)
 * and, with -DLIVENESS only (it breaks progress, not safety):
 *   -DBUG_STALE_PREV           rank 0 keeps the first wave's total R instead
 *        of the last one's: if some message is received after its receiver's
 *        wave-1 report, R^1 is below the messages sent in all, which every
 *        wave started after the end reads as S, and waves go round forever
 *        among passive ranks (check.sh also runs its safety check, which
 *        must stay clean: R^1 == S^k still proves termination, by the
 *        argument above with R^1 <= R^(k-1))
 */
#define N 4
#ifndef MSGS
#define MSGS 3
#endif

bool act[N];
byte s[N];                /* basic messages sent by each rank (monotone) */
byte r[N];                /* basic messages received by each rank (monotone) */
byte inflight[N];         /* basic messages in flight to each rank */
bool wave[N];             /* a WAVE in flight from rank i's parent to rank i */
bool rep[N];              /* a REPORT in flight from rank i to its parent */
byte repS[N];             /* its sums */
byte repR[N];
bool inwave[N];           /* rank i > 0: waveActive; rank 0: a wave is out */
byte accS[N];             /* the children's reported sums in this wave */
byte accR[N];
byte pending[N];          /* the children yet to report in this wave */
bool havePrev = false;    /* rank 0: a wave has completed */
byte prevR = 0;           /* rank 0: the last completed wave's total R */
bool concluded = false;

#define SENT (s[0] + s[1] + s[2] + s[3])
#define TOTS (accS[0] + s[0])  /* the wave's totals, rank 0's own included */
#define TOTR (accR[0] + r[0])

#ifdef LIVENESS
ltl eventually_done { <> concluded }
#endif

#ifdef BUG_REPORT_WHILE_ACTIVE
#define MAY_REPORT(i) true                            /* wrong */
#else
#define MAY_REPORT(i) !act[i]
#endif
#ifdef BUG_ROOT_ACTIVE
#define ROOT_MAY true                                 /* wrong */
#else
#define ROOT_MAY !act[0]
#endif
#ifdef BUG_ONE_WAVE
#define CONCLUDES (TOTS == TOTR)                      /* wrong */
#else
#define CONCLUDES (havePrev && prevR == TOTS)
#endif
#ifdef BUG_STALE_PREV
#define KEEP_PREV if :: !havePrev -> prevR = TOTR :: else fi  /* wrong */
#else
#define KEEP_PREV prevR = TOTR
#endif

/* rank i, active, sends a basic message to rank j: counted before it is in
 * flight */
#define SEND(i, j) \
  :: atomic { act[i] && SENT < MSGS -> s[i]++; inflight[j]++ }

/* the basic messages to rank j reach it, one step each, at any time (a
 * process of its own, so that weak fairness delivers every message):
 * counted, and the rank is active */
proctype Deliver(byte j) {
end:
  do
  :: atomic { inflight[j] > 0 -> inflight[j]--; r[j]++; act[j] = true }
  od
}

/* a WAVE to child c: at most one control message is ever in flight on an
 * edge (so the model needs no wave id) */
#define SEND_WAVE(c) assert(!wave[c] && !rep[c] && !inwave[c]); wave[c] = true

/* rank 0 starts a wave (its children are 1 and 2) */
#define START_WAVE \
  inwave[0] = true; accS[0] = 0; accR[0] = 0; pending[0] = 2; \
  SEND_WAVE(1); SEND_WAVE(2)

/* rank i > 0 receives the WAVE, at any time, passive or active: forwards it
 * to its children (FORWARD) and waits for them (nch of them) */
#define RECV_WAVE(i, nch, FORWARD) \
  :: atomic { wave[i] -> wave[i] = false; FORWARD; \
       inwave[i] = true; accS[i] = 0; accR[i] = 0; pending[i] = nch }

/* rank p receives child c's REPORT, at any time, passive or active */
#define RECV_REPORT(c, p, ADD) \
  :: atomic { rep[c] -> assert(pending[p] > 0); ADD; pending[p]--; \
       rep[c] = false; repS[c] = 0; repR[c] = 0 }
#define ADD(c, p) accS[p] = accS[p] + repS[c]; accR[p] = accR[p] + repR[c]

/* rank i > 0, in a wave, all its children reported, passive: reads its
 * counters now and reports to its parent */
#define REPORT(i) \
  :: atomic { inwave[i] && pending[i] == 0 && MAY_REPORT(i) -> \
       assert(!rep[i]); rep[i] = true; \
       repS[i] = accS[i] + s[i]; repR[i] = accR[i] + r[i]; \
       inwave[i] = false; accS[i] = 0; accR[i] = 0 }

#ifdef BUG_LOST_COUNTER
#define ADD_3_TO_1 skip                               /* wrong */
#else
#define ADD_3_TO_1 ADD(3, 1)
#endif
#ifdef BUG_NO_FORWARD_WHEN_ACTIVE
#define FORWARD_1 if :: !act[1] -> SEND_WAVE(3) :: else fi  /* wrong */
#else
#define FORWARD_1 SEND_WAVE(3)
#endif

init {
  atomic {                                            /* any initial activity */
    if :: act[0] = true :: skip fi;
    if :: act[1] = true :: skip fi;
    if :: act[2] = true :: skip fi;
    if :: act[3] = true :: skip fi;
    run Deliver(0);
    run Deliver(1);
    run Deliver(2);
    run Deliver(3)
  };
  do
  SEND(0, 1)
  SEND(0, 2)
  SEND(0, 3)
  SEND(1, 0)
  SEND(1, 2)
  SEND(1, 3)
  SEND(2, 0)
  SEND(2, 1)
  SEND(2, 3)
  SEND(3, 0)
  SEND(3, 1)
  SEND(3, 2)
  :: act[0] -> act[0] = false                         /* becomes passive */
  :: act[1] -> act[1] = false
  :: act[2] -> act[2] = false
  :: act[3] -> act[3] = false
  RECV_WAVE(1, 1, FORWARD_1)
  RECV_WAVE(2, 0, skip)
  RECV_WAVE(3, 0, skip)
  RECV_REPORT(1, 0, ADD(1, 0))
  RECV_REPORT(2, 0, ADD(2, 0))
  RECV_REPORT(3, 1, ADD_3_TO_1)
  REPORT(1)
  REPORT(2)
  REPORT(3)
  :: atomic {                                         /* rank 0, passive, no wave out */
       !inwave[0] && ROOT_MAY -> START_WAVE
     }
  :: atomic {                                         /* rank 0, passive, wave complete */
       inwave[0] && pending[0] == 0 && ROOT_MAY ->
#ifdef CHECK_CHAIN
       assert(!havePrev || prevR <= TOTS);            /* R^k <= S^(k+1) */
#endif
       if
       :: CONCLUDES ->
#ifdef CHECK_CHAIN
          assert(TOTS == TOTR && TOTS == SENT);       /* and all are equal */
#endif
          assert(!act[0] && !act[1] && !act[2] && !act[3]);
          assert(inflight[0] == 0 && inflight[1] == 0 && inflight[2] == 0 && inflight[3] == 0);
          concluded = true;
          break
       :: else ->                                     /* the next wave, at once */
          KEEP_PREV; havePrev = true; START_WAVE
       fi
     }
  od
}
