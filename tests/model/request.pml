/* Exhaustive model of the request/response handshake in
 * src/steal/protocols/request/ (private deques, one request cell per
 * owner, one mailbox per thief) together with the busy/idle marks that the
 * termination detection reads.
 *
 * P threads. Thread 0 starts with ITEMS nodes; expanding a node may create
 * children (SPAWN of them in all), so the work is finite. `work` counts the
 * nodes created and not yet expanded. Properties:
 *  - no node lost or duplicated: at every state the nodes in the deques, in
 *    the mailboxes and in hand add up to `work` (the monitor process);
 *  - the end is never declared while a node exists (assert at detection);
 *  - every answer or refusal goes to a thief that still waits for exactly
 *    the request that was claimed: its status is WAITING, its current
 *    request is addressed to this owner, and it is the same request (a
 *    per-thief post counter), so at most one answer per request and none to
 *    a thief that has moved on;
 *  - every run ends: all threads stop with done set (valid end state), so
 *    no thief waits forever and a request to a thread that has just gone
 *    idle is refused, not lost; with -DLIVENESS also `<> done` under weak
 *    fairness (every loop of the model is bounded, so this is the same
 *    guarantee seen as a liveness property; check.sh runs it once, with a
 *    mutant to show it can fail).
 *
 * Faithful points (each shared access a separate step, in the code's order):
 *  - cell values EMPTY, CLOSED, ANSWERING, THIEF + t; status values IDLE,
 *    WAITING, ANSWERED, REFUSED (the encodings of request_cell.hpp);
 *  - thief (steal): busy() FIRST, then status = WAITING, then the post CAS
 *    cell[v]: EMPTY -> THIEF + me; on failure idle() again and move on;
 *  - waiting: the thief loads its status until it leaves WAITING; at any
 *    time (it "waited too long") it may try ONE withdrawal CAS
 *    cell[v]: THIEF + me -> EMPTY; success: idle() and move on (nobody will
 *    write the mailbox); failure: the owner has the request, keep waiting;
 *  - the status is loaded once; REFUSED: idle(); ANSWERED: move the
 *    mailbox's nodes into the deque, stay busy, reopen the own cell
 *    (got_work: cell = EMPTY) and work;
 *  - owner (poll, after an expansion): load the cell; a thief id -> claim
 *    it by CAS id -> ANSWERING (failure: the thief withdrew, do nothing);
 *    then with >= 2 nodes either give k of them (1 <= k <= size - 1: every
 *    steal amount of the policy keeps one) or refuse, one status store;
 *    then cell = EMPTY;
 *  - owner going idle (go_idle, when its deque is empty, before idle() and
 *    before any steal of its own): exchange(cell, CLOSED); a thief id found
 *    there is refused. The cell stays CLOSED until got_work, so it is
 *    CLOSED when the thread stops (asserted);
 *  - detection by an idle thread, any time it is in the idle loop.
 * Simplified:
 *  - a deque is a counter; a node in hand is a flag; the owner's move of k
 *    nodes into the mailbox is one step (the deque is private and the
 *    mailbox is not read before the status store, which is its own step);
 *  - the owner may poll after any expansion (a superset of every N);
 *  - the termination double scan is one atomic check "every thread idle":
 *    the scan itself is model-checked in termination.pml, whose invariant
 *    (every node is held by a busy thread) is what this model must keep;
 *  - the advert and the cell pre-check a thief does before busy() are
 *    hints: the model always goes on to busy() and the CAS (a superset);
 *  - each thread makes at most ATT steal tries in all (keeps the liveness
 *    search finite; an idle thread with none left only detects);
 *  - sequential consistency for every access. The code uses release on
 *    the post CAS and the status stores, acquire on the claim CAS, the
 *    exchange and the status loads, relaxed elsewhere: each hand-over of the
 *    mailbox is a release/acquire pair, which also orders the thief's
 *    WAITING store before the owner's answer in the status's modification
 *    order (the exchange must be acquire for that too, not relaxed), and
 *    makes the thief's busy store strongly happen before its victim's idle
 *    store, as steal/idle/termination.hpp requires;
 *  - sizes: P = 3, ITEMS = 2, SPAWN = 2, ATT = 2.
 *
 * Mutations that must be caught (check.sh verifies they are):
 *   -DBUG_ANSWER_WITHOUT_CLAIM  the owner claims a request by a plain store
 *        of ANSWERING after its load, no CAS: a thief that withdrew in
 *        between gets an answer after it has moved on
 *   -DBUG_CLOSE_BLINDLY  going idle stores CLOSED without looking at the
 *        cell: a request posted just before is lost and its thief, whose
 *        withdrawal then fails, waits forever (invalid end state)
 *   -DBUG_BUSY_AFTER_POST  the thief calls busy() after its post succeeded:
 *        the end can be declared while nodes sit in its mailbox
 *   -DBUG_FAILED_WITHDRAWAL_MOVES_ON  a thief whose withdrawal CAS failed
 *        moves on as if it had succeeded: the owner answers a thief that has
 *        moved on (nodes lost, or two answers in one mailbox)
 */
#define P 3
#ifndef ITEMS
#define ITEMS 2
#endif
#ifndef SPAWN
#define SPAWN 2
#endif
#ifndef ATT
#define ATT 2
#endif

#define EMPTY 0           /* cell values */
#define CLOSED 1
#define ANSWERING 2
#define THIEF 3           /* THIEF + t: thief t asks */

#define IDLE 0            /* status values */
#define WAITING 1
#define ANSWERED 2
#define REFUSED 3

#define NONE 255

byte cell[P];             /* cell[v]: requests to owner v */
byte status[P];           /* status[t]: thief t's mailbox status */
byte mbox[P];             /* nodes in thief t's mailbox */
byte cnt[P];              /* nodes in each private deque */
bit hand[P];              /* a node being expanded */
bool busy[P];             /* the termination board */
byte work = 0;            /* created and not yet expanded */
byte spawn = SPAWN;       /* children still to be created */
bool done = false;
byte stopped = 0;
/* ghosts: what thief t waits for */
byte target[P];           /* the owner its current request is posted to, NONE */
byte seq[P];              /* its number of successful posts */

#ifdef LIVENESS
ltl eventually_done { <> done }
#endif

/* the owner's one status store, answer or refusal, to thief t */
inline reply(s) {
  atomic {
    assert(status[t] == WAITING);                     /* at most one answer */
    assert(target[t] == me);                          /* the thief has not moved on */
    assert(seq[t] == claimed);                        /* the very request claimed */
    status[t] = s
  }
}

/* maintain() -> poll(): look at the cell, claim a request, answer it */
inline poll() {
  r = cell[me];                                       /* relaxed load */
  if
  :: r >= THIEF ->
#ifdef BUG_ANSWER_WITHOUT_CLAIM
     atomic { cell[me] = ANSWERING; claimed = seq[r - THIEF] };   /* no CAS: wrong */
#else
     atomic {                                         /* claim: CAS r -> ANSWERING */
       if
       :: cell[me] == r -> cell[me] = ANSWERING; claimed = seq[r - THIEF]
       :: else -> r = EMPTY                           /* the thief withdrew */
       fi
     };
#endif
     if
     :: r >= THIEF ->
        t = r - THIEF;
        if
        :: cnt[me] >= 2 ->                            /* give k, keep at least one */
           k = 1;
           do
           :: k < cnt[me] - 1 -> k++
           :: break
           od;
           atomic { cnt[me] = cnt[me] - k; mbox[t] = k; k = 0 };
           reply(ANSWERED)
        :: true ->                                    /* refuse (also a policy's choice) */
           reply(REFUSED)
        fi;
        cell[me] = EMPTY
     :: else
     fi
  :: else
  fi;
  d_step { r = 0; t = 0; claimed = 0 }
}

proctype Thread(byte me) {
  byte v, r, t, k, st, claimed, att = 0;
  bool ok;
working:
  do                                                  /* while (deque.pop(node)) */
  :: atomic { cnt[me] > 0 -> cnt[me]--; hand[me] = 1 } ->
     do                                               /* expand: maybe children */
     :: atomic { spawn > 0 -> spawn--; cnt[me]++; work++ }
     :: break
     od;
     atomic { hand[me] = 0; work-- };
     if                                               /* maintain(): every N expansions */
     :: poll()
     :: skip
     fi
  :: cnt[me] == 0 -> break                            /* pop: empty (private deque) */
  od;
  /* find_work: go_idle() first, then idle() */
#ifdef BUG_CLOSE_BLINDLY
  cell[me] = CLOSED;                                  /* no look at the cell: wrong */
#else
  atomic {                                            /* exchange(cell, CLOSED) */
    r = cell[me]; cell[me] = CLOSED;
    if :: r >= THIEF -> claimed = seq[r - THIEF] :: else fi
  };
  if
  :: r >= THIEF -> t = r - THIEF; reply(REFUSED)      /* refuse what was there */
  :: else
  fi;
  d_step { r = 0; t = 0; claimed = 0 };
#endif
  busy[me] = false;                                   /* idle() */
  do
  :: done -> break
  :: !done && att < ATT ->                            /* a steal try */
     atomic {
       att++;
       if
       :: me != 0 -> v = 0
       :: me != 1 -> v = 1
       :: me != 2 -> v = 2
       fi
     };
#ifndef BUG_BUSY_AFTER_POST
     busy[me] = true;                                 /* busy() before the post */
#endif
     status[me] = WAITING;
     atomic {                                         /* post: CAS EMPTY -> THIEF + me */
       if
       :: cell[v] == EMPTY -> cell[v] = THIEF + me; ok = true; seq[me]++; target[me] = v
       :: else -> ok = false
       fi
     };
     if
     :: !ok -> busy[me] = false                       /* occupied or closed: idle() again */
     :: ok ->
#ifdef BUG_BUSY_AFTER_POST
        busy[me] = true;                              /* busy() after the post: wrong */
#endif
        if
        :: atomic { status[me] != WAITING -> st = status[me] }
        :: atomic {                                   /* waited too long: withdraw */
             if
             :: cell[v] == THIEF + me -> cell[v] = EMPTY; target[me] = NONE; ok = false
#ifdef BUG_FAILED_WITHDRAWAL_MOVES_ON
             :: else -> target[me] = NONE; ok = false /* as if it had worked: wrong */
#else
             :: else                                  /* the owner has it: wait */
#endif
             fi
           };
           if
           :: ok -> atomic { status[me] != WAITING -> st = status[me] }
           :: else
           fi
        fi;
        if
        :: !ok -> busy[me] = false                    /* withdrawn: idle() */
        :: ok && st == REFUSED -> atomic { target[me] = NONE; busy[me] = false }
        :: ok && st == ANSWERED ->
           atomic { cnt[me] = cnt[me] + mbox[me]; mbox[me] = 0; target[me] = NONE };
           cell[me] = EMPTY;                          /* got_work(): reopen */
           d_step { v = 0; st = 0; ok = false };
           goto working
        fi
     fi;
     d_step { v = 0; st = 0; ok = false }
  :: atomic {                                         /* detect(): all idle at once */
       !done && !busy[0] && !busy[1] && !busy[2] ->
       assert(work == 0);
       done = true
     }
  od;
  assert(cell[me] == CLOSED);                         /* closed since go_idle() */
  assert(cnt[me] == 0);
  stopped++
}

/* nothing lost, nothing counted twice, at every state */
active proctype monitor() {
end:
  atomic {
    cnt[0] + cnt[1] + cnt[2] + mbox[0] + mbox[1] + mbox[2] + hand[0] + hand[1] + hand[2] != work ->
    assert(false)
  }
}

init {
  atomic {
    busy[0] = true; busy[1] = true; busy[2] = true;   /* every thread starts busy */
    target[0] = NONE; target[1] = NONE; target[2] = NONE;
    cnt[0] = ITEMS; work = ITEMS;
    run Thread(0);
    run Thread(1);
    run Thread(2)
  };
  stopped == P;
  assert(done && work == 0)
}
