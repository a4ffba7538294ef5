// src/kinds/event_wait.cpp — the event_wait node kind (Graph::add_event_wait): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"

namespace graphdsl {

EventWaitNode Graph::add_event_wait(const Event& event) {
  auto& g = impl();
  g.events.push_back(event);
  return EventWaitNode(g.push(NodeKind::event_wait, g.events.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_event(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (!g.events[n.payload]) fail(g, i, ctx, "the Event is empty (default-constructed); make one with Event::create()");
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::event_wait {
const RuleOps rules{&rule::check_event, "an event node runs where its event was created", false};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::event_wait {
// No access the checker sees: an event node orders work, it touches no memory.
const RaceOps races{nullptr};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::event_wait {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return a.events[pa].state() == b.events[pb].state();
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) { s.event = g.events[payload]; }

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.events[payload] = s.event; }

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, nullptr, nullptr, false, compare_fns::save,
                         compare_fns::restore,     false};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::event_wait {
const DescribeOps describe{nullptr, nullptr, "diamond", nullptr, nullptr};  // no summary: the kind says it all
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <vector>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl::detail::kinds::event_wait {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  AddedNode out;
  const cudaEvent_t native = builder.node_event(g, i, out);
  if (out.rc != cudaSuccess) return out;
  out.api = "cudaGraphAddEventWaitNode";
  out.rc = cuda_try(cudaGraphAddEventWaitNode, &out.node, graph, deps.data(), deps.size(), native);
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, true};

}  // namespace graphdsl::detail::kinds::event_wait

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::event_wait {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& g = x.plan.impl();
  const Event& ev = g.events[g.nodes[i].payload];
  cudaEvent_t e = nullptr;  // created here if the template brought a new Event
  if (const cudaError_t rc = native_event(ev, e); rc != cudaSuccess) {
    return {rc, "cudaEventCreateWithFlags"};
  }
  const Applied applied{cuda_try(cudaGraphExecEventWaitNodeSetEvent, x.exec.get(), x.native.nodes[i], e),
                        "cudaGraphExecEventWaitNodeSetEvent"};
  // The event must outlive the launches that use it, also after the executable is destroyed
  // (the recorded plan alone dies with the executable): the executable's user object keeps it.
  if (applied.rc == cudaSuccess && x.native.keep != nullptr) x.native.keep->add_given(ev.state());
  return applied;
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end patch ====
