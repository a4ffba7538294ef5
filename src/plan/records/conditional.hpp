// plan/records/conditional.hpp — the records of conditions and conditional nodes.
//
// Plain data with no CUDA call: the one place any layer reads these records (plan/records/stores.def
// lists the plan's stores of them).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graphdsl/condition.hpp"
#include "plan/records/plan.hpp"

namespace graphdsl::detail {

struct GraphImpl;

/// A condition declared by add_condition().
struct ConditionData {
  std::uint64_t uid;
  unsigned int default_value;
  bool assign_default;
};

/// A conditional node: its shape, its condition and its body plans.
struct ConditionalData {
  ConditionalType type;
  ConditionRef condition;
  std::vector<std::shared_ptr<const GraphImpl>> bodies;
};

/// What a plan copied out of another (Graph::body_plan, Graph::child_plan) refers to outside itself:
/// condition `index` of the plan `levels` steps out of the copy (1: the plan that held it), which was
/// the Condition `uid` where the copy was taken. Nested plans refer to enclosing conditions by
/// position; validate() checks these where the copy is embedded, so that it is not bound by position
/// to another plan's Condition (PlanStores::outer_bindings).
struct OuterBinding {
  std::uint32_t levels = 0;
  std::uint32_t index = 0;
  std::uint64_t uid = 0;
};

}  // namespace graphdsl::detail
