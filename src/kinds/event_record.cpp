// src/kinds/event_record.cpp — the event_record node kind (Graph::add_event_record): what graphdsl does for one such
// node, concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp). What it shares
// with event_wait (everything but the CUDA calls) is in src/kinds/event_node.hpp.
#include "kinds/event_node.hpp"
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl {

EventRecordNode Graph::add_event_record(const Event& event) {
  auto& g = impl();
  Change change(*this);
  g.events.push_back(event);
  const EventRecordNode n(g.push(NodeKind::event_record, g.events.size() - 1));
  change.commit();
  return n;
}

Event Graph::event_of(const EventRecordNode& node) const {
  const auto& g = impl();
  return detail::event_of(g, detail::own_node(g, node, NodeKind::event_record, "event_of"));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const RuleOps rules{&event_node::check, "an event node runs where its event was created", false};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::event_record {
// No access the checker sees: an event node orders work, it touches no memory.
const RaceOps races{nullptr};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const CompareOps compare{/*same_params=*/event_node::same_params,
                         /*compare_shape=*/nullptr,
                         /*fingerprint=*/nullptr,
                         /*after_edges=*/false,
                         /*save=*/event_node::Stored::save,
                         /*restore=*/event_node::Stored::restore,
                         /*nested=*/false};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const DescribeOps describe{&event_node::summary, nullptr, "diamond", nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::event_record {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  return event_node::add<&cudaGraphAddEventRecordNode>("cudaGraphAddEventRecordNode", builder, g, i, graph, deps);
}

}  // namespace

const BuildOps build{&add, true};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::event_record {
namespace {

Applied apply(ExecImpl& x, std::uint32_t i) {
  return event_node::apply<&cudaGraphExecEventRecordNodeSetEvent>("cudaGraphExecEventRecordNodeSetEvent",
                                                                  "cuGraphExecEventRecordNodeSetEvent", x, i);
}

}  // namespace

const PatchOps patch{&apply, nullptr, nullptr};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end patch ====
