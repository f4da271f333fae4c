// Every steal protocol uts can run, in one list: the command line, the
// report and the engine's dispatch all read it. A new protocol is a folder
// under steal/protocols/ and one entry (with its include) here; the first
// entry is the default.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "steal/protocol.hpp"
#include "steal/protocols/chaselev/chaselev_protocol.hpp"
#include "steal/protocols/locked/locked_protocol.hpp"
#include "steal/protocols/request/request_protocol.hpp"
#include "steal/protocols/split/split_protocol.hpp"

namespace uts {

template <StealProtocol... P>
struct ProtocolList {};

using Protocols = ProtocolList<SplitProtocol, LockedProtocol, RequestProtocol, ChaseLevProtocol>;

// The traits of every protocol, in the list's order.
std::span<const ProtocolTraits* const> all_protocols();
// By name; the default for an empty name; nullptr for an unknown one.
const ProtocolTraits* find_protocol(std::string_view name);
const ProtocolTraits& default_protocol();
// The names joined: "split, locked, request or chaselev" (for help and errors).
std::string protocol_names(std::string_view last_separator = " or ");

namespace detail {
template <class F, class First, class... Rest>
decltype(auto) dispatch(std::string_view name, F& f, ProtocolList<First, Rest...>) {
  if constexpr (sizeof...(Rest) == 0) {
    return f.template operator()<First>();  // with_protocol checked the name
  } else {
    if (First::traits.name == name) return f.template operator()<First>();
    return dispatch(name, f, ProtocolList<Rest...>{});
  }
}
}  // namespace detail

// Calls f.template operator()<P>() for the protocol named `name` (empty: the
// default) and returns what it returns; std::invalid_argument for a name
// that is not in the list.
template <class F>
decltype(auto) with_protocol(std::string_view name, F&& f) {
  const ProtocolTraits* traits = find_protocol(name);
  if (!traits) throw std::invalid_argument("unknown protocol '" + std::string(name) + "'");
  return detail::dispatch(traits->name, f, Protocols{});
}

}  // namespace uts
