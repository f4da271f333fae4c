// The agent's Transport over MPI (mpi_transport.hpp): nonblocking sends kept
// until they complete, probe-and-receive, and uts-smpi's blocking wait.
#include "distrib/mpi/mpi_transport.hpp"

#include <mpi.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "uts_build_config.hpp"

namespace uts::distrib {

namespace {

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
  }
  ~MpiTransport() override { MPI_Comm_free(&comm_); }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  void send(int to, Tag tag, std::vector<char> bytes) override {
    reap();
    pending_.push_back(Pending{MPI_REQUEST_NULL, std::move(bytes)});
    Pending& p = pending_.back();
#if UTS_SMPI
    // uts-smpi: standard mode, which SMPI sends eagerly (a detached copy)
    // below smpi/send-is-detached-thresh (64 KiB by default; an answer of
    // the default 1,024 nodes is 28 KiB). SimGrid 3.32 forgets a completed
    // synchronous send only when it is waited for, not when MPI_Test finds
    // it done: each one would stay on the rank's list of activities, which
    // SimGrid scans at every simulated computation, so a large simulated
    // job slows down quadratically (measured in docs/smpi.md). Closing
    // counts messages (closing.hpp) and does not rely on the mode.
    MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, to, static_cast<int>(tag), comm_,
              &p.request);
#else
    MPI_Issend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, to, static_cast<int>(tag), comm_,
               &p.request);
#endif
  }

  std::optional<Message> receive() override {
    if (held_) {
      std::optional<Message> m = std::move(held_);
      held_.reset();
      return m;
    }
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &st);
    if (!flag) {
      reap();
      return std::nullopt;
    }
    int size = 0;
    MPI_Get_count(&st, MPI_BYTE, &size);
    Message m{st.MPI_SOURCE, static_cast<Tag>(st.MPI_TAG), std::vector<char>(static_cast<std::size_t>(size))};
    MPI_Recv(m.bytes.data(), size, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm_, MPI_STATUS_IGNORE);
    return m;
  }

#if UTS_SMPI
  // A blocking receive of any message: SMPI wakes the simulated rank when
  // one arrives, with no polling (each poll would be a simulated event).
  bool wait_for_message(std::size_t max_bytes) override {
    if (held_) return true;
    if (buffer_size_ < max_bytes) {  // not zero-filled: only what arrives is touched
      buffer_ = std::make_unique_for_overwrite<char[]>(max_bytes);
      buffer_size_ = max_bytes;
    }
    MPI_Status st;
    MPI_Recv(buffer_.get(), static_cast<int>(max_bytes), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &st);
    int size = 0;
    MPI_Get_count(&st, MPI_BYTE, &size);
    held_ = Message{st.MPI_SOURCE, static_cast<Tag>(st.MPI_TAG), std::vector<char>(buffer_.get(), buffer_.get() + size)};
    return true;
  }
#endif

  bool sends_complete() override {
    reap();
    return pending_.empty();
  }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  struct Pending {
    MPI_Request request;
    std::vector<char> bytes;  // the send buffer, alive until the send completes
  };

  // Forget the sends that completed.
  void reap() {
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

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  std::vector<Pending> pending_;
  std::optional<Message> held_;  // received by wait_for_message, not yet returned
  std::unique_ptr<char[]> buffer_;  // wait_for_message's
  std::size_t buffer_size_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport() { return std::make_unique<MpiTransport>(); }

}  // namespace uts::distrib
