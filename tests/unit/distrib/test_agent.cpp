// distrib/agent.hpp: the rank agent's protocol (requests, answers, the Safra
// token, DONE, STOP, closing) without MPI. Each simulated rank is a host
// thread running the real engine (run_parallel, its own OpenMP team) with an
// agent whose Transport is an in-memory network with MPI's semantics:
// synchronous-mode sends (complete once matched), probe-and-receive, a
// non-blocking barrier. Every builds runs it, sanitizer builds included.
#include <doctest/doctest.h>

#include <condition_variable>
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
  void join_barrier() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++joined_;
  }
  bool barrier_complete() {
    std::lock_guard<std::mutex> lock(mutex_);
    return joined_ == ranks_;
  }
  int ranks() const { return ranks_; }

 private:
  std::mutex mutex_;
  std::vector<std::deque<Parcel>> inboxes_;
  int ranks_;
  int joined_ = 0;
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
  void join_barrier() override { net_.join_barrier(); }
  bool barrier_complete() override { return net_.barrier_complete(); }
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
JobResult run_job(const Tree& tree, const std::string& protocol, int ranks, int threads, InitSpread init,
                  const StopRule& stop = StopRule{}) {
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
  std::uint64_t global_steals = 0;
  for (const TreeParams& params : {geometric_tree(), binomial_tree()}) {
    const Tree tree(params);
    const RunResult want = run_sequential(tree, StopRule{});
    for (const char* protocol : {"split", "locked", "request", "chaselev"}) {
      for (const auto& shape : {std::pair{2, 1}, std::pair{3, 2}, std::pair{5, 1}}) {
        const int ranks = shape.first, threads = shape.second;
        for (InitSpread init : {InitSpread::root, InitSpread::balanced}) {
          CAPTURE(std::string(protocol));
          CAPTURE(ranks);
          CAPTURE(threads);
          CAPTURE(std::string(to_string(init)));
          const JobResult job = run_job(tree, protocol, ranks, threads, init);
          CHECK(job.status == RunStatus::complete);
          CHECK(job.counts.nodes == want.counts.nodes);
          CHECK(job.counts.leaves == want.counts.leaves);
          CHECK(job.counts.max_depth == want.counts.max_depth);
          CHECK(job.counts.checksum == want.counts.checksum);
          RankStats sum;
          std::uint64_t tokens = 0;
          for (const RankStats& k : job.ranks) {
            sum.requests_sent += k.requests_sent;
            sum.requests_received += k.requests_received;
            sum.steals += k.steals;
            sum.requests_answered += k.requests_answered;
            sum.refusals += k.refusals;
            sum.requests_refused += k.requests_refused;
            sum.nodes_sent += k.nodes_sent;
            sum.nodes_received += k.nodes_received;
            CHECK(k.requests_sent == k.steals + k.refusals);  // every request of ours was answered
            tokens += k.tokens_passed;
          }
          CHECK(sum.requests_sent == sum.requests_received);
          CHECK(sum.steals == sum.requests_answered);
          CHECK(sum.refusals == sum.requests_refused);
          CHECK(sum.nodes_sent == sum.nodes_received);
          CHECK(job.ranks[0].tokens_passed > 0);  // rank 0 started at least one round
          CHECK(tokens >= static_cast<std::uint64_t>(ranks));
          global_steals += sum.steals;
        }
      }
    }
  }
  // Some runs end before a slow-starting rank asks (a small tree), but over
  // the matrix work must have moved between ranks.
  INFO("global steals over the matrix: ", global_steals);
  CHECK(global_steals > 0);
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
