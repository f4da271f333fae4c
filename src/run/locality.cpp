// --domains parsed and printed, and a domain map's member lists
// (locality.hpp).
#include "run/locality.hpp"

#include <cctype>

namespace uts {

std::optional<DomainSpec> parse_domains(const std::string& text) {
  if (text == "numa") return DomainSpec{DomainLevel::numa, 0};
  if (text == "l3") return DomainSpec{DomainLevel::l3, 0};
  if (text == "package") return DomainSpec{DomainLevel::package, 0};
  if (text.empty() || text.size() > 6) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  const int n = std::stoi(text);
  if (n < 1) return std::nullopt;
  return DomainSpec{DomainLevel::virtual_count, n};
}

std::string to_string(const DomainSpec& spec) {
  switch (spec.level) {
    case DomainLevel::numa: return "numa";
    case DomainLevel::l3: return "l3";
    case DomainLevel::package: return "package";
    case DomainLevel::virtual_count: break;
  }
  return std::to_string(spec.count);
}

void DomainMap::fill_members() {
  members.assign(static_cast<std::size_t>(count), {});
  for (std::size_t t = 0; t < of_thread.size(); ++t)
    members[static_cast<std::size_t>(of_thread[t])].push_back(static_cast<int>(t));
}

}  // namespace uts
