#include "distrib/mpi_agent.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "distrib/safra.hpp"

namespace uts::distrib {

namespace {

static_assert(sizeof(Node) == 28 && std::is_trivially_copyable_v<Node>, "nodes travel as 28-byte records");

enum Tag : int { kRequest = 1, kAnswer, kToken, kDone, kStop, kCount };

constexpr auto kCountInterval = std::chrono::milliseconds(1);  // --max-nodes: COUNT messages at most this often

using Clock = std::chrono::steady_clock;

class MpiAgent final : public RankLink {
 public:
  MpiAgent(const EngineSettings& settings, const StopRule& stop)
      : settings_(settings), stop_(stop), safra_(0, 1) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);  // our tags never meet the caller's messages
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
    safra_ = Safra(rank_, ranks_);
    token_here_ = rank_ == 0;
    counts_.assign(static_cast<std::size_t>(ranks_), 0);
    rng_ = 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(rank_ + 1) ^ settings.ranks;
    last_count_ = Clock::now();
  }
  ~MpiAgent() override { MPI_Comm_free(&comm_); }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  RankStats stats() const override { return stats_; }

  void poll_busy(RankHost& host) override {
    receive_all(host, false);
    housekeeping(host);
  }

  bool poll_idle(RankHost& host, bool dry) override {
    const std::uint64_t before = stats_.steals;
    receive_all(host, true);
    if (stats_.steals != before) return true;  // nodes arrived: take() made thread 0 busy
    housekeeping(host);
    if (finished_ || host.stop_raised()) return false;
    if (!outstanding_ && dry && settings_.stealing) send_request();
    if (token_here_ && host.quiescent()) handle_token(host);
    return false;
  }

  void close(RankHost& host) override {
    closing_ = true;
    housekeeping(host);  // announces a local stop to the other ranks
    bool joined = false;
    MPI_Request barrier = MPI_REQUEST_NULL;
    for (;;) {
      receive_all(host, true);
      complete_sends();
      if (!joined && !outstanding_ && pending_.empty()) {
        MPI_Ibarrier(comm_, &barrier);
        joined = true;
      }
      if (joined) {
        int flag = 0;
        MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE);
        if (flag && pending_.empty()) break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

 private:
  struct Pending {
    MPI_Request request;
    std::vector<char> bytes;  // the send buffer, alive until the send completes
  };

  void send(int to, Tag tag, std::vector<char> bytes) {
    pending_.push_back(Pending{MPI_REQUEST_NULL, std::move(bytes)});
    Pending& p = pending_.back();
    MPI_Issend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, to, tag, comm_, &p.request);
  }
  template <class T>
  static std::vector<char> bytes_of(const T& value) {
    std::vector<char> b(sizeof(T));
    std::memcpy(b.data(), &value, sizeof(T));
    return b;
  }

  void complete_sends() {
    for (std::size_t i = 0; i < pending_.size();) {
      int flag = 0;
      MPI_Test(&pending_[i].request, &flag, MPI_STATUS_IGNORE);
      if (flag) {
        pending_[i] = std::move(pending_.back());
        pending_.pop_back();
      } else {
        ++i;
      }
    }
  }

  // Every message that has arrived. `idle`: thread 0 holds no nodes (or the
  // run is closing), so requests are refused.
  void receive_all(RankHost& host, bool idle) {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &st);
      if (!flag) return;
      int size = 0;
      MPI_Get_count(&st, MPI_BYTE, &size);
      buffer_.resize(static_cast<std::size_t>(size));
      MPI_Recv(buffer_.data(), size, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm_, MPI_STATUS_IGNORE);
      switch (st.MPI_TAG) {
        case kRequest: answer(host, st.MPI_SOURCE, idle); break;
        case kAnswer: on_answer(host, static_cast<std::size_t>(size)); break;
        case kToken: {
          std::int64_t w[2];
          std::memcpy(w, buffer_.data(), sizeof w);
          token_ = Safra::Token{w[0], w[1] != 0};
          token_here_ = true;
          break;
        }
        case kDone:
          finished_ = true;
          host.finish();
          break;
        case kStop: {
          int why = 0;
          std::memcpy(&why, buffer_.data(), sizeof why);
          stop_heard_ = true;
          host.stop(static_cast<RunStatus>(why));
          break;
        }
        case kCount: {
          std::uint64_t n = 0;
          std::memcpy(&n, buffer_.data(), sizeof n);
          counts_[static_cast<std::size_t>(st.MPI_SOURCE)] = n;
          break;
        }
        default:
          std::fprintf(stderr, "uts: rank %d: unexpected message tag %d from rank %d\n", rank_, st.MPI_TAG,
                       st.MPI_SOURCE);
          MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  }

  void answer(RankHost& host, int thief, bool idle) {
    ++stats_.requests_received;
    give_.clear();
    if (!idle && !closing_ && !host.stop_raised()) host.give(settings_.rank_chunk, give_);
    std::vector<char> bytes(give_.size() * sizeof(Node));
    if (!give_.empty()) std::memcpy(bytes.data(), give_.data(), bytes.size());
    if (give_.empty()) {
      ++stats_.requests_refused;
    } else {
      ++stats_.requests_answered;
      stats_.nodes_sent += give_.size();
      safra_.sent_basic();  // counted before it can be received
    }
    send(thief, kAnswer, std::move(bytes));
  }

  void on_answer(RankHost& host, std::size_t size) {
    outstanding_ = false;
    stats_.request_wait_seconds += std::chrono::duration<double>(Clock::now() - request_sent_).count();
    const std::size_t n = size / sizeof(Node);
    if (n * sizeof(Node) != size) {
      std::fprintf(stderr, "uts: rank %d: an answer of %zu bytes is not whole nodes\n", rank_, size);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (n == 0) {
      ++stats_.refusals;
      return;
    }
    safra_.received_basic();
    if (finished_) {
      // The termination algorithm says no node can be in flight after DONE.
      std::fprintf(stderr, "uts: rank %d: %zu nodes arrived after termination (a bug: nodes lost)\n", rank_, n);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    ++stats_.steals;  // counted even when dropped below, so the ranks' statistics balance
    stats_.nodes_received += n;
    if (closing_) return;  // a stopped run: the partial counts stay partial
    host.take(reinterpret_cast<const Node*>(buffer_.data()), n);
  }

  void send_request() {
    // A random other rank.
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    int victim = static_cast<int>(rng_ % static_cast<std::uint64_t>(ranks_ - 1));
    if (victim >= rank_) ++victim;
    outstanding_ = true;
    ++stats_.requests_sent;
    request_sent_ = Clock::now();
    send(victim, kRequest, {});
  }

  // This rank is passive and holds the token.
  void handle_token(RankHost& host) {
    if (rank_ != 0) {
      const Safra::Token out = safra_.pass(token_);
      send_token(out);
      return;
    }
    if (round_running_ && safra_.concludes(token_)) {
      finished_ = true;
      token_here_ = false;
      for (int r = 1; r < ranks_; ++r) send(r, kDone, {});
      host.finish();
      return;
    }
    round_running_ = true;
    send_token(safra_.start_round());
  }
  void send_token(const Safra::Token& t) {
    const std::int64_t w[2] = {t.q, t.black ? 1 : 0};
    std::vector<char> b(sizeof w);
    std::memcpy(b.data(), w, sizeof w);
    token_here_ = false;
    ++stats_.tokens_passed;
    send(safra_.next(), kToken, std::move(b));
  }

  void housekeeping(RankHost& host) {
    complete_sends();
    if (host.stop_raised() && !stop_told_ && !stop_heard_) {
      stop_told_ = true;
      const int why = static_cast<int>(host.stop_reason());
      for (int r = 0; r < ranks_; ++r)
        if (r != rank_) send(r, kStop, bytes_of(why));
    }
    if (stop_.max_nodes == 0 || host.stop_raised() || closing_ || finished_) return;
    if (rank_ == 0) {
      std::uint64_t total = host.nodes_so_far();
      for (int r = 1; r < ranks_; ++r) total += counts_[static_cast<std::size_t>(r)];
      if (total >= stop_.max_nodes) host.stop(RunStatus::max_nodes);
      return;
    }
    const auto now = Clock::now();
    if (now - last_count_ >= kCountInterval) {
      last_count_ = now;
      send(0, kCount, bytes_of(host.nodes_so_far()));
    }
  }

  const EngineSettings& settings_;
  const StopRule& stop_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  Safra safra_;
  Safra::Token token_;
  bool token_here_ = false;
  bool round_running_ = false;  // rank 0: a token is out or back from a round
  bool outstanding_ = false;    // our request awaits its answer
  bool finished_ = false;       // DONE sent or received
  bool closing_ = false;
  bool stop_told_ = false, stop_heard_ = false;
  Clock::time_point request_sent_, last_count_;
  std::uint64_t rng_;
  std::vector<std::uint64_t> counts_;  // rank 0, --max-nodes: each rank's last COUNT
  std::vector<Pending> pending_;
  std::vector<char> buffer_;
  std::vector<Node> give_;
  RankStats stats_;
};

}  // namespace

std::unique_ptr<RankLink> make_mpi_agent(const EngineSettings& settings, const StopRule& stop) {
  return std::make_unique<MpiAgent>(settings, stop);
}

}  // namespace uts::distrib
