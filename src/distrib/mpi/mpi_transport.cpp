#include "distrib/mpi/mpi_transport.hpp"

#include <mpi.h>

#include <cstdlib>
#include <vector>

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
    MPI_Issend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, to, static_cast<int>(tag), comm_,
               &p.request);
  }

  std::optional<Message> receive() override {
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

  bool sends_complete() override {
    reap();
    return pending_.empty();
  }

  void join_barrier() override { MPI_Ibarrier(comm_, &barrier_); }
  bool barrier_complete() override {
    int flag = 0;
    MPI_Test(&barrier_, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
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
  MPI_Request barrier_ = MPI_REQUEST_NULL;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport() { return std::make_unique<MpiTransport>(); }

}  // namespace uts::distrib
