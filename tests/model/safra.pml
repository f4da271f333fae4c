/* Exhaustive model of the Dijkstra-Safra termination detection (EWD998)
 * across the ranks of an MPI job: the rules of src/distrib/safra.hpp as
 * src/distrib/termination_ring.cpp applies them (the token policy is SafraRing).
 *
 * N = 3 ranks in a ring 0 -> 1 -> 2 -> 0. Each rank is active or passive. An
 * active rank may send a basic message (an answer carrying nodes) to any
 * other rank and may become passive at any time; a passive rank becomes
 * active only by receiving a basic message. At most MSGS basic messages are
 * sent in the whole run, so the work is finite. Properties:
 *  - when rank 0 concludes, every rank is passive and no basic message is in
 *    flight (assert at the conclusion), so nothing can activate a rank again;
 *  - every run ends with the conclusion (valid end state: the token is
 *    never stuck); with -DLIVENESS also `<> terminated` under weak
 *    fairness, which only has to deliver the messages: each destination's
 *    deliveries are a process of their own, so a message cannot stay in
 *    flight forever while the token goes round. Sends are bounded and the
 *    token waits at an active rank, whose only other steps are those bounded
 *    sends, until it goes passive; so every fair run reaches a state where
 *    all ranks are passive with nothing in flight, and `<> terminated` says
 *    that from there the detection ends (the "no hang" paragraph of
 *    safra.hpp). check.sh runs it once, with a mutant to show it can fail;
 *  - with -DCHECK_INVARIANT also, at every state of a round, the invariant
 *    P0 || P1 || P2 || P3 that the header comment of safra.hpp argues (a
 *    monitor process; check.sh runs it on the faithful model only, so that
 *    the mutants are caught by the property itself, not by the invariant).
 *
 * Faithful points (each step one atomic action of one rank):
 *  - send (Safra::sent_basic): an active rank, c_i += 1, the message is in
 *    flight to its destination (the agent answers with nodes only from
 *    poll_busy, i.e. while the rank is active, and RankStealing counts
 *    before sending);
 *  - receipt (Safra::received_basic, then LinkHost::take): at any time after
 *    the send, c_j -= 1, rank j black and active;
 *  - rank 0, passive, token at home and no round yet: start a round
 *    (Safra::start_round: token (0, white) to rank 1, rank 0 white);
 *  - rank i > 0, passive, holding the token: pass (q + c_i, black if i is
 *    black or the token is) to i + 1 mod N, then whiten (Safra::pass);
 *  - rank 0, passive, token back: conclude when the token is white, rank 0
 *    white and q + c_0 == 0 (Safra::concludes), else start a new round
 *    (SafraRing::on_passive with round_running_ set);
 *  - a rank handles the token only when passive (RankAgent::poll_idle:
 *    wants_passive(), i.e. SafraRing::holds_token(), && quiescent()). Passive is stable there: only thread 0 receives MPI
 *    messages and all threads are idle with empty deques, so the rank
 *    cannot turn active between the check and the pass.
 * Simplified:
 *  - the token's transfer and its handling are one step: `tok` is the rank
 *    the token is travelling to or waiting at. A received token only sets
 *    SafraRing's holds_, which nobody else reads, so the token waiting
 *    unhandled at a rank is indistinguishable from its being still in flight; its
 *    handling may be delayed arbitrarily (interleaving), which covers any
 *    delay of the MPI message;
 *  - basic messages in flight are a count per destination, delivered in any
 *    order (a superset of MPI's per-pair non-overtaking order);
 *  - any active rank may send to any other at any time (a superset of the
 *    request/answer exchange: requests, refusals, DONE, STOP and COUNT
 *    carry no work, are not counted and never activate a rank);
 *  - the initial activity of every rank is chosen nondeterministically: the
 *    real start (rank 0 active with the root, the others passive) is one of
 *    the 8 initial states, "all active" another;
 *  - sizes: N = 3, MSGS = 4 (MSGS = 5 and 6 are clean too, safety and
 *    liveness, in a few seconds: tried by hand).
 *
 * Mutations that must be caught (check.sh verifies they are; each is also
 * caught from the real start alone, and the safety ones with MSGS = 3):
 *   -DBUG_NO_COUNT          counters not maintained (c always 0): rank 0
 *        sends, goes passive, and a round of passive ranks comes back white
 *        with q + c_0 = 0 while the message is in flight or has activated
 *        its receiver
 *   -DBUG_NO_BLACKEN        receipt does not blacken the receiver: rank 0
 *        sends to rank 2 and starts a round; the token passes rank 2 before
 *        the message arrives; the message activates rank 2 (c_2 = -1), which
 *        answers rank 0 (c_2 = 0); that receipt (c_0 = 0) leaves rank 0
 *        white, so the white token with q + c_0 = 0 concludes while rank 2
 *        is active (a variant that blackens rank 0 but no other rank is
 *        caught as well, tried by hand)
 *   -DBUG_IGNORE_OWN_COLOUR rank 0 concludes without checking its own
 *        colour: the same run, rank 0 black but ignored
 *   -DBUG_PASS_WHILE_ACTIVE a rank i > 0 may pass the token while active:
 *        rank 1, activated by rank 0 before the round, passes a black token
 *        (the round fails, rank 1 whitens), then, still active, a white one
 *        with q = -1, and q + c_0 = 0 concludes while it is active
 * and, with -DLIVENESS only (it breaks progress, not safety):
 *   -DBUG_NO_WHITEN         ranks never whiten (neither after passing nor
 *        rank 0 at a round's start): once a rank has received a basic
 *        message, every token is black and no round can conclude, a cycle
 *        of rounds with every rank passive (check.sh also runs its safety
 *        check, which must stay clean: never whitening can only keep rank
 *        0 from concluding)
 */
#define N 3
#ifndef MSGS
#define MSGS 4
#endif

bool act[N];
bool black[N];
short c[N];               /* basic messages sent minus received, per rank */
byte inflight[N];         /* basic messages in flight to each rank */
byte sent = 0;            /* basic messages sent so far, at most MSGS */
byte tok = 0;             /* the rank the token travels to or waits at */
short tq = 0;             /* the token's q */
bool tblack = false;      /* the token's colour */
bool round = false;       /* rank 0's round_running_ */
bool terminated = false;

#ifdef LIVENESS
ltl eventually_done { <> terminated }
#endif

#ifdef BUG_NO_COUNT
#define COUNT(s) skip                                 /* wrong */
#else
#define COUNT(s) s
#endif
#ifdef BUG_NO_BLACKEN
#define BLACKEN(j) skip                               /* wrong */
#else
#define BLACKEN(j) black[j] = true
#endif
#ifdef BUG_NO_WHITEN
#define WHITEN(i) skip                                /* wrong */
#else
#define WHITEN(i) black[i] = false
#endif
#ifdef BUG_IGNORE_OWN_COLOUR
#define OWN_WHITE true                                /* wrong */
#else
#define OWN_WHITE !black[0]
#endif
#ifdef BUG_PASS_WHILE_ACTIVE
#define MAY_PASS(i) true                              /* wrong */
#else
#define MAY_PASS(i) !act[i]
#endif

/* rank i, active, sends a basic message to rank j */
#define SEND(i, j) \
  :: atomic { act[i] && sent < MSGS -> sent++; COUNT(c[i]++); inflight[j]++ }

/* the basic messages to rank j reach it, one step each, at any time (a
 * process of its own, so that weak fairness delivers every message) */
proctype Deliver(byte j) {
end:
  do
  :: atomic { inflight[j] > 0 -> inflight[j]--; COUNT(c[j]--); BLACKEN(j); act[j] = true }
  od
}

/* rank i > 0, passive, holds the token: Safra::pass, then send it on */
#define PASS(i) \
  :: atomic { tok == i && MAY_PASS(i) -> \
       tq = tq + c[i]; tblack = tblack || black[i]; WHITEN(i); tok = (i + 1) % N }

init {
  atomic {                                            /* any initial activity */
    if :: act[0] = true :: skip fi;
    if :: act[1] = true :: skip fi;
    if :: act[2] = true :: skip fi;
    run Deliver(0);
    run Deliver(1);
    run Deliver(2)
  };
  do
  SEND(0, 1)
  SEND(0, 2)
  SEND(1, 0)
  SEND(1, 2)
  SEND(2, 0)
  SEND(2, 1)
  :: act[0] -> act[0] = false                         /* becomes passive */
  :: act[1] -> act[1] = false
  :: act[2] -> act[2] = false
  PASS(1)
  PASS(2)
  :: atomic {                                         /* rank 0, passive, token here */
       tok == 0 && !act[0] ->
       if
       :: round && !tblack && OWN_WHITE && tq + c[0] == 0 ->   /* Safra::concludes */
          assert(!act[0] && !act[1] && !act[2]);
          assert(inflight[0] == 0 && inflight[1] == 0 && inflight[2] == 0);
          terminated = true;
          break
       :: else ->                                     /* Safra::start_round */
          round = true; WHITEN(0); tq = 0; tblack = false; tok = 1
       fi
     }
  od
}

#ifdef CHECK_INVARIANT
/* EWD998's invariant, as safra.hpp states it, at every state of a round.
 * The token travelling to rank tok has visited 1..tok-1 (1..N-1 when
 * tok == 0); rank 0 and tok..N-1 are unvisited. */
#define P0 ((tok == 1 && tq == 0) || \
            (tok == 2 && !act[1] && tq == c[1]) || \
            (tok == 0 && !act[1] && !act[2] && tq == c[1] + c[2]))
#define P1 ((tok == 1 && tq + c[0] + c[1] + c[2] > 0) || \
            (tok == 2 && tq + c[0] + c[2] > 0) || \
            (tok == 0 && tq + c[0] > 0))
#define P2 (black[0] || (tok == 1 && black[1]) || (tok != 0 && black[2]))
#define P3 tblack
/* and what P0 rests on: the counters add up to the messages in flight */
#define B_OK (c[0] + c[1] + c[2] == inflight[0] + inflight[1] + inflight[2])

active proctype monitor() {
end:
  atomic {
    (!B_OK || (round && !terminated && !(P0 || P1 || P2 || P3))) ->
    assert(false)
  }
}
#endif
