// A thread's time, split into phases (run/trace.hpp) by reading the tick
// clock at every change of phase, never per node; and, with --trace, the
// thread's events in a buffer allocated before the run (docs/trace.md).
//
// The phases partition the thread's time: each tick from begin() to end()
// is counted once, in the phase current at that moment. The last search of
// a thread (the one after which the run is over for it) and everything after
// it is termination: explore() marks where a search starts (mark_search) and
// on its failure moves what that search accrued to termination (terminate).
#pragma once

#include <cstdint>

#include "base/tick.hpp"
#include "run/trace.hpp"

namespace uts {

class TimeSplit {
 public:
  // `trace`: the thread's buffer (capacity reserved), or null.
  void begin(std::uint64_t t, Phase p, ThreadTrace* trace, std::size_t capacity) {
    trace_ = trace;
    capacity_ = capacity;
    last_ = t;
    cur_ = p;
    record_state(t, p, 0);
  }
  Phase phase() const { return cur_; }

  void to(Phase p) { to_at(tick::now(), p); }
  void to_at(std::uint64_t t, Phase p, std::uint8_t detail = 0) {
    if (t < last_) t = last_;  // a tick clock stepping back (TSCs of two CPUs a little apart)
    acc_[static_cast<int>(cur_)] += t - last_;
    last_ = t;
    cur_ = p;
    record_state(t, p, detail);
  }

  // Time from t0 to t1 (now) was spent in phase p, inside the current phase:
  // counted as p, and drawn in the trace only when it lasted at least
  // `min_ticks` (short agent polls and spin steps would fill the buffer).
  void charge(Phase p, std::uint64_t t0, std::uint64_t t1, std::uint64_t min_ticks) {
    if (t1 - t0 >= min_ticks && trace_) {
      const Phase was = cur_;
      to_at(t0, p);
      to_at(t1, was);
      return;
    }
    if (t0 < last_) t0 = last_;
    if (t1 < t0) t1 = t0;
    acc_[static_cast<int>(cur_)] += t0 - last_;
    acc_[static_cast<int>(p)] += t1 - t0;
    last_ = t1;
  }

  void mark_search() {
    for (int i = 0; i < kPhases; ++i) mark_[i] = acc_[i];
    mark_t_ = last_;
  }
  // The search since mark_search() ended the thread's run: its time (from
  // the mark on) is termination, and so is what follows.
  void terminate() {
    std::uint64_t t = tick::now();
    if (t < last_) t = last_;
    acc_[static_cast<int>(cur_)] += t - last_;
    last_ = t;
    std::uint64_t moved = 0;
    // All of it, agent time included (the trace shows it as termination too).
    for (int i = 0; i < kPhases; ++i) {
      if (i == static_cast<int>(Phase::termination)) continue;
      moved += acc_[i] - mark_[i];
      acc_[i] = mark_[i];
    }
    acc_[static_cast<int>(Phase::termination)] += moved;
    cur_ = Phase::termination;
    if (trace_) {
      // The trace says so too: the state changes recorded since the mark (with
      // the probes and wake-ups between them, which stay) are replaced by one
      // termination interval from the mark on.
      auto& ev = trace_->events;
      std::size_t from = ev.size();
      while (from > 0 && ev[from - 1].t0 >= mark_t_) --from;
      std::size_t out = from;
      for (std::size_t i = from; i < ev.size(); ++i)
        if (ev[i].kind != TraceEvent::state) ev[out++] = ev[i];
      ev.resize(out);
      // Kept in time order: the termination state goes before the probes it covers.
      ev.insert(ev.begin() + static_cast<std::ptrdiff_t>(from),
                TraceEvent{mark_t_, mark_t_, -1, 0, TraceEvent::state, static_cast<std::uint8_t>(Phase::termination)});
      if (ev.size() > capacity_) {
        ev.pop_back();
        ++trace_->dropped;
      }
    }
  }
  void end(std::uint64_t t) {
    if (t < last_) t = last_;
    acc_[static_cast<int>(cur_)] += t - last_;
    last_ = t;
    if (trace_) record(TraceEvent{t, t, -1, 0, TraceEvent::state, 255});  // the end of the last interval
  }
  std::uint64_t ticks(Phase p) const { return acc_[static_cast<int>(p)]; }

  // ---- events (no-ops without --trace) ----
  bool tracing() const { return trace_ != nullptr; }
  void record(const TraceEvent& e) {
    if (trace_->events.size() < capacity_) trace_->events.push_back(e);
    else ++trace_->dropped;
  }

 private:
  void record_state(std::uint64_t t, Phase p, std::uint8_t detail) {
    if (trace_) record(TraceEvent{t, t, -1, 0, TraceEvent::state, detail ? detail : static_cast<std::uint8_t>(p)});
  }

  ThreadTrace* trace_ = nullptr;
  std::size_t capacity_ = 0;
  std::uint64_t last_ = 0;
  Phase cur_ = Phase::work;
  std::uint64_t acc_[kPhases] = {};
  std::uint64_t mark_[kPhases] = {};
  std::uint64_t mark_t_ = 0;
};

}  // namespace uts
