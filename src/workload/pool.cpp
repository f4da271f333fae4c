#include "workload/pool.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "base/cache_line.hpp"
#include "base/clock.hpp"
#include "base/rng.hpp"
#include "steal/protocol.hpp"  // RemoteDelay
#include "steal/protocols/split/split_deque.hpp"
#include "steal/victims/selector.hpp"
#include "workload/items.hpp"

namespace uts {

namespace {

// Serials: the initial items are 0 .. fill-1; thread t's k-th add is
// fill + k * threads + t, so no two adds share a serial without a shared counter.
std::uint64_t added_serial(std::uint64_t fill, int threads, int t, std::uint64_t k) {
  return fill + k * static_cast<std::uint64_t>(threads) + static_cast<std::uint64_t>(t);
}

using Counter = Padded<std::atomic<std::int64_t>>;

PoolTrial run_trial(const PoolSettings& s, int trial) {
  const int p = s.threads;
  std::vector<ThiefRecord> records(static_cast<std::size_t>(p));
  std::vector<SplitDeque*> segs(static_cast<std::size_t>(p), nullptr);
  ManberTree manber(p);
  Counter next_op, active, searching;
  active.value.store(p);
  const std::vector<bool> producer =
      s.producers ? producer_map(p, *s.producers, s.arrangement) : std::vector<bool>(static_cast<std::size_t>(p));
  PoolTrial out;
  out.threads.resize(static_cast<std::size_t>(p));
  std::vector<std::vector<std::uint64_t>> removed(static_cast<std::size_t>(p)), left(static_cast<std::size_t>(p));
  std::vector<std::vector<SegmentSample>> trace(static_cast<std::size_t>(p));
  Clock::time_point start;
  const RemoteDelay delay{s.remote_delay_ns};  // every other segment is remote (its own processor's memory)
  const std::uint64_t sample_every =
      std::max<std::uint64_t>(1, s.ops / (static_cast<std::uint64_t>(p) * static_cast<std::uint64_t>(s.samples)));

  omp_set_dynamic(0);
#pragma omp parallel num_threads(p)
  try {
    const int id = omp_get_thread_num();
    const auto me = static_cast<std::size_t>(id);
    auto* seg = new SplitDeque(records);  // first touch by the owner
    segs[me] = seg;
    PoolThreadStats& st = out.threads[me];
    st.producer = producer[me];
    const std::uint64_t lo = s.fill * me / static_cast<std::uint64_t>(p);
    const std::uint64_t hi = s.fill * (me + 1) / static_cast<std::uint64_t>(p);
    for (std::uint64_t k = lo; k < hi; ++k) seg->push(make_item(k));
    Rng rng(Rng::mix(s.seed) ^ (static_cast<std::uint64_t>(trial) * 1000003u + me));
    VictimSelector victims(s.victim == VictimOrder::hier ? VictimOrder::random : s.victim, id, p, &manber,
                           rng.next());
#pragma omp barrier
#pragma omp single
    start = Clock::now();
    std::uint64_t own_ops = 0;
    auto sample = [&] {
      // relaxed inside shared_size(): the size is a snapshot for the trace.
      trace[me].push_back({seconds_since(start), id, seg->private_size() + seg->shared_size()});
    };
    sample();
    // A remove that found its segment empty: search and steal. false: abort.
    auto search = [&](Node& x) {
      // relaxed: the counts only decide when to give up (the study's rule).
      searching.value.fetch_add(1, std::memory_order_relaxed);
      victims.begin_search();
      std::uint64_t misses = 0, probes = 0;
      bool got = false;
      for (;;) {
        const int v = victims.next();
        if (v < 0) break;  // one thread: nobody to steal from
        SplitDeque& victim = *segs[static_cast<std::size_t>(v)];
        delay();  // the probe
        ++st.segments_examined;
        ++probes;
        if (s.steal.claim_size(victim.shared_size()) > 0) {
          delay();  // the claim
          const std::uint32_t n = victim.steal(s.steal, *seg, records[me]);
          if (n > 0) {
            ++st.steals;
            st.elements_stolen += n;
            st.segments_examined_stealing += probes;
            victims.found_work(v);
            got = seg->pop(x);
            break;
          }
        } else {
          victim.request_share();
        }
        victims.missed();
        // After p-1 misses (about a round; random and tree orders may skip a
        // segment, which only matters as a trial ends, and the items it held
        // are counted as remaining): give up when every thread still
        // performing operations is searching (nobody can add).
        if (++misses >= static_cast<std::uint64_t>(p - 1)) {
          misses = 0;
          if (searching.value.load(std::memory_order_relaxed) >= active.value.load(std::memory_order_relaxed)) break;
          // More threads than cores: let the owners we wait for (to add, or
          // to share on our request) run. Each study processor had its own CPU.
          std::this_thread::yield();
        }
      }
      searching.value.fetch_sub(1, std::memory_order_relaxed);
      return got;
    };
    for (;;) {
      // relaxed: a ticket; exactly `ops` are handed out.
      if (static_cast<std::uint64_t>(next_op.value.fetch_add(1, std::memory_order_relaxed)) >= s.ops) break;
      const bool add = s.producers ? st.producer : static_cast<int>(rng.below(100)) < s.mix;
      const auto t0 = Clock::now();
      if (add) {
        seg->push(make_item(added_serial(s.fill, p, id, st.adds)));
        ++st.adds;
        st.add_seconds += seconds_since(t0);
      } else {
        Node x;
        bool got = seg->pop(x);
        if (!got) {
          got = search(x);
          if (got) ++st.removes_stole;
        }
        if (got) {
          removed[me].push_back(serial_of(x));
          ++st.removes;
          st.remove_seconds += seconds_since(t0);
        } else {
          ++st.aborted;
        }
      }
      if (seg->share_requested()) seg->share();
      if (++own_ops % sample_every == 0) sample();
    }
    // Leaving: every item stays reachable to the threads still searching.
    seg->share_all();
    active.value.fetch_sub(1, std::memory_order_relaxed);  // relaxed: as `searching`
#pragma omp barrier
#pragma omp single
    out.seconds = seconds_since(start);
    // Every steal is over: each owner drains its own segment.
    Node x;
    while (seg->pop(x)) left[me].push_back(serial_of(x));
    sample();
#pragma omp barrier
    delete seg;
  } catch (const std::exception& e) {
    // Out of memory or a segment past 2^30 slots: as in the engine, say why
    // and leave at once (threads cannot be unwound out of the region).
    std::fprintf(stderr, "uts: %s\n", e.what());
    std::_Exit(3);
  }

  // Conservation: every serial ever created was removed or is left, once.
  // Index: initial item k -> k; thread t's k-th add -> fill + (adds of the
  // threads before t) + k.
  std::vector<std::uint64_t> first(static_cast<std::size_t>(p) + 1, s.fill);
  for (int t = 0; t < p; ++t)
    first[static_cast<std::size_t>(t) + 1] = first[static_cast<std::size_t>(t)] + out.threads[static_cast<std::size_t>(t)].adds;
  const std::uint64_t created = first[static_cast<std::size_t>(p)];
  Ledger ledger(created);
  auto mark = [&](std::uint64_t serial) {
    if (serial == kCorruptItem) return ledger.corrupt();
    if (serial < s.fill) return ledger.count(serial);
    const std::uint64_t rel = serial - s.fill, t = rel % static_cast<std::uint64_t>(p), k = rel / static_cast<std::uint64_t>(p);
    ledger.count(k < out.threads[t].adds ? first[t] + k : created);  // created: a serial nobody made
  };
  for (const auto& v : removed)
    for (std::uint64_t x : v) mark(x);
  for (const auto& v : left)
    for (std::uint64_t x : v) mark(x);
  out.lost = ledger.lost();
  out.duplicated = ledger.duplicated();
  const std::uint64_t bad = ledger.corrupted() + ledger.strays();  // corrupt items, or serials nobody created
  const std::uint64_t adds_total = created - s.fill;
  out.initial = s.fill;
  out.added = adds_total;
  for (const auto& v : removed) out.removed += v.size();
  for (const auto& v : left) out.remaining += v.size();
  for (const PoolThreadStats& t : out.threads) out.aborted += t.aborted;
  out.conserved = out.lost == 0 && out.duplicated == 0 && bad == 0 &&
                  out.initial + out.added - out.removed == out.remaining;

  // The study's measures.
  double add_sum = 0, remove_sum = 0;
  int adders = 0, removers = 0;
  std::uint64_t removes = 0, stole = 0, steals = 0, examined = 0, elements = 0;
  for (const PoolThreadStats& t : out.threads) {
    if (t.adds) {
      add_sum += 1e6 * t.add_seconds / double(t.adds);
      ++adders;
    }
    if (t.removes) {
      remove_sum += 1e6 * t.remove_seconds / double(t.removes);
      ++removers;
    }
    removes += t.removes;
    stole += t.removes_stole;
    steals += t.steals;
    examined += t.segments_examined_stealing;
    elements += t.elements_stolen;
  }
  out.mean_add_us = adders ? add_sum / adders : 0;
  out.mean_remove_us = removers ? remove_sum / removers : 0;
  out.removes_stole_pct = removes ? 100.0 * double(stole) / double(removes) : 0;
  out.segments_per_steal = steals ? double(examined) / double(steals) : 0;
  out.elements_per_steal = steals ? double(elements) / double(steals) : 0;
  out.steals = steals;
  out.segments_examined_stealing = examined;
  out.elements_stolen = elements;
  for (auto& v : trace) out.trace.insert(out.trace.end(), v.begin(), v.end());
  std::sort(out.trace.begin(), out.trace.end(),
            [](const SegmentSample& a, const SegmentSample& b) { return a.seconds < b.seconds; });
  return out;
}

// The mean over the trials where the measure exists (a trial without adds
// has no add time, not an add time of 0).
template <class F, class Has>
double mean_over(const std::vector<PoolTrial>& trials, F f, Has has) {
  double sum = 0;
  int n = 0;
  for (const PoolTrial& t : trials)
    if (has(t)) {
      sum += f(t);
      ++n;
    }
  return n ? sum / n : 0;
}

}  // namespace

std::vector<bool> producer_map(int threads, int producers, Arrangement arrangement) {
  std::vector<bool> out(static_cast<std::size_t>(threads), false);
  for (int i = 0; i < producers; ++i) {
    const std::int64_t pos = arrangement == Arrangement::contiguous
                                 ? i
                                 : static_cast<std::int64_t>(i) * threads / producers;  // evenly around the ring
    out[static_cast<std::size_t>(pos)] = true;
  }
  return out;
}

PoolResult run_pool(const PoolSettings& settings) {
  PoolResult r;
  for (int t = 0; t < settings.trials; ++t) r.trials.push_back(run_trial(settings, t));
  return r;
}

double PoolResult::mean_add_us() const {
  return mean_over(trials, [](const PoolTrial& t) { return t.mean_add_us; },
                   [](const PoolTrial& t) { return t.added > 0; });
}
double PoolResult::mean_remove_us() const {
  return mean_over(trials, [](const PoolTrial& t) { return t.mean_remove_us; },
                   [](const PoolTrial& t) { return t.removed > 0; });
}
double PoolResult::removes_stole_pct() const {
  return mean_over(trials, [](const PoolTrial& t) { return t.removes_stole_pct; },
                   [](const PoolTrial& t) { return t.removed > 0; });
}
double PoolResult::segments_per_steal() const {
  std::uint64_t steals = 0, examined = 0;
  for (const PoolTrial& t : trials) {
    steals += t.steals;
    examined += t.segments_examined_stealing;
  }
  return steals ? double(examined) / double(steals) : 0;
}
double PoolResult::elements_per_steal() const {
  std::uint64_t steals = 0, elements = 0;
  for (const PoolTrial& t : trials) {
    steals += t.steals;
    elements += t.elements_stolen;
  }
  return steals ? double(elements) / double(steals) : 0;
}

const char* to_string(Arrangement a) { return a == Arrangement::contiguous ? "contiguous" : "spread"; }

}  // namespace uts
