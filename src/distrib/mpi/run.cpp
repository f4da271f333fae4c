// One rank of an MPI job (run.hpp): the session, the start barrier and
// placement, the run with its agent, and the exact reduction into rank 0.
#include "distrib/mpi/run.hpp"

#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "base/process_memory.hpp"
#include "base/tick.hpp"
#include "distrib/agent.hpp"
#include "distrib/mpi/mpi_transport.hpp"
#include "engine/engine.hpp"
#include "topology/placement.hpp"
#include "uts_build_config.hpp"

namespace uts::distrib {

MpiSession::MpiSession(int& argc, char**& argv) {
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  // SMPI answers MPI_THREAD_SINGLE: each simulated rank has one thread
  // (uts-smpi refuses --threads > 1), which SINGLE covers.
  ok_ = provided >= MPI_THREAD_FUNNELED || UTS_SMPI;
}

MpiSession::~MpiSession() {
  if (skip_finalize_) return;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

bool MpiSession::any(bool mine) const {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out != 0;
}

void MpiSession::barrier() const { MPI_Barrier(MPI_COMM_WORLD); }

namespace {

static_assert(std::is_trivially_copyable_v<ThreadStats> && std::is_trivially_copyable_v<RankStats> &&
                  std::is_trivially_copyable_v<ThreadPlace> && std::is_trivially_copyable_v<RankPlace> &&
                  std::is_trivially_copyable_v<TraceEvent> && std::is_trivially_copyable_v<TickCalibration>,
              "statistics are gathered as bytes");

template <class T>
std::vector<T> gather(const T* mine, int count, int ranks, int rank) {
  std::vector<T> all(rank == 0 ? static_cast<std::size_t>(count) * static_cast<std::size_t>(ranks) : 0);
  MPI_Gather(mine, count * static_cast<int>(sizeof(T)), MPI_BYTE, all.data(), count * static_cast<int>(sizeof(T)),
             MPI_BYTE, 0, MPI_COMM_WORLD);
  return all;
}

// Ranks' domains side by side: rank r's domain d becomes offset_r + d.
DomainMap merge_domains(const DomainMap& mine, int threads, int ranks, int rank) {
  const std::vector<int> counts = gather(&mine.count, 1, ranks, rank);
  const std::vector<int> of = gather(mine.of_thread.data(), threads, ranks, rank);
  DomainMap m;
  if (rank != 0) return mine;
  m.count = 0;
  for (int r = 0; r < ranks; ++r) {
    for (int t = 0; t < threads; ++t) m.of_thread.push_back(m.count + of[static_cast<std::size_t>(r * threads + t)]);
    m.count += counts[static_cast<std::size_t>(r)];
  }
  m.fill_members();
  m.source = mine.source + ", per rank";
  return m;
}

}  // namespace

RunResult run_ranks(const Tree& tree, const EngineSettings& asked, const StopRule& stop, ProgressBoard& progress) {
  // --counters: each rank kept those its machine allows; all ranks read the
  // ones every rank can (the gathers below need the same count everywhere).
  EngineSettings engine = asked;
  std::string dropped_counters;  // allowed here, not on some other rank
  if (!asked.counters_asked.empty()) {
    std::vector<int> have;
    for (const std::string& name : asked.counters_asked) {
      int found = 0;
      for (const CounterRequest& c : asked.counters) found = found || c.name == name;
      have.push_back(found);
    }
    MPI_Allreduce(MPI_IN_PLACE, have.data(), static_cast<int>(have.size()), MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    engine.counters.clear();
    for (std::size_t i = 0; i < have.size(); ++i)
      for (const CounterRequest& c : asked.counters)
        if (have[i] && c.name == asked.counters_asked[i]) engine.counters.push_back(c);
    for (const CounterRequest& c : asked.counters) {
      bool kept = false;
      for (const CounterRequest& k : engine.counters) kept = kept || k.name == c.name;
      if (!kept) dropped_counters += (dropped_counters.empty() ? "" : "; ") + c.name + ": not allowed on every rank";
    }
  }
  const int rank = engine.ranks.rank, ranks = engine.ranks.count, threads = engine.threads;
  // One rank needs no agent: the engine runs exactly as without MPI.
  std::unique_ptr<RemoteLink> agent = ranks > 1 ? make_rank_agent(make_mpi_transport(), engine, stop) : nullptr;
  // Placement before the start barrier (reading the topology takes
  // milliseconds). Ranks of one host that may use the same PUs take
  // consecutive slots of them: the k-th such rank starts at slot k x threads.
  Placement placement = prepare_placement();
  const RankPlace me = placement.rank_place();
  int local = 0;
  std::vector<RankPlace> neighbours(1, me);
#if !UTS_SMPI  // uts-smpi: each simulated rank is alone on its simulated host
  int locals = 1;
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &local);
  MPI_Comm_size(host, &locals);
  neighbours.resize(static_cast<std::size_t>(locals));
  MPI_Allgather(&me, static_cast<int>(sizeof me), MPI_BYTE, neighbours.data(), static_cast<int>(sizeof me), MPI_BYTE,
                host);
  MPI_Comm_free(&host);
#endif
  int same_set_before = 0;
  for (int i = 0; i < local; ++i) {
    const RankPlace& o = neighbours[static_cast<std::size_t>(i)];
    if (std::memcmp(o.usable_mask, me.usable_mask, sizeof me.usable_mask) == 0 && o.usable_pus == me.usable_pus)
      ++same_set_before;
  }
  placement.apply(engine.bind, threads, same_set_before * threads);
  const ProcessMemory memory_before = memory_at_start();  // before the barrier: reading /proc is no part of the run
  MPI_Barrier(MPI_COMM_WORLD);  // start together: the time is the slowest rank's
  // Every rank's trace counts from here, the barrier's end (ranks leave it
  // within microseconds), so the ranks' timelines line up.
  const std::uint64_t after_barrier = tick::now();
  RunResult mine = run_parallel(tree, engine, stop, progress, agent.get(), &placement);
  mine.memory = memory_before;
  memory_at_end(mine.memory);  // before the gathers: their buffers are the report's, not the run's
  if (!mine.clocks.empty()) mine.clocks[0].start_tick = after_barrier;
  mine.truncations = tree.truncations();
  RankStats rs = agent ? agent->stats() : RankStats{};
  rs.threads = threads;
  rs.start_tick = after_barrier;
  rs.last_work_tick = mine.last_work_tick;
  rs.finish_tick = mine.finish_tick;
  rs.ticks_per_second = mine.ticks_per_second;
  auto since_start = [&](std::uint64_t t) {
    return t > after_barrier && mine.ticks_per_second > 0 ? double(t - after_barrier) / mine.ticks_per_second : 0.0;
  };
  rs.last_work_seconds = since_start(mine.last_work_tick);
  rs.finish_known_seconds = since_start(mine.finish_tick);
  rs.first_nodes_seconds = since_start(rs.first_nodes_tick);
  rs.closing_seconds = mine.closing_seconds;
  rs.memory = mine.memory;
  agent.reset();

  // Exact 64-bit reductions (unsigned sums wrap mod 2^64, as the checksum must).
  std::uint64_t sums[4] = {mine.counts.nodes, mine.counts.leaves, mine.counts.checksum, mine.truncations};
  std::uint64_t total[4] = {};
  MPI_Reduce(sums, total, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  std::uint32_t depth = 0;
  MPI_Reduce(&mine.counts.max_depth, &depth, 1, MPI_UINT32_T, MPI_MAX, 0, MPI_COMM_WORLD);
  double seconds = 0;
  MPI_Reduce(&mine.seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  // complete < max_nodes < interrupted: the most severe status wins.
  static_assert(static_cast<int>(RunStatus::complete) < static_cast<int>(RunStatus::max_nodes) &&
                static_cast<int>(RunStatus::max_nodes) < static_cast<int>(RunStatus::interrupted));
  const int status_in[2] = {static_cast<int>(mine.status), mine.stop_signal};
  int status_out[2] = {0, 0};
  // The signal: any rank's (the one that stopped first told the others).
  MPI_Allreduce(status_in, status_out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int status = status_out[0];
  std::vector<ThreadStats> threads_all = gather(mine.threads.data(), threads, ranks, rank);
  std::vector<RankStats> ranks_all = gather(&rs, 1, ranks, rank);
  std::vector<ThreadPlace> places_all = gather(mine.places.data(), threads, ranks, rank);
  std::vector<RankPlace> rank_places_all = gather(mine.rank_places.data(), 1, ranks, rank);
  std::optional<DomainMap> domains;
  if (mine.domains) domains = merge_domains(*mine.domains, threads, ranks, rank);
  // --counters: every thread's values to rank 0.
  std::vector<std::vector<std::int64_t>> counters_all;
  if (const std::size_t n = engine.counters.size(); n > 0) {
    std::vector<std::int64_t> flat;
    mine.counters.per_thread.resize(static_cast<std::size_t>(threads));
    for (auto& t : mine.counters.per_thread) {
      t.resize(n, -1);
      flat.insert(flat.end(), t.begin(), t.end());
    }
    const std::vector<std::int64_t> all = gather(flat.data(), threads * static_cast<int>(n), ranks, rank);
    for (std::size_t i = 0; i * n < all.size(); ++i)
      counters_all.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(i * n),
                                all.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
    int scaled = mine.counters.scaled ? 1 : 0, any = 0;
    MPI_Reduce(&scaled, &any, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    mine.counters.scaled = any != 0;
  }
  // --trace: every thread's events to rank 0 (counts, then the bytes).
  std::vector<ThreadTrace> traces_all;
  std::vector<TickCalibration> clocks_all;
  if (engine.trace_events) {
    mine.traces.resize(static_cast<std::size_t>(threads));
    mine.clocks.resize(1);
    std::vector<std::uint64_t> meta;  // per thread: events, dropped
    std::vector<TraceEvent> flat;
    for (const ThreadTrace& t : mine.traces) {
      meta.push_back(t.events.size());
      meta.push_back(t.dropped);
      flat.insert(flat.end(), t.events.begin(), t.events.end());
    }
    const std::vector<std::uint64_t> meta_all = gather(meta.data(), 2 * threads, ranks, rank);
    clocks_all = gather(mine.clocks.data(), 1, ranks, rank);
    // Counted in events (a datatype of one event), each count and offset
    // checked against int's range.
    MPI_Datatype event_type;
    MPI_Type_contiguous(static_cast<int>(sizeof(TraceEvent)), MPI_BYTE, &event_type);
    MPI_Type_commit(&event_type);
    if (flat.size() > static_cast<std::size_t>(INT_MAX)) {
      std::fprintf(stderr, "uts: rank %d: %zu trace events are too many to gather (use a smaller --trace-events)\n",
                   rank, flat.size());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    const int events = static_cast<int>(flat.size());
    std::vector<int> sizes(static_cast<std::size_t>(rank == 0 ? ranks : 0)), offsets(sizes.size());
    MPI_Gather(&events, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<TraceEvent> flat_all;
    if (rank == 0) {
      long long total = 0;
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        offsets[k] = static_cast<int>(total);
        total += sizes[k];
      }
      if (total > INT_MAX) {
        std::fprintf(stderr, "uts: %lld trace events are too many to gather (use a smaller --trace-events)\n", total);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      flat_all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(flat.data(), events, event_type, flat_all.data(), sizes.data(), offsets.data(), event_type, 0,
                MPI_COMM_WORLD);
    MPI_Type_free(&event_type);
    if (rank == 0) {
      std::size_t at = 0;
      for (std::size_t i = 0; 2 * i < meta_all.size(); ++i) {
        ThreadTrace t;
        const std::size_t n = static_cast<std::size_t>(meta_all[2 * i]);
        t.events.assign(flat_all.begin() + static_cast<std::ptrdiff_t>(at),
                        flat_all.begin() + static_cast<std::ptrdiff_t>(at + n));
        t.dropped = meta_all[2 * i + 1];
        at += n;
        traces_all.push_back(std::move(t));
      }
    }
    mine.traces.clear();  // rank 0 reports traces_all; no copy below
  }

  RunResult out = mine;
  out.status = static_cast<RunStatus>(status);
  out.stop_signal = out.status == RunStatus::interrupted ? status_out[1] : 0;
  if (rank != 0) return out;
  out.counts.nodes = total[0];
  out.counts.leaves = total[1];
  out.counts.checksum = total[2];
  out.truncations = total[3];
  out.counts.max_depth = depth;
  out.seconds = seconds;
  out.threads = std::move(threads_all);
  out.ranks = std::move(ranks_all);
  out.places = std::move(places_all);
  out.traces = std::move(traces_all);
  if (!engine.counters.empty()) out.counters.per_thread = std::move(counters_all);
  out.counters.unavailable = dropped_counters;
  out.clocks = std::move(clocks_all);
  out.rank_places = std::move(rank_places_all);
  out.domains = std::move(domains);
  return out;
}

}  // namespace uts::distrib
