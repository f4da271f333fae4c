// The rank agent's one door to the Transport: every message of the job goes
// out through post() and comes in through receive(), counted there for the
// closing waves (closing.hpp), which count every message but their own; and
// a protocol violation ends the job from here.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distrib/transport.hpp"
#include "distrib/waves.hpp"

namespace uts::distrib {

class Channel {
 public:
  explicit Channel(std::unique_ptr<Transport> transport);

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }

  // A message of the job: counted as sent before it can be received, as the
  // closing waves' four-counter argument needs (waves.hpp).
  void post(int to, Tag tag, std::vector<char> bytes);
  // One of the closing waves' own messages (CLOSE_WAVE, CLOSE_REPORT,
  // RELEASE): the only ones not counted.
  void send_closing(int to, Tag tag, std::vector<char> bytes);
  // The next message that has arrived, if any; a message of the job is
  // counted as received as it is taken.
  std::optional<Message> receive();

  // Messages of the job sent and received so far (the closing waves' own
  // counters).
  const FourCounterWaves::Sums& counted() const { return counted_; }
  static bool closing_tag(Tag t) { return t == Tag::close_wave || t == Tag::close_report || t == Tag::release; }

  bool wait_for_message(std::size_t max_bytes) { return net_->wait_for_message(max_bytes); }
  bool sends_complete() { return net_->sends_complete(); }

  // A message that breaks the protocol (a bug): says so and ends the job.
  [[noreturn]] void protocol_error(const std::string& what, int from);
  // Any other bug: "uts: rank R: <line>", and the job ends.
  [[noreturn]] void fail(const std::string& line);

 private:
  std::unique_ptr<Transport> net_;
  int rank_, ranks_;
  FourCounterWaves::Sums counted_;
};

}  // namespace uts::distrib
