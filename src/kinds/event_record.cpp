// src/kinds/event_record.cpp — the event_record node kind (Graph::add_event_record): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"

namespace graphdsl {

EventRecordNode Graph::add_event_record(const Event& event) {
  auto& g = impl();
  g.events.push_back(event);
  return EventRecordNode(g.push(NodeKind::event_record, g.events.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::event_record {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::event_record

// ==== end patch ====
