// The concurrent-pool experiment (pool.hpp): trials of threads adding and
// removing serial items on split-deque segments, then the conservation
// check and the study's measures.
#include "workload/pool.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "base/cache_line.hpp"
#include "base/clock.hpp"
#include "base/interrupt.hpp"
#include "base/out_of_memory.hpp"
#include "base/rng.hpp"
#include "steal/protocol.hpp"  // RemoteDelay
#include "steal/protocols/split/split_deque.hpp"
#include "steal/victims/selector.hpp"
#include "topology/placement.hpp"
#include "workload/items.hpp"

namespace uts {

namespace {

// Serials: the initial items are 0 .. fill-1; thread t's k-th add is
// fill + k * threads + t, so no two adds share a serial without a shared counter.
std::uint64_t added_serial(std::uint64_t fill, int threads, int t, std::uint64_t k) {
  return fill + k * static_cast<std::uint64_t>(threads) + static_cast<std::uint64_t>(t);
}

using Counter = Padded<std::atomic<std::int64_t>>;

// One trial: the threads' segments and what they share, the per-thread
// operation loop and search, then the conservation check and the measures.
class Trial {
 public:
  Trial(const PoolSettings& s, int trial, const Placement& placement, std::vector<ThreadPlace>& places)
      : s_(s),
        trial_(trial),
        p_(s.threads),
        records_(static_cast<std::size_t>(p_)),
        segs_(static_cast<std::size_t>(p_), nullptr),
        manber_(p_),
        producer_(s.producers ? producer_map(p_, *s.producers, s.arrangement)
                              : std::vector<bool>(static_cast<std::size_t>(p_))),
        removed_(static_cast<std::size_t>(p_)),
        left_(static_cast<std::size_t>(p_)),
        trace_(static_cast<std::size_t>(p_)),
        delay_{s.remote_delay_ns},  // every other segment is remote (its own processor's memory)
        sample_every_(std::max<std::uint64_t>(
            1, s.ops / (static_cast<std::uint64_t>(p_) * static_cast<std::uint64_t>(s.samples)))),
        placement_(placement),
        places_(places) {
    active_.value.store(p_);
    out_.threads.resize(static_cast<std::size_t>(p_));
  }

  PoolTrial run() {
    omp_set_dynamic(0);
#pragma omp parallel num_threads(p_)
    try {
      const int id = omp_get_thread_num();
      placement_.bind_again(id);
      thread_body(id);
      places_[static_cast<std::size_t>(id)] = placement_.sample();
    } catch (const std::bad_alloc&) {
      // Out of memory or a segment past 2^30 slots: as in the engine, say why
      // (once) and leave at once (threads cannot be unwound out of the region).
      oom::fail("the pool's items no longer fit (--fill, --ops)");
    } catch (const std::exception& e) {
      oom::fail(e.what());
    }
    account();
    measure();
    out_.complete = !interrupt::requested();
    return std::move(out_);
  }

 private:
  // Per thread: fill, operate until the operations run out, then (after
  // everyone stopped) drain the own segment.
  void thread_body(int id) {
    const auto me = static_cast<std::size_t>(id);
    auto* seg = new SplitDeque(records_);  // first touch by the owner
    segs_[me] = seg;
    PoolThreadStats& st = out_.threads[me];
    st.producer = producer_[me];
    const std::uint64_t lo = s_.fill * me / static_cast<std::uint64_t>(p_);
    const std::uint64_t hi = s_.fill * (me + 1) / static_cast<std::uint64_t>(p_);
    for (std::uint64_t k = lo; k < hi; ++k) seg->push(make_item(k));
    Rng rng(Rng::mix(s_.seed) ^ (static_cast<std::uint64_t>(trial_) * 1000003u + me));
    VictimSelector victims(s_.victim == VictimOrder::hier ? VictimOrder::random : s_.victim, id, p_, &manber_,
                           rng.next());
#pragma omp barrier
#pragma omp single
    start_ = Clock::now();
    sample(id, *seg);
    operate(id, *seg, st, rng, victims);
    // Leaving: every item stays reachable to the threads still searching.
    seg->share_all();
    active_.value.fetch_sub(1, std::memory_order_relaxed);  // relaxed: see search()
#pragma omp barrier
#pragma omp single
    out_.seconds = seconds_since(start_);
    // Every steal is over: each owner drains its own segment.
    Node x;
    while (seg->pop(x)) left_[me].push_back(serial_of(x));
    sample(id, *seg);
#pragma omp barrier
    delete seg;
  }

  void sample(int id, const SplitDeque& seg) {
    // relaxed inside shared_size(): the size is a snapshot for the trace.
    trace_[static_cast<std::size_t>(id)].push_back({seconds_since(start_), id, seg.private_size() + seg.shared_size()});
  }

  // Operations taken from the shared counter until `ops` are handed out.
  void operate(int id, SplitDeque& seg, PoolThreadStats& st, Rng& rng, VictimSelector& victims) {
    std::uint64_t own_ops = 0;
    for (;;) {
      if (interrupt::requested()) break;  // a signal: the trial stops here, partial
      // relaxed: a ticket; exactly `ops` are handed out.
      if (static_cast<std::uint64_t>(next_op_.value.fetch_add(1, std::memory_order_relaxed)) >= s_.ops) break;
      const bool add = s_.producers ? st.producer : static_cast<int>(rng.below(100)) < s_.mix;
      const auto t0 = Clock::now();
      if (add) {
        seg.push(make_item(added_serial(s_.fill, p_, id, st.adds)));
        ++st.adds;
        st.add_seconds += seconds_since(t0);
      } else {
        Node x;
        bool got = seg.pop(x);
        if (!got) {
          got = search(id, seg, st, victims, x);
          if (got) ++st.removes_stole;
        }
        if (got) {
          removed_[static_cast<std::size_t>(id)].push_back(serial_of(x));
          ++st.removes;
          st.remove_seconds += seconds_since(t0);
        } else if (!interrupt::requested()) {
          ++st.aborted;
        }
      }
      if (seg.share_requested()) seg.share();
      if (++own_ops % sample_every_ == 0) sample(id, seg);
    }
  }

  // A remove that found its segment empty: search and steal. false: abort.
  bool search(int id, SplitDeque& seg, PoolThreadStats& st, VictimSelector& victims, Node& x) {
    // relaxed: the counts only decide when to give up (the study's rule).
    searching_.value.fetch_add(1, std::memory_order_relaxed);
    victims.begin_search();
    std::uint64_t misses = 0, probes = 0;
    bool got = false;
    for (;;) {
      const int v = victims.next();
      if (v < 0 || interrupt::requested()) break;  // one thread: nobody to steal from; or a signal
      SplitDeque& victim = *segs_[static_cast<std::size_t>(v)];
      delay_();  // the probe
      ++st.segments_examined;
      ++probes;
      if (s_.steal.claim_size(victim.shared_size()) > 0) {
        delay_();  // the claim
        const std::uint32_t n = victim.steal(s_.steal, seg, records_[static_cast<std::size_t>(id)]);
        if (n > 0) {
          ++st.steals;
          st.elements_stolen += n;
          st.segments_examined_stealing += probes;
          victims.found_work(v);
          got = seg.pop(x);
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
      if (++misses >= static_cast<std::uint64_t>(p_ - 1)) {
        misses = 0;
        // relaxed: as above.
        if (searching_.value.load(std::memory_order_relaxed) >= active_.value.load(std::memory_order_relaxed)) break;
        // More threads than cores: let the owners we wait for (to add, or
        // to share on our request) run. Each study processor had its own CPU.
        std::this_thread::yield();
      }
    }
    searching_.value.fetch_sub(1, std::memory_order_relaxed);  // relaxed: as above
    return got;
  }

  // Conservation: every serial ever created was removed or is left, once.
  // Index: initial item k -> k; thread t's k-th add -> fill + (adds of the
  // threads before t) + k.
  void account() {
    std::vector<std::uint64_t> first(static_cast<std::size_t>(p_) + 1, s_.fill);
    for (int t = 0; t < p_; ++t)
      first[static_cast<std::size_t>(t) + 1] = first[static_cast<std::size_t>(t)] + out_.threads[static_cast<std::size_t>(t)].adds;
    const std::uint64_t created = first[static_cast<std::size_t>(p_)];
    Ledger ledger(created);
    auto mark = [&](std::uint64_t serial) {
      if (serial == kCorruptItem) return ledger.corrupt();
      if (serial < s_.fill) return ledger.count(serial);
      const std::uint64_t rel = serial - s_.fill, t = rel % static_cast<std::uint64_t>(p_),
                          k = rel / static_cast<std::uint64_t>(p_);
      ledger.count(k < out_.threads[t].adds ? first[t] + k : created);  // created: a serial nobody made
    };
    for (const auto& v : removed_)
      for (std::uint64_t x : v) mark(x);
    for (const auto& v : left_)
      for (std::uint64_t x : v) mark(x);
    out_.lost = ledger.lost();
    out_.duplicated = ledger.duplicated();
    out_.initial = s_.fill;
    out_.added = created - s_.fill;
    for (const auto& v : removed_) out_.removed += v.size();
    for (const auto& v : left_) out_.remaining += v.size();
    for (const PoolThreadStats& t : out_.threads) out_.aborted += t.aborted;
    const std::uint64_t bad = ledger.corrupted() + ledger.strays();  // corrupt items, or serials nobody created
    out_.conserved = out_.lost == 0 && out_.duplicated == 0 && bad == 0 &&
                     out_.initial + out_.added - out_.removed == out_.remaining;
  }

  // The study's measures, and the trace in time order.
  void measure() {
    double add_sum = 0, remove_sum = 0;
    int adders = 0, removers = 0;
    std::uint64_t removes = 0, stole = 0, steals = 0, examined = 0, elements = 0;
    for (const PoolThreadStats& t : out_.threads) {
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
    out_.mean_add_us = adders ? add_sum / adders : 0;
    out_.mean_remove_us = removers ? remove_sum / removers : 0;
    out_.removes_stole_pct = removes ? 100.0 * double(stole) / double(removes) : 0;
    out_.segments_per_steal = steals ? double(examined) / double(steals) : 0;
    out_.elements_per_steal = steals ? double(elements) / double(steals) : 0;
    out_.steals = steals;
    out_.segments_examined_stealing = examined;
    out_.elements_stolen = elements;
    for (auto& v : trace_) out_.trace.insert(out_.trace.end(), v.begin(), v.end());
    std::sort(out_.trace.begin(), out_.trace.end(),
              [](const SegmentSample& a, const SegmentSample& b) { return a.seconds < b.seconds; });
  }

  const PoolSettings& s_;
  const int trial_;
  const int p_;
  std::vector<ThiefRecord> records_;
  std::vector<SplitDeque*> segs_;
  ManberTree manber_;
  Counter next_op_, active_, searching_;
  const std::vector<bool> producer_;
  PoolTrial out_;
  std::vector<std::vector<std::uint64_t>> removed_, left_;
  std::vector<std::vector<SegmentSample>> trace_;
  Clock::time_point start_;
  const RemoteDelay delay_;
  const std::uint64_t sample_every_;
  const Placement& placement_;
  std::vector<ThreadPlace>& places_;
};

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
  const Placement placement = place_team(settings.bind, settings.threads);
  r.places.resize(static_cast<std::size_t>(settings.threads));
  for (int t = 0; t < settings.trials && !interrupt::requested(); ++t)
    r.trials.push_back(Trial(settings, t, placement, r.places).run());
  r.rank_places = {placement.rank_place()};
  r.topology = placement.summary();
  r.stop_signal = interrupt::signal_number();
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
