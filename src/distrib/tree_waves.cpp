// Four-counter waves over the tree of ranks with their messages
// (tree_waves.hpp).
#include "distrib/tree_waves.hpp"

#include "distrib/wire.hpp"
#include "run/trace.hpp"

namespace uts::distrib {

TreeWaves::TreeWaves(Channel& channel, const Kind& kind, const FourCounterWaves::Sums* own)
    : channel_(channel),
      kind_(kind),
      own_(own),
      waves_(channel.rank(), channel.ranks()),
      parent_(wave_parent(channel.rank())) {}

void TreeWaves::send(LinkHost& host, int to, Tag tag, std::vector<char> bytes) {
  if (!kind_.of_the_job) return channel_.send_closing(to, tag, std::move(bytes));
  channel_.post(to, tag, std::move(bytes));
  host.note_global(TraceEvent::wave, to, 0);
}

void TreeWaves::on_wave(LinkHost& host, const Message& m, bool forward) {
  const std::string name = kind_.name;
  if (m.bytes.size() != sizeof(std::uint64_t) || m.source != parent_)
    channel_.protocol_error("an unexpected " + name, m.source);
  const auto k = wire::to_value<std::uint64_t>(m.bytes);
  if (!waves_.wave_arrived(k)) channel_.protocol_error(name + " " + std::to_string(k) + " out of order", m.source);
  if (!forward) return;
  for (int c : waves_.children()) send(host, c, kind_.wave, wire::of_value(k));
}

void TreeWaves::on_report(const Message& m) {
  const std::string name = kind_.name;
  if (m.bytes.size() != sizeof(wire::Report) || wave_parent(m.source) != channel_.rank())
    channel_.protocol_error("an unexpected " + name + " report", m.source);
  const auto r = wire::to_value<wire::Report>(m.bytes);
  if (!waves_.report_arrived(r.wave, {r.sent, r.received}))
    channel_.protocol_error("a report of " + name + " " + std::to_string(r.wave) + " not open here", m.source);
}

bool TreeWaves::on_passive(LinkHost& host) {
  const FourCounterWaves::Action a = own_ ? waves_.on_passive(*own_) : waves_.on_passive();
  switch (a.kind) {
    case FourCounterWaves::Action::start:
      for (int c : waves_.children()) send(host, c, kind_.wave, wire::of_value(a.wave));
      return false;
    case FourCounterWaves::Action::report: send(host, parent_, kind_.report, wire::of_report(a.wave, a.sums)); return false;
    case FourCounterWaves::Action::conclude: return true;
    case FourCounterWaves::Action::none: return false;
  }
  return false;
}

}  // namespace uts::distrib
