// distrib/agent.hpp: the rank agent without MPI. Whole jobs: each simulated
// rank is a host thread running the real engine (run_parallel, its own
// OpenMP team) with an agent whose Transport is an in-memory network with
// MPI's semantics: synchronous-mode sends (complete once matched),
// probe-and-receive. One agent step by step: a scripted transport and host,
// to check the phase machine's transitions and what each phase sends.
// Closing: several agents' close() stepped in turn over a network that holds
// messages back. Every build runs it, sanitizer builds included.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "distrib/agent.hpp"
#include "distrib/wire.hpp"
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

// ---- one agent, step by step ----

namespace {

// A Transport whose inbox the test fills and whose sends it reads; an abort
// (a bug the agent caught) throws, so a test can expect one.
struct Aborted {
  int code;
};

class ScriptTransport final : public Transport {
 public:
  struct Sent {
    int to;
    Tag tag;
    std::vector<char> bytes;
  };
  ScriptTransport(int rank, int ranks) : rank_(rank), ranks_(ranks) {}
  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  void send(int to, Tag tag, std::vector<char> bytes) override { sent.push_back({to, tag, std::move(bytes)}); }
  std::optional<Message> receive() override {
    if (inbox.empty()) return std::nullopt;
    Message m = std::move(inbox.front());
    inbox.pop_front();
    return m;
  }
  bool wait_for_message(std::size_t) override {
    ++waits;
    return true;
  }
  bool sends_complete() override { return complete; }
  [[noreturn]] void abort(int code) override { throw Aborted{code}; }

  std::deque<Message> inbox;
  std::vector<Sent> sent;
  int waits = 0;
  bool complete = true;

 private:
  int rank_, ranks_;
};

// Thread 0 of a rank as the agent sees it: `nodes` is its deque.
class ScriptHost final : public LinkHost {
 public:
  std::vector<Node> nodes;
  bool passive = true, stopped = false;
  RunStatus why = RunStatus::complete;
  std::uint64_t generated = 0;
  int finished = 0;

  std::size_t give(std::size_t max, std::vector<Node>& out) override {
    if (nodes.size() < 2) return 0;
    const std::size_t k = std::min(max, nodes.size() / 2);
    out.insert(out.end(), nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(k));
    nodes.erase(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(k));
    return k;
  }
  void take(const Node* in, std::size_t count) override { nodes.insert(nodes.end(), in, in + count); }
  bool quiescent() override { return passive && nodes.empty(); }
  std::uint64_t nodes_so_far() override { return generated; }
  bool stop_raised() override { return stopped; }
  RunStatus stop_reason() override { return why; }
  int stop_signal() override { return 0; }
  void stop(RunStatus w) override { stop(w, 0); }
  void stop(RunStatus w, int) override {
    if (stopped) return;
    stopped = true;
    why = w;
  }
  void finish() override { ++finished; }
};

std::vector<Node> some_nodes(std::size_t n) {
  std::vector<Node> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i].height = static_cast<std::uint32_t>(i);
  return v;
}

// One agent of `ranks`, rank `rank`, over a ScriptTransport the test keeps.
struct OneAgent {
  OneAgent(int rank, int ranks, RankSteal steal, RankTermination termination, InitSpread init = InitSpread::balanced,
           std::uint32_t w = 1, std::uint64_t max_nodes = 0, std::uint32_t poll = 256, std::uint32_t poll_max = 0) {
    settings.ranks.poll = poll;
    settings.ranks.poll_max = poll_max;
    settings.ranks.count = ranks;
    settings.ranks.rank = rank;
    settings.ranks.steal = steal;
    settings.ranks.termination = termination;
    settings.ranks.w = w;
    settings.ranks.l = 2;
    settings.init = init;
    stop.max_nodes = max_nodes;
    auto t = std::make_unique<ScriptTransport>(rank, ranks);
    net = t.get();
    agent = std::make_unique<RankAgent>(std::move(t), settings, stop);
  }
  void arrive(int from, Tag tag, std::vector<char> bytes = {}) { net->inbox.push_back({from, tag, std::move(bytes)}); }
  // The messages sent since the last call, as (to, tag).
  std::vector<std::pair<int, Tag>> sent() {
    std::vector<std::pair<int, Tag>> out;
    for (const auto& m : net->sent) out.emplace_back(m.to, m.tag);
    last = std::move(net->sent);
    net->sent.clear();
    return out;
  }
  EngineSettings settings;
  StopRule stop;
  ScriptTransport* net;
  std::unique_ptr<RankAgent> agent;
  std::vector<ScriptTransport::Sent> last;
  ScriptHost host;
};

using Sends = std::vector<std::pair<int, Tag>>;

}  // namespace

TEST_CASE("agent phases: the transition table") {
  const AgentPhase all[] = {AgentPhase::starting, AgentPhase::working,  AgentPhase::dormant, AgentPhase::finished,
                       AgentPhase::closing,  AgentPhase::released, AgentPhase::left};
  const std::pair<AgentPhase, AgentPhase> allowed_ones[] = {
      {AgentPhase::starting, AgentPhase::working}, {AgentPhase::starting, AgentPhase::dormant}, {AgentPhase::starting, AgentPhase::closing},
      {AgentPhase::working, AgentPhase::dormant},  {AgentPhase::working, AgentPhase::finished}, {AgentPhase::working, AgentPhase::closing},
      {AgentPhase::dormant, AgentPhase::working},  {AgentPhase::dormant, AgentPhase::finished}, {AgentPhase::dormant, AgentPhase::closing},
      {AgentPhase::finished, AgentPhase::closing}, {AgentPhase::closing, AgentPhase::released}, {AgentPhase::released, AgentPhase::left},
  };
  for (AgentPhase from : all)
    for (AgentPhase to : all) {
      bool listed = false;
      for (const auto& t : allowed_ones) listed = listed || (t.first == from && t.second == to);
      CAPTURE(std::string(to_string(from)));
      CAPTURE(std::string(to_string(to)));
      CHECK(allowed(from, to) == listed);
    }
  for (AgentPhase p : all) {
    CHECK(running(p) == (p == AgentPhase::working || p == AgentPhase::dormant));
    CHECK(closing(p) == (p == AgentPhase::closing || p == AgentPhase::released || p == AgentPhase::left));
  }
}

TEST_CASE("agent phases: random stealing, from the first poll to leaving close()") {
  // Rank 1 of 2: a leaf of rank 0 in the tree of ranks.
  OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
  CHECK(a.agent->phase() == AgentPhase::starting);
  a.host.passive = false;  // another thread of the rank still works: no termination step yet
  CHECK_FALSE(a.agent->poll_idle(a.host, true));
  CHECK(a.agent->phase() == AgentPhase::working);
  CHECK(a.sent() == Sends{{0, Tag::request}});
  CHECK(a.agent->wait_idle(a.host));  // nothing to send before its answer comes: it blocks
  CHECK(a.net->waits == 1);
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent().empty());  // one request out at a time
  a.arrive(0, Tag::answer);  // refused
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent() == Sends{{0, Tag::request}});  // asks again at once
  a.host.passive = true;
  a.arrive(0, Tag::answer, wire::of_nodes(some_nodes(3)));
  CHECK(a.agent->poll_idle(a.host, true));  // nodes arrived
  CHECK(a.host.nodes.size() == 3);
  CHECK(a.agent->phase() == AgentPhase::working);
  CHECK(a.agent->stats().steals == 1);
  CHECK(a.agent->stats().refusals == 1);
  a.arrive(0, Tag::done);
  a.agent->poll_busy(a.host);
  CHECK(a.agent->phase() == AgentPhase::finished);
  CHECK(a.host.finished == 1);
  CHECK(a.sent().empty());  // a leaf: DONE goes no further
  a.host.nodes.clear();
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent().empty());  // finished: no request, no termination step
  CHECK_FALSE(a.agent->wait_idle(a.host));
  CHECK(a.net->waits == 1);  // and it never blocks

  a.agent->begin_close(a.host);
  CHECK(a.agent->phase() == AgentPhase::closing);
  CHECK_FALSE(a.agent->close_step(a.host));
  CHECK(a.sent().empty());  // no closing wave yet: nothing to report
  std::uint64_t wave = 1;
  a.arrive(0, Tag::close_wave, wire::of_value(wave));
  CHECK_FALSE(a.agent->close_step(a.host));
  REQUIRE(a.sent() == Sends{{0, Tag::close_report}});
  // Every message of the job counted: 2 REQUESTs sent; 2 ANSWERs and DONE
  // received (the closing wave itself not).
  const auto r = wire::to_value<wire::Report>(a.last[0].bytes);
  CHECK(r.wave == 1);
  CHECK(r.sent == 2);
  CHECK(r.received == 3);
  a.net->complete = false;
  a.arrive(0, Tag::release);
  CHECK_FALSE(a.agent->close_step(a.host));
  CHECK(a.agent->phase() == AgentPhase::released);  // a leaf: no RELEASE to forward; its sends not yet complete
  CHECK(a.sent().empty());
  a.net->complete = true;
  CHECK(a.agent->close_step(a.host));
  CHECK(a.agent->phase() == AgentPhase::left);
}

TEST_CASE("agent phases: lifelines, dormant, woken by a push") {
  // Rank 1 of 2, base 2: its one lifeline is rank 0; one random attempt.
  OneAgent a(1, 2, RankSteal::lifeline, RankTermination::ring, InitSpread::balanced, 1);
  a.host.passive = false;
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent() == Sends{{0, Tag::request}});
  a.arrive(0, Tag::answer);
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent() == Sends{{0, Tag::lifeline}});  // its random attempt spent: the lifeline
  CHECK(a.agent->phase() == AgentPhase::dormant);
  CHECK(a.agent->stats().lifeline_requests_sent == 1);
  for (int i = 0; i < 3; ++i) a.agent->poll_idle(a.host, true);
  CHECK(a.sent().empty());  // dormant: nothing of its own
  CHECK(a.agent->stats().dormant_seconds == 0);  // counted as the rank leaves dormant, not before
  a.agent->wait_idle(a.host);
  CHECK(a.net->waits == 1);  // and it may block until a message comes
  a.arrive(0, Tag::push, wire::of_nodes(some_nodes(2)));
  CHECK(a.agent->poll_idle(a.host, true));
  CHECK(a.agent->phase() == AgentPhase::working);
  CHECK(a.host.nodes.size() == 2);
  CHECK(a.agent->stats().pushes_received == 1);
  CHECK(a.agent->stats().dormant_seconds > 0);  // the dormant spell, counted on waking
  // Dry again: the --rank-w attempt is re-armed, and the lifeline (served by
  // the push) asked again after it.
  a.host.nodes.clear();
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent() == Sends{{0, Tag::request}});
  a.arrive(0, Tag::answer);
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent() == Sends{{0, Tag::lifeline}});
  CHECK(a.agent->phase() == AgentPhase::dormant);
  // Thread 0 finds work in its own rank: awake without a message.
  a.agent->poll_busy(a.host);
  CHECK(a.agent->phase() == AgentPhase::working);
}

TEST_CASE("agent phases: --init root with lifelines: rank 0's nodes fan out to ranks that start dormant") {
  OneAgent r1(1, 2, RankSteal::lifeline, RankTermination::tree, InitSpread::root);
  r1.host.passive = false;
  r1.agent->poll_idle(r1.host, true);
  CHECK(r1.agent->phase() == AgentPhase::dormant);  // from the start
  CHECK(r1.sent().empty());                    // registered without a message
  OneAgent r0(0, 2, RankSteal::lifeline, RankTermination::tree, InitSpread::root);
  r0.host.nodes = some_nodes(10);
  r0.agent->poll_busy(r0.host);
  CHECK(r0.agent->phase() == AgentPhase::working);
  REQUIRE(r0.sent() == Sends{{1, Tag::push}});  // its recorded thief, at its first busy poll
  CHECK(r0.last[0].bytes.size() == 5 * sizeof(Node));
  r0.agent->poll_busy(r0.host);
  CHECK(r0.sent().empty());  // a served thief is forgotten until it asks again
}

TEST_CASE("agent phases: a closing rank refuses, forwards no WAVE nor DONE, and drops nodes") {
  // Rank 1 of 6: parent 0, child 5. Closes before it was ever polled.
  OneAgent a(1, 6, RankSteal::random, RankTermination::tree);
  a.host.nodes = some_nodes(8);
  a.agent->begin_close(a.host);
  CHECK(a.agent->phase() == AgentPhase::closing);
  a.arrive(3, Tag::request);
  std::uint64_t one = 1;
  a.arrive(0, Tag::wave, wire::of_value(one));
  a.arrive(0, Tag::done);
  a.agent->close_step(a.host);
  REQUIRE(a.sent() == Sends{{3, Tag::answer}});
  CHECK(a.last[0].bytes.empty());  // refused, though thread 0 holds nodes
  CHECK(a.host.nodes.size() == 8);
  CHECK(a.agent->phase() == AgentPhase::closing);  // DONE: the job is over, and it stays closing
  CHECK(a.host.finished == 1);
  // The closing waves go on to the children at once; the report waits for theirs.
  a.arrive(0, Tag::close_wave, wire::of_value(one));
  a.agent->close_step(a.host);
  CHECK(a.sent() == Sends{{5, Tag::close_wave}});
  a.arrive(5, Tag::close_report, wire::of_report(1, {0, 0}));
  a.agent->close_step(a.host);
  CHECK(a.sent() == Sends{{0, Tag::close_report}});
  a.arrive(0, Tag::release);
  CHECK(a.agent->close_step(a.host));
  CHECK(a.sent() == Sends{{5, Tag::release}});  // RELEASE down the tree
  CHECK(a.agent->phase() == AgentPhase::left);
}

TEST_CASE("agent phases: nodes in a stopped run's closing are counted and dropped") {
  OneAgent a(1, 2, RankSteal::random, RankTermination::ring);
  a.host.passive = false;
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent() == Sends{{0, Tag::request}});
  a.host.stopped = true;
  a.host.why = RunStatus::interrupted;
  a.agent->begin_close(a.host);
  CHECK(a.sent() == Sends{{0, Tag::stop}});
  a.arrive(0, Tag::answer, wire::of_nodes(some_nodes(4)));
  a.agent->close_step(a.host);
  CHECK(a.host.nodes.empty());
  CHECK(a.agent->stats().steals == 1);
  CHECK(a.agent->stats().nodes_received == 4);
}

TEST_CASE("agent: STOP is told once, and not by a rank that heard it") {
  OneAgent a(1, 3, RankSteal::random, RankTermination::tree);
  a.host.stopped = true;
  a.host.why = RunStatus::interrupted;
  a.agent->poll_idle(a.host, true);
  CHECK(a.sent() == Sends{{0, Tag::stop}, {2, Tag::stop}});
  a.agent->poll_idle(a.host, true);
  a.agent->begin_close(a.host);
  CHECK(a.sent().empty());
  OneAgent b(2, 3, RankSteal::random, RankTermination::tree);
  b.arrive(1, Tag::stop, wire::of_value(wire::StopNotice{static_cast<int>(RunStatus::interrupted), 2}));
  b.agent->poll_idle(b.host, true);
  CHECK(b.host.stopped);
  CHECK(b.host.why == RunStatus::interrupted);
  CHECK(b.sent().empty());
  b.agent->begin_close(b.host);
  CHECK(b.sent().empty());
}

TEST_CASE("agent: --max-nodes, rank 0 stops the job once the ranks' counts reach it") {
  OneAgent a(0, 2, RankSteal::random, RankTermination::tree, InitSpread::balanced, 1, 100);
  a.host.generated = 50;
  a.host.passive = false;
  a.agent->poll_busy(a.host);
  CHECK_FALSE(a.host.stopped);
  CHECK_FALSE(a.agent->wait_idle(a.host));  // counting: never blocks
  CHECK(a.net->waits == 0);
  a.arrive(1, Tag::count, wire::of_value(std::uint64_t{60}));
  a.agent->poll_busy(a.host);
  CHECK(a.host.stopped);
  CHECK(a.host.why == RunStatus::max_nodes);
  a.sent();
  a.agent->poll_busy(a.host);
  CHECK(a.sent() == Sends{{1, Tag::stop}});
}

TEST_CASE("agent: what can only be a bug ends the job") {
  SUBCASE("an answer to no request") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.arrive(0, Tag::answer);
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
  }
  SUBCASE("nodes after DONE") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.host.passive = false;
    a.agent->poll_idle(a.host, true);
    a.arrive(0, Tag::done);
    a.agent->poll_idle(a.host, true);
    REQUIRE(a.agent->phase() == AgentPhase::finished);
    a.arrive(0, Tag::answer, wire::of_nodes(some_nodes(2)));
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, true), Aborted);
  }
  SUBCASE("RELEASE before close()") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.arrive(0, Tag::release);
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
  }
  SUBCASE("a token with --rank-termination tree") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.arrive(0, Tag::token, wire::of_token({}));
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
  }
  SUBCASE("a push without lifelines") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.arrive(0, Tag::push, wire::of_nodes(some_nodes(2)));
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
  }
  SUBCASE("closing twice") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.agent->begin_close(a.host);
    CHECK_THROWS_AS(a.agent->begin_close(a.host), Aborted);
  }
}

TEST_CASE("agent: a malformed message from another rank ends the job, never decoded") {
  // Each would be legal well-formed (the test above and the ones before it
  // take them), so the size or the value is what the agent refuses.
  SUBCASE("STOP shorter than a notice") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.arrive(0, Tag::stop, std::vector<char>(4, 0));
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
    CHECK_FALSE(a.host.stopped);
  }
  SUBCASE("STOP with a status no run ends with, or a signal no process gets") {
    for (const wire::StopNotice why : {wire::StopNotice{7, 0}, wire::StopNotice{-1, 0}, wire::StopNotice{2, 99}}) {
      OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
      a.arrive(0, Tag::stop, wire::of_value(why));
      CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
      CHECK_FALSE(a.host.stopped);
    }
  }
  SUBCASE("COUNT of four bytes") {
    OneAgent a(0, 2, RankSteal::random, RankTermination::tree, InitSpread::balanced, 1, 100);
    a.arrive(1, Tag::count, std::vector<char>(4, 0));
    CHECK_THROWS_AS(a.agent->poll_busy(a.host), Aborted);
  }
  SUBCASE("a token whose colour is neither 0 nor 1") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::ring);
    struct TokenWords {
      std::int64_t q, colour;
    };
    a.arrive(0, Tag::token, wire::of_value(TokenWords{0, 2}));
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
  }
  SUBCASE("an answer of more nodes than --rank-chunk, or of a part node") {
    for (const std::size_t size : {std::size_t{1025} * sizeof(Node), sizeof(Node) + 1}) {
      OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
      a.host.passive = false;
      a.agent->poll_idle(a.host, true);
      REQUIRE(a.sent() == Sends{{0, Tag::request}});
      a.arrive(0, Tag::answer, std::vector<char>(size, 0));
      CHECK_THROWS_AS(a.agent->poll_idle(a.host, true), Aborted);
      CHECK(a.host.nodes.empty());
    }
  }
  SUBCASE("a request with a payload") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.arrive(0, Tag::request, std::vector<char>(1, 'x'));
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
  }
  SUBCASE("a tag no rank sends") {
    OneAgent a(1, 2, RankSteal::random, RankTermination::tree);
    a.arrive(0, static_cast<Tag>(99));
    CHECK_THROWS_AS(a.agent->poll_idle(a.host, false), Aborted);
  }
}

// ---- closing across agents, stepped in turn ----

namespace {

// A network that can hold messages back (a message in flight for as long as
// the test likes), for the closing races below.
class HoldingNetwork {
 public:
  explicit HoldingNetwork(int ranks) : boxes_(static_cast<std::size_t>(ranks)), ranks_(ranks) {}
  struct Parcel {
    Message m;
    std::shared_ptr<bool> matched;
    int to;
  };
  void post(Parcel p) {
    // Waves 0 -> 1 and 1 -> 5 wait in the network until released.
    const bool hold = p.m.tag == Tag::wave && ((p.m.source == 0 && p.to == 1) || (p.m.source == 1 && p.to == 5));
    if (hold) held_.push_back(std::move(p));
    else boxes_[static_cast<std::size_t>(p.to)].push_back(std::move(p));
  }
  void release(int from, int to) {
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
    auto& box = boxes_[static_cast<std::size_t>(r)];
    if (box.empty()) return std::nullopt;
    Parcel p = std::move(box.front());
    box.pop_front();
    *p.matched = true;
    return std::move(p.m);
  }
  std::size_t held() const { return held_.size(); }
  int ranks() const { return ranks_; }

 private:
  std::vector<std::deque<Parcel>> boxes_;
  std::vector<Parcel> held_;
  int ranks_;
};

// Synchronous mode: a send completes once its message is taken.
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
    std::erase_if(pending_, [](const std::shared_ptr<bool>& f) { return *f; });
    return pending_.empty();
  }
  [[noreturn]] void abort(int code) override { throw Aborted{code}; }

 private:
  HoldingNetwork& net_;
  int rank_;
  std::vector<std::shared_ptr<bool>> pending_;
};

// `ranks` agents over a HoldingNetwork, each with a host with no nodes,
// --rank-termination tree.
struct IdleJob {
  explicit IdleJob(int ranks) : net(ranks), settings(static_cast<std::size_t>(ranks)) {
    for (int r = 0; r < ranks; ++r) {
      EngineSettings& s = settings[static_cast<std::size_t>(r)];
      s.ranks.count = ranks;
      s.ranks.rank = r;
      s.ranks.termination = RankTermination::tree;
      s.init = InitSpread::balanced;
      hosts.push_back(std::make_unique<ScriptHost>());
      agents.push_back(std::make_unique<RankAgent>(std::make_unique<HoldingTransport>(net, r), s, stop));
    }
  }
  // One close_step of every closing rank that has not left; true when all
  // of `ranks` have left.
  bool step(const std::vector<int>& ranks) {
    bool all = true;
    for (int r : ranks) {
      RankAgent& a = *agents[static_cast<std::size_t>(r)];
      if (a.phase() != AgentPhase::left) a.close_step(*hosts[static_cast<std::size_t>(r)]);
      all = all && a.phase() == AgentPhase::left;
    }
    return all;
  }
  int left() const {
    int n = 0;
    for (const auto& a : agents) n += a->phase() == AgentPhase::left ? 1 : 0;
    return n;
  }
  HoldingNetwork net;
  StopRule stop;
  std::vector<EngineSettings> settings;  // sized once
  std::vector<std::unique_ptr<RankAgent>> agents;
  std::vector<std::unique_ptr<ScriptHost>> hosts;
};

// Enough rounds for the closing waves to conclude many times over (each
// wave takes a few rounds per level of the tree).
constexpr int kRounds = 2000;

}  // namespace

TEST_CASE("closing holds every rank until a message in flight is received; a closing rank forwards no wave") {
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
  job.agents[0]->poll_idle(*job.hosts[0], false);  // passive: wave 1 starts (held towards rank 1)
  REQUIRE(job.net.held() == 1);
  job.hosts[3]->stopped = true;  // SIGINT at rank 3
  job.hosts[3]->why = RunStatus::interrupted;
  std::vector<int> all;
  for (int r = 0; r < P; ++r) {
    job.agents[static_cast<std::size_t>(r)]->begin_close(*job.hosts[static_cast<std::size_t>(r)]);
    all.push_back(r);
  }
  for (int i = 0; i < kRounds; ++i) job.step(all);
  CHECK(job.left() == 0);
  for (const auto& a : job.agents) CHECK(a->phase() == AgentPhase::closing);
  job.net.release(0, 1);  // the WAVE reaches rank 1, which is closing
  bool done = false;
  for (int i = 0; i < kRounds && !done; ++i) done = job.step(all);
  CHECK(done);
  CHECK(job.net.held() == 0);
  for (int r = 0; r < P; ++r) CHECK(job.hosts[static_cast<std::size_t>(r)]->stopped);  // STOP reached every rank
}

// Closing reports are taken only in close(): a rank still in its run, idle
// and quiescent (it could still send a request), holds the closing waves.
TEST_CASE("closing: a rank not yet in close() holds the closing waves, however passive") {
  const int P = 3;
  IdleJob job(P);
  for (int r = 0; r < 2; ++r) job.agents[static_cast<std::size_t>(r)]->begin_close(*job.hosts[static_cast<std::size_t>(r)]);
  for (int i = 0; i < kRounds; ++i) {
    job.step({0, 1});
    job.agents[2]->poll_idle(*job.hosts[2], false);  // idle, quiescent, not closing
  }
  CHECK(job.left() == 0);
  CHECK(job.agents[2]->phase() == AgentPhase::working);
  job.agents[2]->begin_close(*job.hosts[2]);
  bool done = false;
  for (int i = 0; i < kRounds && !done; ++i) done = job.step({0, 1, 2});
  CHECK(done);
  CHECK(job.net.held() == 0);
}

TEST_CASE("agent: the busy-poll interval doubles while no one asks; a request, a waiting thief or counting keep it short") {
  OneAgent a(0, 3, RankSteal::lifeline, RankTermination::tree, InitSpread::balanced, 1, 0, 16, 128);
  a.host.nodes = some_nodes(10);
  a.host.passive = false;
  CHECK(a.agent->poll_busy(a.host) == 32);
  CHECK(a.agent->poll_busy(a.host) == 64);
  CHECK(a.agent->poll_busy(a.host) == 128);
  CHECK(a.agent->poll_busy(a.host) == 128);  // the longest
  a.arrive(1, Tag::request);
  CHECK(a.agent->poll_busy(a.host) == 16);  // answered, and back to the shortest
  CHECK(a.sent() == Sends{{1, Tag::answer}});
  CHECK(a.agent->poll_busy(a.host) == 32);
  // A request an idle poll refused still counts at the next busy poll.
  a.arrive(2, Tag::request);
  a.agent->poll_idle(a.host, false);
  CHECK(a.sent() == Sends{{2, Tag::answer}});
  CHECK(a.agent->stats().requests_refused == 1);
  CHECK(a.agent->poll_busy(a.host) == 16);
  CHECK(a.agent->poll_busy(a.host) == 32);
  // A lifeline thief thread 0 cannot serve yet (fewer than two nodes) keeps
  // it at the shortest until it is served.
  a.host.nodes = some_nodes(1);
  a.arrive(2, Tag::lifeline);
  CHECK(a.agent->poll_busy(a.host) == 16);
  CHECK(a.agent->poll_busy(a.host) == 16);
  CHECK(a.sent().empty());
  a.host.nodes = some_nodes(10);
  CHECK(a.agent->poll_busy(a.host) == 32);  // pushed: nobody waits any more
  CHECK(a.sent() == Sends{{2, Tag::push}});
}

TEST_CASE("agent: with --max-nodes the busy-poll interval stays at its shortest (a COUNT is due every millisecond)") {
  OneAgent a(1, 2, RankSteal::random, RankTermination::tree, InitSpread::balanced, 1, 1000000, 16, 4096);
  a.host.nodes = some_nodes(10);
  a.host.passive = false;
  for (int i = 0; i < 6; ++i) CHECK(a.agent->poll_busy(a.host) == 16);
}

TEST_CASE("agent: equal bounds poll at a fixed interval") {
  OneAgent a(0, 2, RankSteal::random, RankTermination::tree, InitSpread::balanced, 1, 0, 64, 64);
  a.host.nodes = some_nodes(10);
  a.host.passive = false;
  for (int i = 0; i < 4; ++i) CHECK(a.agent->poll_busy(a.host) == 64);
}
