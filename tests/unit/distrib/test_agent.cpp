// distrib/agent.hpp: the rank agent's protocol (requests, answers, the Safra
// token, DONE, STOP, closing) without MPI. Each simulated rank is a host
// thread running the real engine (run_parallel, its own OpenMP team) with an
// agent whose Transport is an in-memory network with MPI's semantics:
// synchronous-mode sends (complete once matched), probe-and-receive.
// Every build runs it, sanitizer builds included.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distrib/agent.hpp"
#include "engine/engine.hpp"
#include "steal/registry.hpp"
#include "traversal/sequential.hpp"

using namespace uts;
using namespace uts::distrib;

namespace {

// The network: one inbox per rank; each message carries the flag its sender
// waits on (set when the receiver takes it: synchronous mode).
class MemoryNetwork {
 public:
  explicit MemoryNetwork(int ranks) : inboxes_(static_cast<std::size_t>(ranks)), ranks_(ranks) {}

  struct Parcel {
    Message message;
    std::shared_ptr<bool> matched;
  };

  void post(int to, Parcel p) {
    std::lock_guard<std::mutex> lock(mutex_);
    inboxes_[static_cast<std::size_t>(to)].push_back(std::move(p));
  }
  std::optional<Message> take(int rank) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& box = inboxes_[static_cast<std::size_t>(rank)];
    if (box.empty()) return std::nullopt;
    Parcel p = std::move(box.front());
    box.pop_front();
    *p.matched = true;
    return std::move(p.message);
  }
  bool matched(const std::shared_ptr<bool>& flag) {
    std::lock_guard<std::mutex> lock(mutex_);
    return *flag;
  }
  int ranks() const { return ranks_; }

 private:
  std::mutex mutex_;
  std::vector<std::deque<Parcel>> inboxes_;
  int ranks_;
};

class MemoryTransport final : public Transport {
 public:
  MemoryTransport(MemoryNetwork& net, int rank) : net_(net), rank_(rank) {}
  int rank() const override { return rank_; }
  int ranks() const override { return net_.ranks(); }
  void send(int to, Tag tag, std::vector<char> bytes) override {
    auto flag = std::make_shared<bool>(false);
    pending_.push_back(flag);
    net_.post(to, {Message{rank_, tag, std::move(bytes)}, flag});
  }
  std::optional<Message> receive() override { return net_.take(rank_); }
  bool sends_complete() override {
    std::erase_if(pending_, [&](const std::shared_ptr<bool>& f) { return net_.matched(f); });
    return pending_.empty();
  }
  [[noreturn]] void abort(int code) override {
    FAIL("the agent aborted with " << code);
    std::abort();
  }

 private:
  MemoryNetwork& net_;
  int rank_;
  std::vector<std::shared_ptr<bool>> pending_;
};

struct JobResult {
  Counts counts;
  std::vector<RankStats> ranks;
  RunStatus status = RunStatus::complete;
};

// `ranks` simulated ranks of `threads` threads each, every rank an agent.
struct Modes {
  RankSteal steal = RankSteal::lifeline;
  RankTermination termination = RankTermination::tree;
  std::uint32_t w = 4, l = 4;
};

JobResult run_job(const Tree& tree, const std::string& protocol, int ranks, int threads, InitSpread init,
                  const StopRule& stop = StopRule{}, const Modes& modes = Modes{}) {
  MemoryNetwork net(ranks);
  std::vector<RunResult> results(static_cast<std::size_t>(ranks));
  std::vector<RankStats> stats(static_cast<std::size_t>(ranks));
  std::vector<std::thread> hosts;
  for (int r = 0; r < ranks; ++r)
    hosts.emplace_back([&, r] {
      EngineSettings s;
      const ProtocolTraits& p = *find_protocol(protocol);
      s.protocol = std::string(p.name);
      s.steal = p.default_steal;
      s.victim = p.default_victim;
      s.threads = threads;
      s.init = init;
      s.ranks.under_mpi = true;
      s.ranks.count = ranks;
      s.ranks.rank = r;
      s.ranks.poll = 32;
      s.ranks.chunk = 64;
      s.ranks.steal = modes.steal;
      s.ranks.termination = modes.termination;
      s.ranks.w = modes.w;
      s.ranks.l = modes.l;
      std::unique_ptr<RemoteLink> agent = make_rank_agent(std::make_unique<MemoryTransport>(net, r), s, stop);
      ProgressBoard board(threads);
      results[static_cast<std::size_t>(r)] = run_parallel(tree, s, stop, board, agent.get());
      stats[static_cast<std::size_t>(r)] = agent->stats();
    });
  for (auto& h : hosts) h.join();
  JobResult job;
  for (const RunResult& r : results) {
    job.counts.merge(r.counts);
    if (static_cast<int>(r.status) > static_cast<int>(job.status)) job.status = r.status;
  }
  job.ranks = stats;
  return job;
}

TreeParams geometric_tree() {
  TreeParams p;  // 111,508 nodes
  p.type = TreeType::geometric;
  p.shape = GeoShape::fixed;
  p.b0 = 4;
  p.depth = 8;
  p.seed = 1;
  return p;
}

TreeParams binomial_tree() {
  TreeParams p;  // deep and narrow: ranks must pass work along
  p.type = TreeType::binomial;
  p.b0 = 200;
  p.q = 0.24;
  p.m = 4;
  p.seed = 2;
  return p;
}

}  // namespace

TEST_CASE("agents over an in-memory network: exact, and every rank statistic balances") {
  std::uint64_t global_steals = 0, pushes = 0;
  const char* protocols[] = {"split", "locked", "request", "chaselev"};
  int turn = 0;  // the protocol rotates over the other axes (every one meets every mode)
  for (const TreeParams& params : {geometric_tree(), binomial_tree()}) {
    const Tree tree(params);
    const RunResult want = run_sequential(tree, StopRule{});
    for (RankSteal steal : {RankSteal::random, RankSteal::lifeline}) {
      for (RankTermination termination : {RankTermination::ring, RankTermination::tree}) {
        for (const auto& shape : {std::pair{2, 1}, std::pair{3, 2}, std::pair{6, 1}}) {
          const int ranks = shape.first, threads = shape.second;
          for (InitSpread init : {InitSpread::root, InitSpread::balanced}) {
            const char* protocol = protocols[turn++ % 4];
            Modes modes;
            modes.steal = steal;
            modes.termination = termination;
            modes.w = static_cast<std::uint32_t>(turn % 3);  // 0, 1, 2 random attempts
            modes.l = 2 + static_cast<std::uint32_t>(turn % 3);
            CAPTURE(std::string(protocol));
            CAPTURE(ranks);
            CAPTURE(threads);
            CAPTURE(std::string(to_string(init)));
            CAPTURE(std::string(to_string(steal)));
            CAPTURE(std::string(to_string(termination)));
            CAPTURE(modes.w);
            CAPTURE(modes.l);
            const JobResult job = run_job(tree, protocol, ranks, threads, init, StopRule{}, modes);
            CHECK(job.status == RunStatus::complete);
            CHECK(job.counts.nodes == want.counts.nodes);
            CHECK(job.counts.leaves == want.counts.leaves);
            CHECK(job.counts.max_depth == want.counts.max_depth);
            CHECK(job.counts.checksum == want.counts.checksum);
            RankStats sum;
            for (const RankStats& k : job.ranks) {
              sum.requests_sent += k.requests_sent;
              sum.requests_received += k.requests_received;
              sum.steals += k.steals;
              sum.requests_answered += k.requests_answered;
              sum.refusals += k.refusals;
              sum.requests_refused += k.requests_refused;
              sum.nodes_sent += k.nodes_sent;
              sum.nodes_received += k.nodes_received;
              sum.lifeline_requests_sent += k.lifeline_requests_sent;
              sum.lifeline_requests_received += k.lifeline_requests_received;
              sum.pushes_sent += k.pushes_sent;
              sum.pushes_received += k.pushes_received;
              sum.push_nodes_sent += k.push_nodes_sent;
              sum.push_nodes_received += k.push_nodes_received;
              sum.tokens_passed += k.tokens_passed;
              sum.waves += k.waves;
              CHECK(k.requests_sent == k.steals + k.refusals);  // every request of ours was answered
              CHECK(k.push_nodes_received >= k.pushes_received);  // no empty push
              CHECK(k.dormant_seconds >= 0);
              if (steal == RankSteal::random) CHECK(k.dormant_seconds == 0);
            }
            CHECK(sum.requests_sent == sum.requests_received);
            CHECK(sum.steals == sum.requests_answered);
            CHECK(sum.refusals == sum.requests_refused);
            CHECK(sum.nodes_sent == sum.nodes_received);
            CHECK(sum.lifeline_requests_sent == sum.lifeline_requests_received);
            CHECK(sum.pushes_sent == sum.pushes_received);
            CHECK(sum.push_nodes_sent == sum.push_nodes_received);
            if (steal == RankSteal::random) CHECK(sum.lifeline_requests_sent + sum.pushes_sent == 0);
            if (termination == RankTermination::ring) {
              CHECK(job.ranks[0].tokens_passed > 0);  // rank 0 started at least one round
              CHECK(sum.tokens_passed >= static_cast<std::uint64_t>(ranks));
              CHECK(sum.waves == 0);
            } else {
              CHECK(job.ranks[0].waves >= 2);  // a conclusion needs two waves
              CHECK(sum.tokens_passed == 0);
            }
            global_steals += sum.steals;
            pushes += sum.pushes_received;
          }
        }
      }
    }
  }
  // Some runs end before a slow-starting rank asks (a small tree), but over
  // the matrix work must have moved between ranks, both ways.
  INFO("global steals over the matrix: ", global_steals, ", lifeline pushes: ", pushes);
  CHECK(global_steals > 0);
  CHECK(pushes > 0);
}

TEST_CASE("agents: --max-nodes across ranks stops every rank") {
  TreeParams t1 = geometric_tree();  // T1: 4,130,071 nodes
  t1.depth = 10;
  t1.seed = 19;
  const Tree tree(t1);
  StopRule stop;
  stop.max_nodes = 20000;
  const JobResult job = run_job(tree, "split", 3, 1, InitSpread::balanced, stop);
  CHECK(job.status == RunStatus::max_nodes);
  CHECK(job.counts.nodes >= 20000);
  CHECK(job.counts.nodes < 4130071);
}

namespace {

// A network that can hold messages back (a message in flight for as long as
// the test likes), for the closing race below.
class HoldingNetwork {
 public:
  explicit HoldingNetwork(int ranks) : boxes_(static_cast<std::size_t>(ranks)), ranks_(ranks) {}
  struct Parcel {
    Message m;
    std::shared_ptr<bool> matched;
    int to;
  };
  void post(Parcel p) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Waves 0 -> 1 and 1 -> 5 wait in the network until released.
    const bool hold = p.m.tag == Tag::wave && ((p.m.source == 0 && p.to == 1) || (p.m.source == 1 && p.to == 5));
    if (hold) held_.push_back(std::move(p));
    else boxes_[static_cast<std::size_t>(p.to)].push_back(std::move(p));
  }
  void release(int from, int to) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = held_.begin(); it != held_.end();) {
      if (it->m.source == from && it->to == to) {
        boxes_[static_cast<std::size_t>(to)].push_back(std::move(*it));
        it = held_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::optional<Message> take(int r) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& box = boxes_[static_cast<std::size_t>(r)];
    if (box.empty()) return std::nullopt;
    Parcel p = std::move(box.front());
    box.pop_front();
    *p.matched = true;
    return std::move(p.m);
  }
  bool matched(const std::shared_ptr<bool>& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return *f;
  }
  std::size_t held() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_.size();
  }
  int ranks() const { return ranks_; }

 private:
  std::mutex mutex_;
  std::vector<std::deque<Parcel>> boxes_;
  std::vector<Parcel> held_;
  int ranks_;
};

class HoldingTransport final : public Transport {
 public:
  HoldingTransport(HoldingNetwork& net, int rank) : net_(net), rank_(rank) {}
  int rank() const override { return rank_; }
  int ranks() const override { return net_.ranks(); }
  void send(int to, Tag tag, std::vector<char> bytes) override {
    auto flag = std::make_shared<bool>(false);
    pending_.push_back(flag);
    net_.post({Message{rank_, tag, std::move(bytes)}, flag, to});
  }
  std::optional<Message> receive() override { return net_.take(rank_); }
  bool sends_complete() override {
    std::erase_if(pending_, [&](const std::shared_ptr<bool>& f) { return net_.matched(f); });
    return pending_.empty();
  }
  [[noreturn]] void abort(int code) override {
    std::fprintf(stderr, "the agent aborted with %d\n", code);
    std::_Exit(1);
  }

 private:
  HoldingNetwork& net_;
  int rank_;
  std::vector<std::shared_ptr<bool>> pending_;
};

// A host with no nodes, always passive; stopped on demand.
class IdleHost final : public LinkHost {
 public:
  std::atomic<bool> stopped{false};
  std::size_t give(std::size_t, std::vector<Node>&) override { return 0; }
  void take(const Node*, std::size_t) override {}
  bool quiescent() override { return true; }
  std::uint64_t nodes_so_far() override { return 0; }
  bool stop_raised() override { return stopped; }
  RunStatus stop_reason() override { return RunStatus::interrupted; }
  int stop_signal() override { return 2; }
  void stop(RunStatus) override { stopped = true; }
  void stop(RunStatus, int) override { stopped = true; }
  void finish() override {}
};

// `ranks` agents over a HoldingNetwork, each with an idle host,
// --rank-termination tree.
struct IdleJob {
  explicit IdleJob(int ranks) : net(ranks), settings(static_cast<std::size_t>(ranks)) {
    for (int r = 0; r < ranks; ++r) {
      EngineSettings& s = settings[static_cast<std::size_t>(r)];
      s.ranks.count = ranks;
      s.ranks.rank = r;
      s.ranks.termination = RankTermination::tree;
      s.init = InitSpread::balanced;
      hosts.push_back(std::make_unique<IdleHost>());
      agents.push_back(make_rank_agent(std::make_unique<HoldingTransport>(net, r), s, stop));
    }
  }
  HoldingNetwork net;
  StopRule stop;
  std::vector<EngineSettings> settings;  // sized once: the agents keep references
  std::vector<std::unique_ptr<RemoteLink>> agents;
  std::vector<std::unique_ptr<IdleHost>> hosts;
};

}  // namespace

TEST_CASE("agents: closing holds every rank until a message in flight is received; a closing rank forwards no wave") {
  // Six ranks (rank 1 has child 5 in the 4-ary tree). Rank 0 starts a
  // termination wave; its WAVE to rank 1 stays in the network while rank 3
  // is interrupted and every rank closes. Closing counts every message:
  // while that WAVE is unreceived no rank may leave close() (it could be a
  // request whose thief waits for an answer). Once released, rank 1
  // receives it while closing and must not forward it to rank 5 (a
  // closing rank sends only answers): such a forward would be held too
  // and keep every rank in close() for ever.
  const int P = 6;
  IdleJob job(P);
  HoldingNetwork& net = job.net;
  auto& agents = job.agents;
  auto& hosts = job.hosts;
  agents[0]->poll_idle(*hosts[0], false);  // passive: wave 1 starts (held towards rank 1)
  REQUIRE(net.held() == 1);
  hosts[3]->stopped = true;  // SIGINT at rank 3
  std::vector<std::atomic<bool>> closed(P);
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      agents[static_cast<std::size_t>(r)]->close(*hosts[static_cast<std::size_t>(r)]);
      closed[static_cast<std::size_t>(r)] = true;
    });
  // Every rank is in close() and the closing waves run; none may conclude.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int early = 0;
  for (auto& c : closed) early += c ? 1 : 0;
  if (early != 0) {
    std::fprintf(stderr, "FAIL: %d ranks left close() with a message in flight\n", early);
    std::_Exit(1);  // the others may never return: the threads cannot be joined
  }
  net.release(0, 1);  // the WAVE reaches rank 1, which is closing
  bool all = false;
  for (int i = 0; i < 20000 && !all; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    all = true;
    for (auto& c : closed) all = all && c;
  }
  if (!all) {
    std::fprintf(stderr, "FAIL: a rank never returned from close() (%zu messages held: a wave forwarded while "
                 "closing?)\n", net.held());
    std::_Exit(1);
  }
  for (auto& t : threads) t.join();
  CHECK(net.held() == 0);
}

// Closing reports are taken only in close(): a rank still in its run, idle
// and quiescent (it could still send a request), holds the closing waves.
TEST_CASE("agents: a rank not yet in close() holds the closing waves, however passive") {
  const int P = 3;
  IdleJob job(P);
  HoldingNetwork& net = job.net;
  auto& agents = job.agents;
  auto& hosts = job.hosts;
  std::vector<std::atomic<bool>> closed(P);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      agents[static_cast<std::size_t>(r)]->close(*hosts[static_cast<std::size_t>(r)]);
      closed[static_cast<std::size_t>(r)] = true;
    });
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) {  // rank 2 still runs: idle, quiescent, not closing
    agents[2]->poll_idle(*hosts[2], false);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  if (closed[0] || closed[1]) {
    std::fprintf(stderr, "FAIL: a rank left close() while rank 2 was still running\n");
    std::_Exit(1);
  }
  agents[2]->close(*hosts[2]);
  for (auto& t : threads) t.join();
  CHECK(net.held() == 0);
}
