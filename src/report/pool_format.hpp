// Text, JSON and CSV renderings of a --workload pool run.
#pragma once

#include <string>
#include <vector>

#include "report/machine.hpp"
#include "workload/pool_types.hpp"

namespace uts {

std::string render_pool_text(const PoolSettings& s, const PoolResult& r, int verbose, const MachineInfo& m,
                             const std::vector<std::string>& command_line);
std::string render_pool_json(const PoolSettings& s, const PoolResult& r, const MachineInfo& m,
                             const std::vector<std::string>& command_line);
std::string pool_csv_header();
std::string render_pool_csv_rows(const PoolSettings& s, const PoolResult& r, const MachineInfo& m,
                                 const std::vector<std::string>& command_line);  // one per trial
std::string render_pool_trace_csv(const PoolResult& r);  // trial,seconds,thread,size

}  // namespace uts
