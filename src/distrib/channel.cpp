// The rank agent's door to the Transport (channel.hpp).
#include "distrib/channel.hpp"

#include <cstdio>
#include <cstdlib>

#include "base/printable.hpp"

namespace uts::distrib {

Channel::Channel(std::unique_ptr<Transport> transport)
    : net_(std::move(transport)), rank_(net_->rank()), ranks_(net_->ranks()) {}

void Channel::post(int to, Tag tag, std::vector<char> bytes) {
  ++counted_.sent;
  net_->send(to, tag, std::move(bytes));
}

void Channel::send_closing(int to, Tag tag, std::vector<char> bytes) { net_->send(to, tag, std::move(bytes)); }

std::optional<Message> Channel::receive() {
  std::optional<Message> m = net_->receive();
  if (m && !closing_tag(m->tag)) ++counted_.received;
  return m;
}

void Channel::protocol_error(const std::string& what, int from) {
  fail(what + " from rank " + std::to_string(from) + " (a bug)");
}

void Channel::fail(const std::string& line) {
  std::fprintf(stderr, "uts: rank %d: %s\n", rank_, printable_line(line).c_str());
  net_->abort(3);
  std::_Exit(3);  // abort() does not return; said again for the compiler
}

}  // namespace uts::distrib
