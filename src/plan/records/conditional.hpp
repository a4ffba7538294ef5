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

}  // namespace graphdsl::detail
