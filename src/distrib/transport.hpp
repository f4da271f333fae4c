// The messages between ranks, free of MPI: the rank agent (agent.hpp) speaks
// only through this interface. distrib/mpi/ implements it over MPI; the unit
// tests implement it in memory, so the agent's protocol and Safra's token
// policy run there without MPI.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace uts::distrib {

enum class Tag : int { request = 1, answer, token, done, stop, count, lifeline, push, wave, report, close_wave, close_report, release };

struct Message {
  int source = 0;
  Tag tag = Tag::request;
  std::vector<char> bytes;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Send `bytes` to rank `to`, without blocking. Closing does not rely on
  // the mode (closing.hpp): MPI sends in synchronous mode, uts-smpi in
  // standard mode (docs/smpi.md).
  virtual void send(int to, Tag tag, std::vector<char> bytes) = 0;
  // The next message that has arrived, if any (probe, then receive).
  virtual std::optional<Message> receive() = 0;
  // Block until a message has arrived (the next receive() returns it),
  // `max_bytes` at most. false: this transport does not block (only the
  // SMPI build's does: there an idle simulated rank must block in MPI).
  virtual bool wait_for_message(std::size_t /*max_bytes*/) { return false; }
  // Every send so far has completed (matched; or, in standard mode,
  // buffered: uts-smpi).
  virtual bool sends_complete() = 0;
  // A protocol violation (a bug): end the whole job with `code`.
  [[noreturn]] virtual void abort(int code) = 0;
};

}  // namespace uts::distrib
