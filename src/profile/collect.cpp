// src/profile/collect.cpp — profile(): CUPTI activity records of some launches, attributed to plan
// nodes. Everything lives in this call: Executable::launch is unchanged, and CUPTI is subscribed,
// enabled, disabled and unsubscribed here.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "exec/exec_access.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/profile.hpp"
#include "native/cuda_call.hpp"
#include "profile/cupti.hpp"
#include "profile/node_map.hpp"
#include "profile/session.hpp"

namespace graphdsl {
namespace detail {
// A named namespace (not an unnamed one): CI's unity build puts this file beside others whose
// detail:: functions may share these names, and a qualified call would not look into an unnamed one.
namespace collecting {

/// Where CUPTI's buffer callbacks (which take no user data, and may run on CUPTI's thread) leave
/// the records of the profile() call in progress. One per process, as CUPTI's callbacks are.
struct Collector {
  std::mutex mutex;
  std::vector<ProfileRecord> records;
};

Collector& collector() {
  static Collector* c = new Collector;  // never destroyed: CUPTI may call back during exit
  return *c;
}

/// One profile() at a time: CUPTI's activity state is per process.
std::mutex& session_mutex() {
  static std::mutex m;
  return m;
}

constexpr std::size_t buffer_bytes = std::size_t{8} << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes));
  *size = *buffer == nullptr ? 0 : buffer_bytes;
  *max_records = 0;
}

const char* copy_direction(std::uint8_t kind) noexcept {
  // CUpti_ActivityMemcpyKind: UNKNOWN, HTOD, DTOH, HTOA, ATOH, ATOA, ATOD, DTOA, DTOD, HTOH, PTOP.
  constexpr const char* names[] = {"copy", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                   "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "copy";
}

/// The ProfileRecord of a kernel, memcpy or memset record (the newest record versions of the
/// CUPTI headers graphdsl is built with); false for other kinds.
bool to_record(const CUpti_Activity* a, ProfileRecord& r) {
  if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
    r = ProfileRecord{ProfileWork::kernel,
                      k->name != nullptr ? k->name : "kernel",
                      k->start,
                      k->end,
                      k->deviceId,
                      k->streamId,
                      k->correlationId,
                      k->graphNodeId,
                      -1};
    return true;
  }
  if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
    r = ProfileRecord{ProfileWork::memcpy,
                      copy_direction(c->copyKind),
                      c->start,
                      c->end,
                      c->deviceId,
                      c->streamId,
                      c->correlationId,
                      c->graphNodeId,
                      -1};
    return true;
  }
  if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const auto* s = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
    r = ProfileRecord{ProfileWork::memset, "memset",         s->start,       s->end, s->deviceId,
                      s->streamId,         s->correlationId, s->graphNodeId, -1};
    return true;
  }
  return false;
}

/// GRAPHDSL_PROFILE_TRACE: what CUPTI reports of each record, for maintainers.
void trace_record(const CUpti_Activity* a) {
  std::uint32_t graph = 0;
  std::uint64_t node = 0, start = 0;
  const char* what = "";
  if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
    graph = k->graphId, node = k->graphNodeId, start = k->start, what = k->name;
  } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
    graph = c->graphId, node = c->graphNodeId, start = c->start, what = "memcpy";
  } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const auto* s = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
    graph = s->graphId, node = s->graphNodeId, start = s->start, what = "memset";
  }
  std::fprintf(stderr, "graphdsl profile: record graph %u node %llu:%llu start %llu %s\n", graph,
               static_cast<unsigned long long>(node >> 32), static_cast<unsigned long long>(node & 0xffffffffu),
               static_cast<unsigned long long>(start), what == nullptr ? "?" : what);
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  try {
    const CuptiApi& api = cupti_api();
    Collector& c = collector();
    std::lock_guard<std::mutex> lock(c.mutex);
    CUpti_Activity* a = nullptr;
    const bool trace = trace_requested();
    while (api.cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
      if (trace) trace_record(a);
      ProfileRecord r;
      if (to_record(a, r)) c.records.push_back(std::move(r));
    }
  } catch (...) {  // out of memory: the records of this buffer are lost, and counted as missing by the caller
  }
  std::free(buffer);
}

/// Kernel, memcpy and memset activity enabled for the lifetime of the object; the destructor
/// disables it and flushes what CUPTI still holds.
class Activity {
 public:
  Activity() {
    static const bool registered = [] {
      GRAPHDSL_CUPTI(cuptiActivityRegisterCallbacks, &buffer_requested, &buffer_completed);
      return true;
    }();
    (void)registered;
    for (CUpti_ActivityKind k : kinds) {
      GRAPHDSL_CUPTI(cuptiActivityEnable, k);
      ++enabled_;
    }
  }
  ~Activity() {
    const CuptiApi& api = cupti_api();
    for (int k = 0; k < enabled_; ++k) (void)api.cuptiActivityDisable(kinds[k]);
    (void)api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  Activity(const Activity&) = delete;
  Activity& operator=(const Activity&) = delete;

 private:
  static constexpr CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                                 CUPTI_ACTIVITY_KIND_MEMSET};
  int enabled_ = 0;
};

/// Owns the 2 * n events around n launches.
struct Events {
  explicit Events(int n) : e(2 * static_cast<std::size_t>(n), nullptr) {
    for (cudaEvent_t& x : e) GRAPHDSL_CHECK(cudaEventCreate, &x);
  }
  ~Events() {
    for (cudaEvent_t x : e) {
      if (x != nullptr) (void)cuda_try(cudaEventDestroy, x);
    }
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  std::vector<cudaEvent_t> e;
};

/// The launches, each between two events; returns each one's device time.
std::vector<std::uint64_t> traced_launches(Executable& exec, cudaStream_t stream, int launches) {
  Events ev(launches);
  {
    Activity on;
    for (int k = 0; k < launches; ++k) {
      GRAPHDSL_CHECK(cudaEventRecord, ev.e[2 * k], stream);
      exec.launch(stream);
      GRAPHDSL_CHECK(cudaEventRecord, ev.e[2 * k + 1], stream);
    }
    exec.synchronize(stream);
    GRAPHDSL_CUPTI(cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  std::vector<std::uint64_t> ns;
  for (int k = 0; k < launches; ++k) {
    float ms = 0;
    GRAPHDSL_CHECK(cudaEventElapsedTime, &ms, ev.e[2 * k], ev.e[2 * k + 1]);
    ns.push_back(static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6 + 0.5));
  }
  return ns;
}

/// Adds to `map` the ids of the clones CUPTI reported of each mapped node (the executable's own
/// nodes, when it was compiled while graphdsl was subscribed: profiler_attach()).
void add_clones(NodeMap& map) {
  std::vector<std::pair<std::uint64_t, std::int32_t>> known(map.by_id.begin(), map.by_id.end());
  for (const auto& [id, e] : known) {
    for (std::uint64_t clone : clones_of(id)) {
      if (map.by_id.emplace(clone, e).second) map.nodes[static_cast<std::size_t>(e)].node_ids.push_back(clone);
    }
  }
}

/// Attributes each record to its node by graph node id; counts the rest.
void attribute(Profile& p, const NodeMap& map) {
  std::uint64_t other = 0;
  std::vector<ProfileRecord> kept;
  for (ProfileRecord& r : p.records) {
    if (r.graph_node_id == 0) {  // not graph work: another thread's, not this executable's
      ++other;
      continue;
    }
    const auto it = map.by_id.find(r.graph_node_id);
    if (it == map.by_id.end()) {
      ++p.unattributed;
    } else {
      r.node = it->second;
      ProfileNode& n = p.nodes[static_cast<std::size_t>(r.node)];
      const std::uint64_t d = r.end_ns > r.start_ns ? r.end_ns - r.start_ns : 0;
      n.min_ns = n.count == 0 ? d : std::min(n.min_ns, d);
      n.max_ns = std::max(n.max_ns, d);
      n.total_ns += d;
      ++n.count;
    }
    kept.push_back(std::move(r));
  }
  p.records = std::move(kept);
  if (p.unattributed != 0) {
    p.notes.push_back(fmt::format(
        "{} record(s) carry graph node ids of no node of this executable{}", p.unattributed,
        attached() ? ""
                   : " (records may name the executable's own clones of the nodes: call graphdsl::profiler_attach() "
                     "before instantiate(), docs/profiling.md)"));
  }
  if (other != 0) p.notes.push_back(fmt::format("{} record(s) of work outside graphs left out", other));
}

}  // namespace collecting
}  // namespace detail

Profile profile(Executable& exec, cudaStream_t stream, int launches) {
  const detail::ExecImpl& x = detail::ExecAccess::of(exec);
  if (launches < 1) throw UsageError(fmt::format("profile: launches must be at least 1 (got {})", launches));
  std::lock_guard<std::mutex> session(detail::collecting::session_mutex());
  detail::Subscribed subscribed;
  detail::NodeMap map = detail::map_nodes(x);
  detail::collecting::add_clones(map);
  GRAPHDSL_CHECK(cudaStreamSynchronize, stream);
  {
    std::lock_guard<std::mutex> lock(detail::collecting::collector().mutex);
    detail::collecting::collector().records.clear();
  }
  Profile p;
  p.graph = exec.plan().name();
  p.launches = static_cast<std::uint32_t>(launches);
  p.launch_ns = detail::collecting::traced_launches(exec, stream, launches);
  {
    std::lock_guard<std::mutex> lock(detail::collecting::collector().mutex);
    p.records = std::move(detail::collecting::collector().records);
    detail::collecting::collector().records.clear();
  }
  std::sort(p.records.begin(), p.records.end(),
            [](const ProfileRecord& a, const ProfileRecord& b) { return a.start_ns < b.start_ns; });
  p.nodes = std::move(map.nodes);
  p.notes = std::move(map.notes);
  detail::collecting::attribute(p, map);
  return p;
}

Profile profile_nodes(const Executable& exec) {
  const detail::ExecImpl& x = detail::ExecAccess::of(exec);
  (void)detail::cupti();
  detail::NodeMap map = detail::map_nodes(x);
  detail::collecting::add_clones(map);
  Profile p;
  p.graph = exec.plan().name();
  p.nodes = std::move(map.nodes);
  p.notes = std::move(map.notes);
  return p;
}

bool profiler_available() noexcept { return detail::cupti_api().error.empty(); }

}  // namespace graphdsl
