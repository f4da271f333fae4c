// The event trace as an OTF2 archive (trace_otf2.hpp), built in a
// temporary folder and renamed into place; a build without OTF2 keeps only
// the path checks.
#include "report/trace_otf2.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "uts_build_config.hpp"

#if UTS_HAVE_OTF2
#include <otf2/otf2.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>

#include "base/tick.hpp"
#include "run/trace.hpp"
#endif

namespace uts {

namespace {

// "run.otf2/" names the folder "run.otf2".
std::string without_trailing_slashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

}  // namespace

bool otf2_available() { return UTS_HAVE_OTF2 != 0; }

bool is_otf2_path(const std::string& path) {
  const std::string p = without_trailing_slashes(path);
  return p.size() >= 5 && p.compare(p.size() - 5, 5, ".otf2") == 0;
}

std::string otf2_target_problem(const std::string& path_in) {
  namespace fs = std::filesystem;
  const std::string path = without_trailing_slashes(path_in);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return "it exists and is not a folder (an OTF2 archive is a folder)";
    std::error_code ec;
    const bool empty = fs::is_empty(path, ec);
    if (ec) return "cannot read it: " + ec.message();
    if (!empty) return "the folder exists and is not empty (remove it or name another)";
  } else if (errno != ENOENT) {
    return std::strerror(errno);
  }
  const std::string dir = fs::path(path).parent_path().string();
  const std::string parent = dir.empty() ? std::string(".") : dir;
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    return "cannot create it in '" + parent + "': " + std::strerror(errno);
  return "";
}

#if !UTS_HAVE_OTF2

void write_trace_otf2(const RunReport&, const std::string& path) {
  throw Otf2Error("cannot write '" + path + "': this uts was built without OTF2 (rebuild with libotf2-trace-dev)");
}

#else

namespace {

// The first message OTF2 reported (instead of its own lines on stderr).
std::string g_otf2_message;

OTF2_ErrorCode on_otf2_error(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char* format,
                             va_list va) {
  if (g_otf2_message.empty()) {
    g_otf2_message = OTF2_Error_GetDescription(code);
    char buf[512] = {};
    if (format) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
      std::vsnprintf(buf, sizeof buf, format, va);
#pragma GCC diagnostic pop
    }
    if (buf[0]) g_otf2_message += std::string(": ") + buf;
  }
  return code;
}

struct ErrorCapture {
  OTF2_ErrorCallback previous;
  ErrorCapture() : previous(OTF2_Error_RegisterCallback(on_otf2_error, nullptr)) { g_otf2_message.clear(); }
  ~ErrorCapture() { OTF2_Error_RegisterCallback(previous, nullptr); }
  ErrorCapture(const ErrorCapture&) = delete;
  ErrorCapture& operator=(const ErrorCapture&) = delete;
};

void check(OTF2_ErrorCode code, const std::string& path, const char* what) {
  if (code == OTF2_SUCCESS) return;
  throw Otf2Error("cannot write the OTF2 archive '" + path + "' (" + what +
                  "): " + (g_otf2_message.empty() ? OTF2_Error_GetDescription(code) : g_otf2_message));
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
// No post-flush callback: no buffer-flush events in the trace (it is
// written after the run, so flushes cost the run nothing).
OTF2_FlushCallbacks g_flush = {pre_flush, nullptr};

// Regions. The states first, in Phase's order, then sleep, the steal
// attempt, and the point events (ENTER and LEAVE at one time).
enum Region : OTF2_RegionRef {
  r_work, r_search, r_claim, r_idle, r_termination, r_agent,  // = Phase
  r_sleep, r_steal, r_wake,
  r_global_request, r_global_answer, r_global_refusal, r_global_request_answered, r_token,  // = GlobalKind
  r_lifeline_request, r_lifeline_push_sent, r_lifeline_push_received, r_wave,
  r_global,  // a global event of an unknown kind
  kRegions
};
struct RegionText {
  const char* name;
  const char* description;
};
static_assert(r_wave - r_global_request == TraceEvent::wave, "the global regions follow GlobalKind's order");
const RegionText kRegionText[kRegions] = {
    {"work", "state: expanding nodes"},
    {"search", "state: probing victims until a claim succeeds (failed claims included)"},
    {"claim", "state: the successful steal call"},
    {"idle", "state: backing off (spin, yield)"},
    {"termination", "state: from the start of the thread's last search to its end"},
    {"agent", "state: MPI thread 0 answering other ranks, waiting for answers, passing tokens"},
    {"sleep", "state: asleep (idle, futex)"},
    {"steal", "one steal attempt (attributes: victim, outcome, nodes)"},
    {"wake", "woke a sleeping thread (point event; attribute target_thread, -1: any)"},
    {"global_request", "MPI: sent a steal request to peer_rank (point event)"},
    {"global_answer", "MPI: received nodes from peer_rank (point event)"},
    {"global_refusal", "MPI: peer_rank refused our request (point event)"},
    {"global_request_answered", "MPI: answered peer_rank's request with nodes (point event)"},
    {"token", "MPI: the termination token, with peer_rank (point event)"},
    {"lifeline_request", "MPI: sent a lifeline request to buddy peer_rank (point event)"},
    {"lifeline_push_sent", "MPI: pushed nodes to lifeline thief peer_rank (point event)"},
    {"lifeline_push_received", "MPI: received nodes pushed by buddy peer_rank (point event)"},
    {"wave", "MPI: a termination wave sent down to peer_rank or reported up to it (point event)"},
    {"global", "MPI: a global event (point event)"},
};

enum Attribute : OTF2_AttributeRef { a_victim, a_outcome, a_nodes, a_target_thread, a_peer_rank, kAttributes };

// The global definitions' strings, each defined once.
class Strings {
 public:
  OTF2_StringRef operator()(const std::string& s) {
    const auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<OTF2_StringRef>(order_.size());
    ids_.emplace(s, id);
    order_.push_back(s);
    return id;
  }
  const std::vector<std::string>& all() const { return order_; }

 private:
  std::map<std::string, OTF2_StringRef> ids_;
  std::vector<std::string> order_;
};

// One ENTER, LEAVE or point event of a location, before sorting. At equal
// times the order keeps regions nested: a steal's LEAVE, then the state's
// LEAVE, the next state's ENTER, a steal's ENTER, point events.
struct Item {
  enum Class : std::uint8_t { leave_inner, leave_state, enter_state, enter_inner, point };
  std::int64_t ns;
  Class cls;
  OTF2_RegionRef region;
  const TraceEvent* e;  // the steal, wake or global event (attributes); null for states
};

struct Interval {
  std::int64_t a, b;
  OTF2_RegionRef region;
};

// Nanoseconds since the rank's start, rounded as render_trace_json rounds.
struct NsClock {
  TickCalibration c;
  std::int64_t ns(std::uint64_t t) const {
    const double d = t >= c.start_tick ? double(t - c.start_tick) : -double(c.start_tick - t);
    return static_cast<std::int64_t>(std::nearbyint(d / c.ticks_per_second * 1e9));
  }
};

// A location's events, in time order and well nested: state intervals as
// in render_trace_json (from each state event to the next; the last one,
// with no end recorded in a truncated buffer, is left out), each steal
// attempt inside the state it began in (cut at that state's end), point
// events as ENTER and LEAVE at one time.
std::vector<Item> location_items(const std::vector<TraceEvent>& ev, const NsClock& clk) {
  std::vector<Interval> states;
  const TraceEvent* open = nullptr;
  for (const TraceEvent& e : ev) {
    if (e.kind != TraceEvent::state) continue;
    if (open && open->detail != 255) {
      const std::int64_t a = std::max(clk.ns(open->t0), states.empty() ? INT64_MIN : states.back().b);
      const std::int64_t b = clk.ns(e.t0);
      const OTF2_RegionRef region = open->detail == TraceEvent::kSleep ? r_sleep
                                    : open->detail < kPhases           ? OTF2_RegionRef{open->detail}
                                                                       : OTF2_RegionRef{kRegions};
      if (b > a && region != kRegions) states.push_back({a, b, region});
    }
    open = &e;
  }
  std::vector<Item> items;
  items.reserve(2 * states.size() + 2 * ev.size());
  for (const Interval& s : states) {
    items.push_back({s.a, Item::enter_state, s.region, nullptr});
    items.push_back({s.b, Item::leave_state, s.region, nullptr});
  }
  std::int64_t last_steal_end = INT64_MIN;
  for (const TraceEvent& e : ev) {
    switch (e.kind) {
      case TraceEvent::state: break;
      case TraceEvent::steal: {
        std::int64_t a = std::max(clk.ns(e.t0), last_steal_end), b = std::max(clk.ns(e.t1), a);
        // The state it began in: the last one starting at or before a.
        auto next = std::upper_bound(states.begin(), states.end(), a,
                                     [](std::int64_t t, const Interval& s) { return t < s.a; });
        if (next != states.begin() && a <= std::prev(next)->b) b = std::min(b, std::prev(next)->b);
        else if (next != states.end()) b = std::min(b, next->a);  // between states: not into the next
        last_steal_end = b;
        if (b > a) {
          items.push_back({a, Item::enter_inner, r_steal, &e});
          items.push_back({b, Item::leave_inner, r_steal, nullptr});
        } else {
          items.push_back({a, Item::enter_inner, r_steal, &e});
          items.back().cls = Item::point;
        }
        break;
      }
      case TraceEvent::wake: items.push_back({clk.ns(e.t0), Item::point, r_wake, &e}); break;
      case TraceEvent::global: {
        const OTF2_RegionRef region = e.detail <= TraceEvent::wave ? OTF2_RegionRef(r_global_request + e.detail)
                                                                    : OTF2_RegionRef{r_global};
        items.push_back({clk.ns(e.t0), Item::point, region, &e});
        break;
      }
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
    return x.ns != y.ns ? x.ns < y.ns : x.cls < y.cls;
  });
  return items;
}

// The folder the archive is built in, removed unless renamed into place.
struct TemporaryFolder {
  std::string path;
  bool kept = false;
  explicit TemporaryFolder(const std::string& target) {
    for (int k = 0;; ++k) {
      path = target;
      path += ".tmp";
      path += std::to_string(::getpid());
      if (k) path += '-' + std::to_string(k);
      if (::mkdir(path.c_str(), 0777) == 0) return;
      if (errno != EEXIST || k >= 100)
        throw Otf2Error("cannot write the OTF2 archive '" + target + "' (its temporary folder '" + path +
                        "': " + std::strerror(errno) + ")");
    }
  }
  ~TemporaryFolder() {
    if (kept) return;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
};

struct ArchiveHandle {
  OTF2_Archive* a = nullptr;
  ~ArchiveHandle() {
    if (a) OTF2_Archive_Close(a);
  }
};

}  // namespace

void write_trace_otf2(const RunReport& r, const std::string& path_in) {
  const std::string path = without_trailing_slashes(path_in);
  const RunResult& res = r.result;
  const int per_rank = r.engine.sequential ? 1 : r.engine.threads;
  const int ranks = r.engine.sequential ? 1 : r.engine.ranks.count;
  const std::size_t locations = res.traces.size();
  auto rank_of = [&](std::size_t i) { return static_cast<int>(i) / per_rank; };

  // Every location's events, and the span they cover.
  std::vector<std::vector<Item>> items(locations);
  std::int64_t first = 0, last = 0;
  bool any = false;
  std::uint64_t steals = 0, nodes_stolen = 0;
  for (std::size_t i = 0; i < locations; ++i) {
    const int pid = rank_of(i);
    const NsClock clk{res.clocks.empty() ? TickCalibration{}
                                         : res.clocks[std::min<std::size_t>(static_cast<std::size_t>(pid),
                                                                            res.clocks.size() - 1)]};
    items[i] = location_items(res.traces[i].events, clk);
    if (!items[i].empty()) {
      first = any ? std::min(first, items[i].front().ns) : items[i].front().ns;
      last = any ? std::max(last, items[i].back().ns) : items[i].back().ns;
      any = true;
    }
    for (const TraceEvent& e : res.traces[i].events)
      if (e.kind == TraceEvent::steal && e.detail == TraceEvent::success) {
        ++steals;
        nodes_stolen += e.count;
      }
  }
  // OTF2 timestamps are unsigned: an event before the run's start (none is
  // expected) shifts the origin, which the clock's global offset records.
  const std::uint64_t offset = first < 0 ? static_cast<std::uint64_t>(-first) : 0;
  auto stamp = [&](std::int64_t ns) { return static_cast<OTF2_TimeStamp>(ns) + offset; };

  TemporaryFolder tmp(path);
  ErrorCapture capture;
  ArchiveHandle archive;
  archive.a = OTF2_Archive_Open(tmp.path.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive.a) check(OTF2_ERROR_INVALID, path, "open");
  check(OTF2_Archive_SetFlushCallbacks(archive.a, &g_flush, nullptr), path, "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive.a), path, "collective callbacks");
  const std::string creator = "uts " + r.machine.uts_version + " (commit " + r.machine.commit + ")";
  check(OTF2_Archive_SetCreator(archive.a, creator.c_str()), path, "creator");
  const std::string protocol = r.engine.sequential ? "sequential" : r.engine.protocol;
  const std::string description = "UTS tree search: tree " + std::string(to_string(r.tree.type)) +
                                  (r.preset.empty() ? "" : " (preset " + r.preset + ")") + ", protocol " + protocol +
                                  ", " + std::to_string(ranks) + " rank(s) x " + std::to_string(per_rank) +
                                  " thread(s)";
  check(OTF2_Archive_SetDescription(archive.a, description.c_str()), path, "description");
  check(OTF2_Archive_SetMachineName(archive.a, r.machine.hostname.c_str()), path, "machine name");
  std::string recorded, dropped;
  for (std::size_t i = 0; i < locations; ++i) {
    recorded += (i ? "," : "") + std::to_string(res.traces[i].events.size());
    dropped += (i ? "," : "") + std::to_string(res.traces[i].dropped);
  }
  const std::pair<const char*, std::string> properties[] = {
      {"UTS::TREE", to_string(r.tree.type)},
      {"UTS::PRESET", r.preset},
      {"UTS::PROTOCOL", protocol},
      {"UTS::RANKS", std::to_string(ranks)},
      {"UTS::THREADS", std::to_string(per_rank)},
      {"UTS::EVENTS_PER_THREAD", std::to_string(r.engine.trace_events)},
      {"UTS::RECORDED", recorded},
      {"UTS::DROPPED", dropped},
      {"UTS::STEALS", std::to_string(steals)},
      {"UTS::NODES_STOLEN", std::to_string(nodes_stolen)},
      {"UTS::SIZE", std::to_string(res.counts.nodes)},
      {"UTS::CLOCK", tick::source()},
  };
  for (const auto& [name, value] : properties)
    if (!value.empty()) check(OTF2_Archive_SetProperty(archive.a, name, value.c_str(), true), path, "property");

  // Events, one location after the other.
  Strings str;
  OTF2_StringRef outcome_ref[3];
  for (std::uint8_t o = 0; o < 3; ++o) outcome_ref[o] = str(outcome_name(o));
  std::vector<std::uint64_t> counts(locations, 0);
  check(OTF2_Archive_OpenEvtFiles(archive.a), path, "event files");
  OTF2_AttributeList* attrs = OTF2_AttributeList_New();
  struct ListDeleter {
    OTF2_AttributeList* l;
    ~ListDeleter() { OTF2_AttributeList_Delete(l); }
  } attrs_owner{attrs};
  for (std::size_t i = 0; i < locations; ++i) {
    const int pid = rank_of(i);
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive.a, static_cast<OTF2_LocationRef>(i));
    if (!w) check(OTF2_ERROR_INVALID, path, "event writer");
    for (const Item& it : items[i]) {
      const bool enter = it.cls == Item::enter_state || it.cls == Item::enter_inner || it.cls == Item::point;
      OTF2_AttributeList* list = nullptr;
      if (enter && it.e) {
        const TraceEvent& e = *it.e;
        list = attrs;
        switch (e.kind) {
          case TraceEvent::steal:
            if (e.peer >= 0 && e.peer < per_rank)
              OTF2_AttributeList_AddLocationRef(attrs, a_victim,
                                                static_cast<OTF2_LocationRef>(pid * per_rank + e.peer));
            OTF2_AttributeList_AddStringRef(attrs, a_outcome, e.detail < 3 ? outcome_ref[e.detail] : str("?"));
            OTF2_AttributeList_AddUint32(attrs, a_nodes, e.count);
            break;
          case TraceEvent::wake: OTF2_AttributeList_AddInt32(attrs, a_target_thread, e.peer); break;
          case TraceEvent::global:
            OTF2_AttributeList_AddInt32(attrs, a_peer_rank, e.peer);
            OTF2_AttributeList_AddUint32(attrs, a_nodes, e.count);
            break;
          case TraceEvent::state: break;
        }
      }
      if (enter) {
        check(OTF2_EvtWriter_Enter(w, list, stamp(it.ns), it.region), path, "event");
        ++counts[i];
      }
      if (!enter || it.cls == Item::point) {
        check(OTF2_EvtWriter_Leave(w, nullptr, stamp(it.ns), it.region), path, "event");
        ++counts[i];
      }
    }
    check(OTF2_Archive_CloseEvtWriter(archive.a, w), path, "event writer");
  }
  check(OTF2_Archive_CloseEvtFiles(archive.a), path, "event files");

  // Definitions: none local (each location's file is there, empty), all global.
  check(OTF2_Archive_OpenDefFiles(archive.a), path, "definition files");
  for (std::size_t i = 0; i < locations; ++i) {
    OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive.a, static_cast<OTF2_LocationRef>(i));
    if (!d) check(OTF2_ERROR_INVALID, path, "definition writer");
    check(OTF2_Archive_CloseDefWriter(archive.a, d), path, "definition writer");
  }
  check(OTF2_Archive_CloseDefFiles(archive.a), path, "definition files");

  // The system tree: the machine, a node per host (in rank order), a
  // location group per rank, a location per thread.
  std::vector<std::string> hosts;
  std::vector<OTF2_SystemTreeNodeRef> node_of_rank(static_cast<std::size_t>(ranks));
  for (int k = 0; k < ranks; ++k) {
    std::string h;
    if (static_cast<std::size_t>(k) < res.rank_places.size())
      h.assign(res.rank_places[static_cast<std::size_t>(k)].host,
               strnlen(res.rank_places[static_cast<std::size_t>(k)].host, sizeof res.rank_places[0].host));
    if (h.empty()) h = r.machine.hostname.empty() ? "unknown host" : r.machine.hostname;
    auto at = std::find(hosts.begin(), hosts.end(), h);
    if (at == hosts.end()) at = hosts.insert(hosts.end(), h);
    node_of_rank[static_cast<std::size_t>(k)] = static_cast<OTF2_SystemTreeNodeRef>(1 + (at - hosts.begin()));
  }
  // Strings are defined before anything refers to them: gather them first.
  struct RegionDef {
    OTF2_StringRef name, description;
  };
  std::vector<RegionDef> regions;
  for (const RegionText& t : kRegionText) regions.push_back({str(t.name), str(t.description)});
  const OTF2_StringRef empty = str("");
  const std::pair<const char*, const char*> attribute_text[kAttributes] = {
      {"victim", "the thread a steal attempt probed"},
      {"outcome", "a steal attempt's outcome: success, empty or contended"},
      {"nodes", "nodes moved (a steal attempt: > 0 only on success; MPI: nodes in the message)"},
      {"target_thread", "the thread a wake-up was meant for (-1: any sleeper)"},
      {"peer_rank", "the other rank of an MPI event"},
  };
  std::vector<std::pair<OTF2_StringRef, OTF2_StringRef>> attribute_refs;
  for (const auto& [n, d] : attribute_text) attribute_refs.emplace_back(str(n), str(d));
  const OTF2_StringRef machine_name = str("machine"), machine_class = str("machine"), node_class = str("node");
  std::vector<OTF2_StringRef> host_refs;
  for (const std::string& h : hosts) host_refs.push_back(str(h));
  std::vector<OTF2_StringRef> rank_refs, thread_refs;
  for (int k = 0; k < ranks; ++k) rank_refs.push_back(str("rank " + std::to_string(k)));
  for (int t = 0; t < per_rank; ++t) thread_refs.push_back(str("thread " + std::to_string(t)));

  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive.a);
  if (!g) check(OTF2_ERROR_INVALID, path, "global definitions");
  const std::uint64_t end = any ? stamp(last) : offset;
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, offset, end - offset, OTF2_UNDEFINED_TIMESTAMP),
        path, "clock");
  for (std::size_t s = 0; s < str.all().size(); ++s)
    check(OTF2_GlobalDefWriter_WriteString(g, static_cast<OTF2_StringRef>(s), str.all()[s].c_str()), path,
          "string");
  for (OTF2_RegionRef k = 0; k < kRegions; ++k)
    check(OTF2_GlobalDefWriter_WriteRegion(g, k, regions[k].name, regions[k].name, regions[k].description,
                                           OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                           empty, 0, 0),
          path, "region");
  const OTF2_Type attribute_type[kAttributes] = {OTF2_TYPE_LOCATION, OTF2_TYPE_STRING, OTF2_TYPE_UINT32,
                                                 OTF2_TYPE_INT32, OTF2_TYPE_INT32};
  for (OTF2_AttributeRef k = 0; k < kAttributes; ++k)
    check(OTF2_GlobalDefWriter_WriteAttribute(g, k, attribute_refs[k].first, attribute_refs[k].second,
                                              attribute_type[k]),
          path, "attribute");
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine_name, machine_class, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        path, "system tree");
  for (std::size_t h = 0; h < hosts.size(); ++h)
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, static_cast<OTF2_SystemTreeNodeRef>(1 + h), host_refs[h],
                                                   node_class, 0),
          path, "system tree");
  for (int k = 0; k < ranks; ++k)
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(k),
                                                  rank_refs[static_cast<std::size_t>(k)],
                                                  OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                  node_of_rank[static_cast<std::size_t>(k)],
                                                  OTF2_UNDEFINED_LOCATION_GROUP),
          path, "location group");
  for (std::size_t i = 0; i < locations; ++i)
    check(OTF2_GlobalDefWriter_WriteLocation(g, static_cast<OTF2_LocationRef>(i),
                                             thread_refs[i % static_cast<std::size_t>(per_rank)],
                                             OTF2_LOCATION_TYPE_CPU_THREAD, counts[i],
                                             static_cast<OTF2_LocationGroupRef>(rank_of(i))),
          path, "location");
  check(OTF2_Archive_CloseGlobalDefWriter(archive.a, g), path, "global definitions");
  const OTF2_ErrorCode closed = OTF2_Archive_Close(archive.a);
  archive.a = nullptr;
  check(closed, path, "close");

  if (::rename(tmp.path.c_str(), path.c_str()) != 0)
    throw Otf2Error("cannot write the OTF2 archive '" + path + "' (renaming '" + tmp.path +
                    "' into place: " + std::strerror(errno) + ")");
  tmp.kept = true;
}

#endif

}  // namespace uts
