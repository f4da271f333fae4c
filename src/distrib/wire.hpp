// How the agent's messages are laid out in bytes, and their checked decoding.
// All ranks run the same binary on the same kind of machine, so values travel
// in host order.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "distrib/safra.hpp"
#include "distrib/transport.hpp"
#include "distrib/waves.hpp"
#include "run/status.hpp"
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
// No check: for bytes well_formed (below) has passed, as the agent checks
// every message at its door, or that this process made itself.
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

// Decoding what another rank sent. The bytes come from another process, so
// nothing in them is trusted: each read_* returns nullopt (false) unless the
// bytes are exactly a message of that kind, in size and in every value a rank
// can send; the caller then treats the message as a protocol error. Nothing
// is allocated by a length the bytes state: an answer's node count is the
// received size divided by 28, checked against the most a rank sends (its
// --rank-chunk) before a node is copied.

// The exact value of a fixed-size message: nullopt unless `bytes` has
// exactly sizeof(T) bytes.
template <class T>
std::optional<T> read_exact(const std::vector<char>& bytes) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (bytes.size() != sizeof(T)) return std::nullopt;
  T value{};
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

// REQUEST, LIFELINE, DONE, RELEASE: no payload.
inline bool read_empty(const std::vector<char>& bytes) { return bytes.empty(); }

// STOP: a RunStatus the run can end with, and a signal number (0: none) of
// the kind a process can receive (1 to 64 on Linux).
inline std::optional<StopNotice> read_stop(const std::vector<char>& bytes) {
  const auto why = read_exact<StopNotice>(bytes);
  if (!why) return std::nullopt;
  const bool status_known = why->status == static_cast<int>(RunStatus::complete) ||
                            why->status == static_cast<int>(RunStatus::max_nodes) ||
                            why->status == static_cast<int>(RunStatus::interrupted);
  if (!status_known || why->signal < 0 || why->signal > 64) return std::nullopt;
  return why;
}

// COUNT (nodes so far) and WAVE, CLOSE_WAVE (the wave's number): one 64-bit word.
inline std::optional<std::uint64_t> read_word(const std::vector<char>& bytes) {
  return read_exact<std::uint64_t>(bytes);
}

// TOKEN: the token's count and colour, the colour 0 or 1 as of_token writes it.
inline std::optional<Safra::Token> read_token(const std::vector<char>& bytes) {
  struct W {
    std::int64_t w[2];
  };
  const auto w = read_exact<W>(bytes);
  if (!w || (w->w[1] != 0 && w->w[1] != 1)) return std::nullopt;
  return Safra::Token{w->w[0], w->w[1] != 0};
}

// REPORT, CLOSE_REPORT: the wave's number and the subtree's sums.
inline std::optional<Report> read_report(const std::vector<char>& bytes) { return read_exact<Report>(bytes); }

// ANSWER, PUSH: whole nodes, at most `max_nodes` of them (a rank gives at
// most its --rank-chunk), into `out`; false, `out` untouched, otherwise.
inline bool read_nodes(const std::vector<char>& bytes, std::size_t max_nodes, std::vector<Node>& out) {
  std::size_t n = 0;
  if (!node_count(bytes, n) || n > max_nodes) return false;
  to_nodes(bytes, out);
  return true;
}

// Whether `bytes` are a well-formed message of kind `tag` (answers and
// pushes of at most `max_nodes` nodes): the one statement of every kind's
// layout, as the agent's parts check it piece by piece.
inline bool well_formed(Tag tag, const std::vector<char>& bytes, std::size_t max_nodes) {
  std::size_t n = 0;
  switch (tag) {
    case Tag::request:
    case Tag::lifeline:
    case Tag::done:
    case Tag::release: return read_empty(bytes);
    case Tag::answer:
    case Tag::push: return node_count(bytes, n) && n <= max_nodes;
    case Tag::token: return read_token(bytes).has_value();
    case Tag::stop: return read_stop(bytes).has_value();
    case Tag::count:
    case Tag::wave:
    case Tag::close_wave: return read_word(bytes).has_value();
    case Tag::report:
    case Tag::close_report: return read_report(bytes).has_value();
  }
  return false;  // a tag no rank sends
}

}  // namespace uts::distrib::wire
