// steal/idle/sleep.hpp: a wake sent before the sleeper waits is never lost,
// a timeout says there was no hint, and a stay-awake check skips the sleep.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "steal/idle/backoff.hpp"
#include "steal/idle/sleep.hpp"

using namespace uts;
using namespace std::chrono_literals;

TEST_CASE("sleep: a timeout ends it without a hint; staying awake skips it") {
  SleepBoard board;
  CHECK(board.sleepers() == 0);
  CHECK(board.sleep(1ms, [] { return false; }) == -1);  // nobody woke us
  bool asked = false;
  CHECK(board.sleep(3600s, [&] { return asked = true; }) == -1);  // an hour: it must not wait at all
  CHECK(asked);
  CHECK(board.sleepers() == 0);
}

TEST_CASE("sleep: wake_one reaches a sleeper with its hint; wake_all reaches everyone") {
  SleepBoard board;
  std::atomic<int> hint{-2};
  std::thread sleeper([&] { hint = board.sleep(30s, [] { return false; }); });
  while (board.sleepers() == 0) std::this_thread::yield();
  board.wake_one(5);  // registered: the wake cannot be lost, whether or not it waits yet
  sleeper.join();
  CHECK(hint.load() == 5);

  std::atomic<int> woken{0};
  std::thread a([&] { board.sleep(30s, [] { return false; }); ++woken; });
  std::thread b([&] { board.sleep(30s, [] { return false; }); ++woken; });
  while (board.sleepers() < 2) std::this_thread::yield();
  board.wake_all();
  a.join();
  b.join();
  CHECK(woken.load() == 2);
  CHECK(board.sleepers() == 0);
}

TEST_CASE("backoff: spins, then yields, then says sleep; reset starts over") {
  Backoff b;
  int spun = 0, yielded = 0;
  Backoff::Step s;
  while ((s = b.next()) != Backoff::Step::sleep) (s == Backoff::Step::spun ? spun : yielded)++;
  CHECK(spun == 16);
  CHECK(yielded == 16);
  CHECK(b.next() == Backoff::Step::sleep);
  b.reset();
  CHECK(b.next() == Backoff::Step::spun);
}
