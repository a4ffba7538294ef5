// src/profile/session.cpp — graphdsl's CUPTI subscription and the clones it records (session.hpp),
// profiler_attach() and profiler_detach().
#include "profile/session.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "profile/cupti.hpp"

namespace graphdsl {
namespace detail {
// A named namespace (not an unnamed one): CI's unity build puts this file beside others whose
// detail:: functions share these names, and a qualified call would not look into an unnamed one.
namespace subscription {

/// The subscription and the clones recorded under it. Never destroyed: CUPTI may call back during
/// exit.
struct Session {
  std::mutex mutex;
  CUpti_SubscriberHandle handle = nullptr;
  int users = 0;          ///< Subscribed objects alive, plus one while attached
  bool attached = false;  ///< profiler_attach() holds a subscription
  std::unordered_multimap<std::uint64_t, std::uint64_t> clones;
};

Session& session() {
  static Session* s = new Session;
  return *s;
}

/// The driver calls that instantiate a graph: the clones each one makes are numbered (Numbering).
constexpr CUpti_CallbackId instantiate_calls[] = {CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
                                                  CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
                                                  CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
                                                  CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
                                                  CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz};

/// The instantiation under way on this thread, and the clones it made. Measured on an H100 (CUDA
/// 13.0, driver 580; GRAPHDSL_PROFILE_TRACE=1 prints what CUPTI reports): the clone callback gives
/// an executable's top-level nodes ids in its top-level graph (G:i), and their activity records
/// carry those; the nodes of conditional bodies and child graphs are cloned into graphs of their own
/// (H:j), but their records carry G:(number of top-level nodes + k), k counting those nested clones
/// in the order their callbacks came. The top-level graph is the one the instantiate call names.
struct Numbering {
  int depth = 0;                                                ///< 1 while an instantiate call is under way
  std::vector<std::pair<std::uint64_t, std::uint64_t>> clones;  ///< (original, clone), in callback order
  std::uint64_t root = 0;                                       ///< the instantiated graph's id
  bool root_known = false;
};
thread_local Numbering numbering;

/// At the end of an instantiation: the numbers the records carry for the nested nodes it cloned.
void number_nested(Session& s, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& clones) {
  if (clones.empty()) return;
  std::uint64_t root = clones.front().first >> 32;
  if (numbering.root_known) {
    root = numbering.root;
  } else {  // the graph was not known: the smallest id (a plan's graph is made before its nested ones)
    for (const auto& c : clones) root = std::min(root, c.first >> 32);
  }
  std::uint64_t top = 0;
  std::uint32_t top_count = 0;
  for (const auto& c : clones) {
    if (c.first >> 32 != root) continue;
    top = c.second >> 32 << 32;
    ++top_count;
  }
  std::uint32_t k = 0;
  for (const auto& c : clones) {
    if (c.first >> 32 != root) s.clones.emplace(c.first, top | (top_count + k++));
  }
  if (trace_requested()) {
    std::fprintf(stderr, "graphdsl profile: instantiated graph %llu: %u top-level and %u nested clones\n",
                 static_cast<unsigned long long>(root), top_count, k);
  }
}

void on_driver_call(CUpti_CallbackId id, const void* data) {
  bool instantiate = false;
  for (CUpti_CallbackId c : instantiate_calls) instantiate = instantiate || c == id;
  if (!instantiate) return;
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite == CUPTI_API_ENTER) {
    // Each instantiation starts afresh: an exit seen without its entry (the subscription made or
    // dropped between the two) must not leave this thread counting calls that are over.
    numbering.depth = 1;
    numbering.clones.clear();
    // Every instantiate call's parameters start (CUgraphExec* phGraphExec, CUgraph hGraph), the
    // graph it instantiates (cuGraphInstantiate*_params in CUPTI's generated_cuda_meta.h).
    struct Instantiate {
      CUgraphExec* exec;
      CUgraph graph;
    };
    const auto* p = static_cast<const Instantiate*>(call->functionParams);
    std::uint32_t id = 0;
    numbering.root_known = p != nullptr && p->graph != nullptr &&
                           cupti_api().cuptiGetGraphId(p->graph, &id) == CUPTI_SUCCESS;
    numbering.root = id;
    return;
  }
  if (numbering.depth == 0) return;
  numbering.depth = 0;
  try {
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    number_nested(s, numbering.clones);
  } catch (...) {  // out of memory: the nested nodes' records stay unattributed (and counted)
  }
  numbering.clones.clear();
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (data == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return on_driver_call(id, data);
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) return;
  const auto* graph =
      static_cast<const CUpti_GraphData*>(static_cast<const CUpti_ResourceData*>(data)->resourceDescriptor);
  if (graph == nullptr || graph->node == nullptr || graph->originalNode == nullptr) return;
  const CuptiApi& api = cupti_api();
  std::uint64_t clone = 0, original = 0;
  if (api.cuptiGetGraphNodeId(graph->node, &clone) != CUPTI_SUCCESS ||
      api.cuptiGetGraphNodeId(graph->originalNode, &original) != CUPTI_SUCCESS) {
    return;
  }
  if (trace_requested()) {  // what CUPTI reports, for maintainers
    std::uint32_t g = 0, og = 0;
    (void)api.cuptiGetGraphId(graph->graph, &g);
    (void)api.cuptiGetGraphId(graph->originalGraph, &og);
    std::fprintf(stderr, "graphdsl profile: clone %llu:%llu (graph %u) of %llu:%llu (graph %u) type %d\n",
                 static_cast<unsigned long long>(clone >> 32), static_cast<unsigned long long>(clone & 0xffffffffu), g,
                 static_cast<unsigned long long>(original >> 32),
                 static_cast<unsigned long long>(original & 0xffffffffu), og, static_cast<int>(graph->nodeType));
  }
  try {
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.clones.emplace(original, clone);
    if (numbering.depth > 0) numbering.clones.emplace_back(original, clone);
  } catch (...) {  // out of memory: this clone stays unknown, its records unattributed (and counted)
  }
}

/// Subscribes (s.mutex held): fails, naming the other tool where CUPTI says it, when another
/// profiler holds CUPTI; then asks for the clone callbacks.
void subscribe_session(Session& s) {
  const CuptiApi& api = cupti();
#ifdef CUpti_SubscriberParams_STRUCT_SIZE
  if (api.cuptiSubscribe_v2 != nullptr) {
    char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
    CUpti_SubscriberParams p{};
    p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    p.subscriberName = "graphdsl profile";
    p.oldSubscriberName = other;
    p.oldSubscriberSize = sizeof(other) - 1;
    const CUptiResult rc = api.cuptiSubscribe_v2(&s.handle, &on_callback, nullptr, &p);
    if (rc != CUPTI_SUCCESS) {
      throw_cupti(rc, "cuptiSubscribe_v2", other[0] != '\0' ? fmt::format("(held by '{}')", other) : "");
    }
  } else
#endif
  {
    GRAPHDSL_CUPTI(cuptiSubscribe, &s.handle, &on_callback, nullptr);
  }
  CUptiResult rc = api.cuptiEnableCallback(1, s.handle, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
  for (CUpti_CallbackId c : instantiate_calls) {
    if (rc == CUPTI_SUCCESS) rc = api.cuptiEnableCallback(1, s.handle, CUPTI_CB_DOMAIN_DRIVER_API, c);
  }
  if (rc != CUPTI_SUCCESS) {
    (void)api.cuptiUnsubscribe(s.handle);
    s.handle = nullptr;
    throw_cupti(rc, "cuptiEnableCallback");
  }
}

void release_session(Session& s) noexcept {
  if (--s.users == 0 && s.handle != nullptr) {
    (void)cupti_api().cuptiUnsubscribe(s.handle);
    s.handle = nullptr;
  }
}

}  // namespace subscription

using subscription::release_session;
using subscription::session;
using subscription::Session;
using subscription::subscribe_session;

Subscribed::Subscribed() {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.users == 0) subscribe_session(s);
  ++s.users;
  own_ = true;
}

Subscribed::~Subscribed() {
  if (!own_) return;
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  release_session(s);
}

std::vector<std::uint64_t> clones_of(std::uint64_t id) {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<std::uint64_t> out;
  std::vector<std::uint64_t> todo{id};
  while (!todo.empty()) {
    const std::uint64_t from = todo.back();
    todo.pop_back();
    const auto range = s.clones.equal_range(from);
    for (auto it = range.first; it != range.second; ++it) {
      out.push_back(it->second);
      if (it->second != from) todo.push_back(it->second);
    }
  }
  return out;
}

bool attached() noexcept {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.attached;
}

}  // namespace detail

void profiler_attach() {
  detail::subscription::Session& s = detail::subscription::session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.attached) return;
  if (s.users == 0) detail::subscription::subscribe_session(s);
  ++s.users;
  s.attached = true;
}

void profiler_detach() noexcept {
  detail::subscription::Session& s = detail::subscription::session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.attached) return;
  s.attached = false;
  detail::subscription::release_session(s);
}

}  // namespace graphdsl
