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

namespace graphdsl::detail::kinds::event_wait {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::event_wait {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::event_wait {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::event_wait {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::event_wait {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::event_wait {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::event_wait

// ==== end patch ====
