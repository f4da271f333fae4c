// Closing: the closing waves and RELEASE (closing.hpp).
#include "distrib/closing.hpp"

#include "distrib/waves.hpp"

namespace uts::distrib {

Closing::Closing(Channel& channel) : channel_(channel), waves_(channel, TreeWaves::closing, &channel.counted()) {}

void Closing::on_message(LinkHost& host, const Message& m) {
  if (m.tag == Tag::close_wave) waves_.on_wave(host, m, true);
  else waves_.on_report(m);
}

void Closing::on_release(const Message& m, bool in_close) {
  if (m.source != wave_parent(channel_.rank()) || !in_close) channel_.protocol_error("an unexpected RELEASE", m.source);
}

void Closing::release_children() {
  for (int c : waves_.children()) channel_.send_closing(c, Tag::release, {});
}

}  // namespace uts::distrib
