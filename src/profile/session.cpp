// src/profile/session.cpp — graphdsl's CUPTI subscription and the clones it records (session.hpp),
// profiler_attach() and profiler_detach().
#include "profile/session.hpp"

#include <mutex>
#include <string>
#include <unordered_map>

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

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED || data == nullptr) return;
  const auto* graph =
      static_cast<const CUpti_GraphData*>(static_cast<const CUpti_ResourceData*>(data)->resourceDescriptor);
  if (graph == nullptr || graph->node == nullptr || graph->originalNode == nullptr) return;
  const CuptiApi& api = cupti_api();
  std::uint64_t clone = 0, original = 0;
  if (api.cuptiGetGraphNodeId(graph->node, &clone) != CUPTI_SUCCESS ||
      api.cuptiGetGraphNodeId(graph->originalNode, &original) != CUPTI_SUCCESS) {
    return;
  }
  try {
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.clones.emplace(original, clone);
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
  const CUptiResult rc = api.cuptiEnableCallback(1, s.handle, CUPTI_CB_DOMAIN_RESOURCE,
                                                 CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
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
