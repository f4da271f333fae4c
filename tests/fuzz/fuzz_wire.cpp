// Fuzz target: the bytes one rank receives from another (distrib/wire.hpp).
// Input: a tag byte (mod 16: the thirteen kinds and a few no rank sends), a
// byte for the most nodes an answer may carry (--rank-chunk), then the
// message's bytes. Every decoder must refuse what is not exactly a message
// of its kind, and what it accepts must encode back to the same bytes;
// well_formed, the agent's door, must agree with the kind's own decoder.
#include "distrib/transport.hpp"
#include "distrib/wire.hpp"
#include "fuzz_target.hpp"

namespace {
constexpr const char* kTarget = "wire";
namespace wire = uts::distrib::wire;
using uts::distrib::Tag;

template <class T>
bool same(const std::optional<T>& v, const std::vector<char>& bytes) {
  return !v || wire::of_value(*v) == bytes;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using uts::fuzz::check;
  if (size < 2) return 0;
  const int tag_number = data[0] % 16;
  const auto tag = static_cast<Tag>(tag_number);
  const std::size_t most = data[1];
  const std::vector<char> bytes(data + 2, data + size);
  const std::string what = "tag " + std::to_string(tag_number) + ", " + std::to_string(bytes.size()) + " bytes";

  // Each decoder alone: what it accepts has its kind's exact size, and
  // encodes back to the bytes received.
  const auto stop = wire::read_stop(bytes);
  check(same(stop, bytes), kTarget, "STOP does not round-trip: " + what);
  if (stop) check(stop->signal >= 0 && stop->signal <= 64 && stop->status >= 0 && stop->status <= 2, kTarget,
                  "STOP accepted a status or signal no rank sends: " + what);
  const auto word = wire::read_word(bytes);
  check(same(word, bytes), kTarget, "a word does not round-trip: " + what);
  const auto report = wire::read_report(bytes);
  check(same(report, bytes), kTarget, "REPORT does not round-trip: " + what);
  const auto token = wire::read_token(bytes);
  check(!token || wire::of_token(*token) == bytes, kTarget, "TOKEN does not round-trip: " + what);
  std::vector<uts::Node> nodes{uts::Node{}};
  const bool nodes_ok = wire::read_nodes(bytes, most, nodes);
  if (nodes_ok) {
    check(nodes.size() <= most && wire::of_nodes(nodes) == bytes, kTarget, "nodes do not round-trip: " + what);
  } else {
    check(nodes.size() == 1, kTarget, "refused nodes were written out: " + what);
    check(bytes.size() % sizeof(uts::Node) != 0 || bytes.size() / sizeof(uts::Node) > most, kTarget,
          "whole nodes within the chunk refused: " + what);
  }

  // The agent's door agrees with the kind's decoder; a tag no rank sends is
  // refused whatever its bytes.
  bool want = false;
  switch (tag_number) {
    case static_cast<int>(Tag::request):
    case static_cast<int>(Tag::lifeline):
    case static_cast<int>(Tag::done):
    case static_cast<int>(Tag::release): want = bytes.empty(); break;
    case static_cast<int>(Tag::answer):
    case static_cast<int>(Tag::push): want = nodes_ok; break;
    case static_cast<int>(Tag::token): want = token.has_value(); break;
    case static_cast<int>(Tag::stop): want = stop.has_value(); break;
    case static_cast<int>(Tag::count):
    case static_cast<int>(Tag::wave):
    case static_cast<int>(Tag::close_wave): want = word.has_value(); break;
    case static_cast<int>(Tag::report):
    case static_cast<int>(Tag::close_report): want = report.has_value(); break;
    default: want = false;
  }
  check(wire::well_formed(tag, bytes, most) == want, kTarget, "well_formed disagrees with the decoder: " + what);
  return 0;
}
