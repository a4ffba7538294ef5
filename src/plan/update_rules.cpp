// src/plan/update_rules.cpp — the refusals of update() that follow from the plans alone: a change that
// only cudaGraphExecUpdate can apply, in a plan that cudaGraphExecUpdate cannot take. diff() and
// Executable::update (exec/update.cpp, check_strategy) share them, so that they cannot disagree. No
// CUDA call.
#include <fmt/format.h>

#include "plan/diff.hpp"
#include "plan/kind_compare.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail {

std::optional<UpdateResult> whole_graph_refusal(const GraphImpl& a) {
  if (const std::uint32_t d = first_device_updatable(a); d != ConditionRef::unresolved) {
    return refusal(UpdateStatus::not_supported, a.info(d),
                   fmt::format("graph {} holds device-updatable {}, and CUDA does not allow cudaGraphExecUpdate on "
                               "a graph with device-updatable nodes; only changes per-node setters "
                               "make (kernel arguments, grid, block, shared memory; memset and memcpy "
                               "parameters) can be applied to it: compile the new plan instead",
                               quoted(plan_name(a)), a.info(d).describe()));
  }
  if (allocates_graph_memory(a)) {
    return refusal(UpdateStatus::not_supported, std::nullopt,
                   "graph " + quoted(plan_name(a)) +
                       " allocates graph memory, and cudaGraphExecUpdate would leave "
                       "arguments pointing at the template's allocations; plans with graph allocations are "
                       "updated node by node (UpdatePolicy::per_node)");
  }
  return std::nullopt;
}

bool needs_exec_update(const GraphImpl& a, const GraphImpl& t, const std::vector<std::uint32_t>& changed,
                       bool conditions_changed) {
  if (conditions_changed) return true;
  for (std::uint32_t i : changed) {
    const auto needs = compare_ops(a.nodes[i].kind).needs_whole_update;
    if (needs != nullptr && needs(a, a.nodes[i].payload, t, t.nodes[i].payload)) return true;
  }
  return false;
}

}  // namespace graphdsl::detail
