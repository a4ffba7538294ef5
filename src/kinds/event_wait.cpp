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

namespace graphdsl::detail::kinds::event_wait {
const CompareOps compare{};
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

namespace graphdsl::detail::kinds::event_wait {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end patch ====
