// src/kinds/event_node.hpp — what the two event node kinds (event_record, event_wait: one Event each,
// in GraphImpl::events) share, section by section: src/kinds/event_record.cpp and event_wait.cpp
// differ only in the CUDA calls they name, which they pass to these templates.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda.h>
#include <fmt/format.h>

#include "exec/patch.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/event_state.hpp"
#include "native/native.hpp"
#include "plan/diff.hpp"
#include "plan/kind_describe.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::kinds::event_node {

// ---- rules ------------------------------------------------------------------------------------

inline void check(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (!g.events[n.payload]) {
    rule::fail(g, i, ctx, "the Event is empty (default-constructed); make one with Event::create()");
  }
}

// ---- describe: the Event's creation flags (never its address: dumps of equal plans compare equal) --

inline std::string summary(const GraphImpl& g, std::uint32_t i, const NodeParams&) {
  const Event& ev = g.events[g.nodes[i].payload];
  if (!ev) return "empty Event";
  const unsigned int flags = ev.state()->flags;
  if (flags == cudaEventDefault) return "Event of flags cudaEventDefault";
  std::string names;
  for (const auto& [bit, name] : {std::pair<unsigned int, const char*>{cudaEventBlockingSync, "cudaEventBlockingSync"},
                                  {cudaEventDisableTiming, "cudaEventDisableTiming"},
                                  {cudaEventInterprocess, "cudaEventInterprocess"}}) {
    if ((flags & bit) != 0) names += (names.empty() ? "" : " | ") + std::string(name);
  }
  const unsigned int known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if ((flags & ~known) != 0) names += fmt::format("{}0x{:x}", names.empty() ? "" : " | ", flags & ~known);
  return "Event of flags " + names;
}

// ---- compare: the node's parameter is its Event ------------------------------------------------

/// One Event, or two borrowed Events of one cudaEvent_t (Event::borrow: each adoption of a native
/// graph borrows its events anew).
inline bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const EventState* x = a.events[pa].state().get();
  const EventState* y = b.events[pb].state().get();
  return x == y || (x != nullptr && y != nullptr && !x->owned && !y->owned && x->handle.load() == y->handle.load());
}

using Stored = StoredParams<&GraphImpl::events, &SavedParams::event>;

// ---- build: Add is cudaGraphAddEventRecordNode or cudaGraphAddEventWaitNode ------------------------

template <auto Add>
AddedNode add(const char* api, Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  const cudaEvent_t native = builder.node_event(g, i, out);
  if (out.rc != cudaSuccess) return out;
  out.api = api;
  out.rc = cuda_try(Add, &out.node, graph, deps.data(), deps.size(), native);
  return out;
}

// ---- patch: Set is cudaGraphExecEventRecordNodeSetEvent or cudaGraphExecEventWaitNodeSetEvent -------
// (the driver's entry point of the same name first: about half the runtime call's time, H200)

template <auto Set>
Applied apply(const char* api, const char* driver_symbol, ExecImpl& x, std::uint32_t i) {
  using Driver = CUresult (*)(CUgraphExec, CUgraphNode, CUevent);
  static const auto driver = reinterpret_cast<Driver>(driver_entry(driver_symbol, 11010));
  const GraphImpl& g = recorded_plan(x);
  const Event& ev = g.events[g.nodes[i].payload];
  cudaEvent_t e = nullptr;  // created here if the template brought a new Event
  if (const cudaError_t rc = native_event(ev, e); rc != cudaSuccess) {
    return {rc, "cudaEventCreateWithFlags"};
  }
  const Applied applied{driver_first(driver, Set, x.exec.get(), x.native.nodes[i], e), api};
  // The event must outlive the launches that use it, also after the executable is destroyed
  // (the recorded plan alone dies with the executable): the executable's user object keeps it.
  if (applied.rc == cudaSuccess && x.native.keep != nullptr) x.native.keep->add_given(ev.state());
  return applied;
}

}  // namespace graphdsl::detail::kinds::event_node
