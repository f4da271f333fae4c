// Lookups over the registered protocols (registry.hpp): all of them, the
// default, one by name, and their names for messages.
#include "steal/registry.hpp"

#include <array>

namespace uts {

namespace {

template <class... P>
constexpr std::array<const ProtocolTraits*, sizeof...(P)> traits_of(ProtocolList<P...>) {
  return {&P::traits...};
}

constexpr auto kAll = traits_of(Protocols{});

}  // namespace

std::span<const ProtocolTraits* const> all_protocols() { return kAll; }

const ProtocolTraits& default_protocol() { return *kAll.front(); }

const ProtocolTraits* find_protocol(std::string_view name) {
  if (name.empty()) return &default_protocol();
  for (const ProtocolTraits* t : kAll)
    if (t->name == name) return t;
  return nullptr;
}

std::string protocol_names(std::string_view last_separator) {
  std::string out;
  for (std::size_t i = 0; i < kAll.size(); ++i) {
    if (i > 0) out += i + 1 == kAll.size() ? std::string(last_separator) : std::string(", ");
    out += kAll[i]->name;
  }
  return out;
}

}  // namespace uts
