// Dijkstra-Safra termination detection (EWD998) for the ranks of an MPI job:
// the coloured token with message counting that the UTS reference's MPI
// version uses. Pure bookkeeping and the token policy (SafraRing: what a
// rank does with the token); termination_ring.cpp moves the token.
//
// Model. A rank is *active* while any of its threads is busy or holds a node;
// *passive* once all of them are idle with empty deques (the engine's double
// scan, steal/idle/termination.hpp, says so with certainty). A passive rank becomes
// active only by receiving a *basic message*: here, an answer to a steal
// request that carries nodes. Requests, refusals, tokens and the final DONE
// carry no work and are not counted: receiving one never activates a rank.
//
// State per rank i: counter c_i (basic messages sent minus received) and a
// colour (black: received a basic message since it last passed the token).
// The token carries q (a sum of counters) and a colour, and travels the ring
// 0 -> 1 -> ... -> N-1 -> 0.
//  - Send a basic message: c_i += 1.  Receive one: c_i -= 1, colour black.
//  - Rank 0, passive, token at home: start a round, token (q = 0, white),
//    and whiten itself.
//  - Rank i > 0 holding the token, once passive: pass (q + c_i, black if i is
//    black else the token's colour), then whiten itself.
//  - Rank 0, passive, token back: terminate if the token is white, rank 0 is
//    white and q + c_0 == 0; otherwise start a new round.
//
// Why it never ends early (EWD998's invariant, for this ring). Let B be the
// sum of all counters: the basic messages in flight. While the token is on its
// way to rank k, call 1..k-1 *visited* and 0, k..N-1 *unvisited*. Always:
//   P0: every visited rank is passive and q = sum of the visited c_i, or
//   P1: q + sum of the unvisited c_i > 0, or
//   P2: some unvisited rank is black, or
//   P3: the token is black.
//  - A round starts with nobody visited and q = 0: P0.
//  - Rank k passes (passive): P0 stays P0 (k is passive, q grows by c_k);
//    P1's sum is unchanged; if k was the black rank of P2 the token turns
//    black (P3).
//  - A send raises the sender's counter. Under P0 the sender (active) is
//    unvisited, so nothing is falsified; P1's sum can only grow.
//  - A receipt by an unvisited rank blackens it: P2. A receipt by a visited
//    rank breaks P0, but under P0 the message was in flight, so B >= 1 and
//    P1's sum (= B under P0) was > 0; P1 does not involve visited counters,
//    so it still holds. Under P1, P2 or P3 a visited receipt changes nothing
//    they mention.
//  - A rank whitens only as it becomes visited (P2 is about unvisited ranks)
//    or, rank 0, when a round starts.
// Rank 0 concludes only when passive, with the token back (everyone but 0
// visited), token white (not P3), itself white (not P2) and q + c_0 == 0 (not
// P1). So P0: ranks 1..N-1 are passive and B = q + c_0 = 0. Every rank is
// passive with no work in flight, and nothing can activate any of them again.
// tests/model/safra.pml checks these rules exhaustively for 3 ranks, with
// mutants (no counting, no blackening, rank 0 ignoring its own colour,
// passing while active) that it must catch; tests/unit/distrib/test_safra.cpp
// drives SafraRing below through random schedules of up to 8 ranks.
//
// Why it ends (no hang): once all ranks are passive and no basic message is in
// flight, the first round to start afterwards whitens every rank it passes
// and the following one returns white with q + c_0 = 0.
#pragma once

#include <cstdint>

namespace uts::distrib {

class Safra {
 public:
  struct Token {
    std::int64_t q = 0;
    bool black = false;
  };

  Safra(int rank, int ranks) : rank_(rank), ranks_(ranks) {}

  void sent_basic() { ++counter_; }
  void received_basic() {
    --counter_;
    black_ = true;
  }

  // Rank 0 only, passive, token at home: the token of a new round.
  Token start_round() {
    black_ = false;
    return Token{0, false};
  }
  // Rank > 0 only, passive: the token to pass to the next rank.
  Token pass(const Token& in) {
    const Token out{in.q + counter_, in.black || black_};
    black_ = false;
    return out;
  }
  // Rank 0 only, passive, the token came back: true when the job is over.
  bool concludes(const Token& back) const { return !back.black && !black_ && back.q + counter_ == 0; }

  int next() const { return (rank_ + 1) % ranks_; }
  std::int64_t counter() const { return counter_; }
  bool black() const { return black_; }

 private:
  int rank_;
  int ranks_;
  std::int64_t counter_ = 0;
  bool black_ = false;
};

// One rank's side of the ring: its Safra state, where the token is, and what
// to do with it once the rank is passive. Rank 0 starts rounds; a round is
// running from the first start until the job concludes.
class SafraRing {
 public:
  struct Action {
    enum Kind { none, pass, conclude } kind = none;
    Safra::Token token;  // pass: the token to send to `to`
    int to = 0;
  };

  SafraRing(int rank, int ranks) : safra_(rank, ranks), rank_(rank), holds_(rank == 0) {}

  void sent_basic() { safra_.sent_basic(); }
  void received_basic() { safra_.received_basic(); }
  void token_arrived(const Safra::Token& t) {
    token_ = t;
    holds_ = true;
  }
  bool holds_token() const { return holds_; }

  // This rank is passive and holds the token: pass it on (rank > 0, or rank 0
  // starting a round), or conclude (rank 0, the token came back clean). The
  // caller sends what `pass` says and, on `conclude`, ends the job.
  Action on_passive() {
    if (!holds_) return {};
    holds_ = false;
    if (rank_ == 0 && round_running_ && safra_.concludes(token_)) return {Action::conclude, token_, 0};
    ++passed_;
    if (rank_ != 0) return {Action::pass, safra_.pass(token_), safra_.next()};
    round_running_ = true;
    return {Action::pass, safra_.start_round(), safra_.next()};
  }

  std::uint64_t tokens_passed() const { return passed_; }
  const Safra& state() const { return safra_; }

 private:
  Safra safra_;
  int rank_;
  bool holds_;
  bool round_running_ = false;  // rank 0: a token is out or back from a round
  Safra::Token token_;
  std::uint64_t passed_ = 0;
};

}  // namespace uts::distrib
