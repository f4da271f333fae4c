// The locality section of the command line: --domains, --remote-delay and
// --victim hier's local and remote steal amounts.
#include <cxxopts.hpp>

#include "cli/convert.hpp"
#include "cli/sections.hpp"
#include "cli/usage_error.hpp"
#include "steal/registry.hpp"

namespace uts::cli {

void fill_locality(const cxxopts::ParseResult& r, EngineSettings& e) {
  LocalitySettings& l = e.locality;
  if (r.count("domains")) {
    const std::string d = value_of<std::string>(r, "domains");
    if (auto v = parse_domains(d)) l.domains = *v;
    else throw UsageError("--domains: '" + d + "' is not numa, l3, package or a number of domains N >= 1");
    l.domains_given = true;
  }
  if (r.count("remote-delay"))
    l.remote_delay_ns = static_cast<std::uint64_t>(int_in_range(r, "remote-delay", 0, 10000000000LL));
  for (const char* key : {"steal-local", "steal-remote"}) {
    if (!r.count(key)) continue;
    const std::string text = value_of<std::string>(r, key);
    const auto v = parse_steal(text);
    if (!v) throw UsageError(std::string("--") + key + ": '" + text + "' is not half, one or chunk:K with K >= 1");
    (std::string(key) == "steal-local" ? l.steal_local : l.steal_remote) = *v;
  }
}

// Settings that depend on others (checked once, on the merged command line
// and files, since a file may set threads or victim later).
void check_locality(const cxxopts::ParseResult& command_line, const cxxopts::ParseResult& r, EngineSettings& e) {
  LocalitySettings& l = e.locality;
  const bool local_given = r.count("steal-local") > 0, remote_given = r.count("steal-remote") > 0;
  if (l.domains.level == DomainLevel::virtual_count && l.domains.count > e.threads && !e.sequential)
    throw UsageError("--domains " + std::to_string(l.domains.count) + ": more domains than threads (" +
                     std::to_string(e.threads) + ")");
  if ((local_given || remote_given) && e.victim != VictimOrder::hier)
    throw UsageError(std::string(local_given ? "--steal-local" : "--steal-remote") +
                     " applies only to --victim hier (victim here: " + to_string(e.victim) + ")");
  const ProtocolTraits& p = *find_protocol(e.protocol);
  if (p.fixed_amount()) {
    // One fixed amount: hier orders victims and limits remote rounds, but
    // local and remote steals take the protocol's own amount (--steal). An
    // explicit other amount would be replaced without a word: refused.
    for (const auto& [key, amount] : {std::pair{"steal-local", &l.steal_local}, {"steal-remote", &l.steal_remote}}) {
      if (!r.count(key)) continue;
      const std::string given = std::string("--") + key + " " + to_string(*amount);
      check_protocol_steal(p, *amount, given);
      if (!(*amount == e.steal) && command_line.count(key))
        throw UsageError(given + " does not apply to --protocol " + std::string(p.name) +
                         ": local and remote steals take its one amount, --steal " + to_string(e.steal));
    }
    l.steal_local = l.steal_remote = e.steal;
  }
}

}  // namespace uts::cli
