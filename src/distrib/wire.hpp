// How the agent's messages are laid out in bytes. All ranks run the same
// binary on the same kind of machine, so values travel in host order.
#pragma once

#include <cstring>
#include <type_traits>
#include <vector>

#include "distrib/safra.hpp"
#include "distrib/waves.hpp"
#include "tree/node.hpp"

namespace uts::distrib::wire {

static_assert(sizeof(Node) == 28 && std::is_trivially_copyable_v<Node>, "nodes travel as 28-byte records");

template <class T>
std::vector<char> of_value(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<char> b(sizeof(T));
  std::memcpy(b.data(), &value, sizeof(T));
  return b;
}
template <class T>
T to_value(const std::vector<char>& bytes) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value{};
  std::memcpy(&value, bytes.data(), bytes.size() < sizeof(T) ? bytes.size() : sizeof(T));
  return value;
}

inline std::vector<char> of_nodes(const std::vector<Node>& nodes) {
  std::vector<char> b(nodes.size() * sizeof(Node));
  if (!nodes.empty()) std::memcpy(b.data(), nodes.data(), b.size());
  return b;
}
// The node count of an answer; false when the bytes are not whole nodes.
inline bool node_count(const std::vector<char>& bytes, std::size_t& count) {
  count = bytes.size() / sizeof(Node);
  return count * sizeof(Node) == bytes.size();
}
inline void to_nodes(const std::vector<char>& bytes, std::vector<Node>& out) {
  out.resize(bytes.size() / sizeof(Node));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(Node));
}

// STOP: why a rank stopped (RunStatus), and the signal behind it (or 0).
struct StopNotice {
  int status = 0;
  int signal = 0;
};

inline std::vector<char> of_token(const Safra::Token& t) {
  const std::int64_t w[2] = {t.q, t.black ? 1 : 0};
  return of_value(w);
}
inline Safra::Token to_token(const std::vector<char>& bytes) {
  struct W {
    std::int64_t w[2];
  };
  const W w = to_value<W>(bytes);
  return Safra::Token{w.w[0], w.w[1] != 0};
}

// WAVE: the wave's number. REPORT: the wave's number and a subtree's sums.
struct Report {
  std::uint64_t wave = 0, sent = 0, received = 0;
};
inline std::vector<char> of_report(std::uint64_t wave, const FourCounterWaves::Sums& s) {
  return of_value(Report{wave, s.sent, s.received});
}

}  // namespace uts::distrib::wire
