// Stopping early across ranks: STOP and --max-nodes' COUNT (stop_count.hpp).
#include "distrib/stop_count.hpp"

#include "distrib/wire.hpp"

namespace uts::distrib {

StopCount::StopCount(Channel& channel, const StopRule& stop)
    : channel_(channel),
      max_nodes_(stop.max_nodes),
      last_count_(Clock::now()),
      counts_(static_cast<std::size_t>(channel.ranks()), 0) {}

void StopCount::on_stop(LinkHost& host, const Message& m) {
  const auto why = wire::to_value<wire::StopNotice>(m.bytes);
  settled_ = true;
  host.stop(static_cast<RunStatus>(why.status), why.signal);
}

void StopCount::on_count(const Message& m) {
  counts_[static_cast<std::size_t>(m.source)] = wire::to_value<std::uint64_t>(m.bytes);
}

void StopCount::step(LinkHost& host, bool counting) {
  const int rank = channel_.rank(), ranks = channel_.ranks();
  if (host.stop_raised() && !settled_) {
    settled_ = true;
    const wire::StopNotice why{static_cast<int>(host.stop_reason()), host.stop_signal()};
    for (int r = 0; r < ranks; ++r)
      if (r != rank) channel_.post(r, Tag::stop, wire::of_value(why));
  }
  if (max_nodes_ == 0 || !counting || host.stop_raised()) return;
  if (rank == 0) {
    std::uint64_t total = host.nodes_so_far();
    for (int r = 1; r < ranks; ++r) total += counts_[static_cast<std::size_t>(r)];
    if (total >= max_nodes_) host.stop(RunStatus::max_nodes);
    return;
  }
  const auto now = Clock::now();
  if (now - last_count_ >= kCountInterval) {
    last_count_ = now;
    channel_.post(0, Tag::count, wire::of_value(host.nodes_so_far()));
  }
}

}  // namespace uts::distrib
