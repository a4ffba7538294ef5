// src/plan/walk.hpp — the walk over nested plans (child plans and conditional bodies).
//
// Plans nest at most max_nesting_depth levels and hold at most max_embedded_nodes nodes counting
// embedded ones (GraphImpl::embed refuses more), so recursive walks have a bounded depth; copies of
// a plan share its nested plans, so a walk that needs every plan once (not every embedding) uses
// this one, which visits each distinct plan once, iteratively.
#pragma once

#include <memory>
#include <unordered_set>
#include <vector>

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// Whether plan `g` embeds a plan (a child plan, a conditional body; GraphImpl::depth): a walk over
/// the nested plans of a plan that embeds none is skipped in O(1).
inline bool embeds_plans(const GraphImpl& g) noexcept { return g.depth != 0; }

/// Calls f(slot) for each nested plan slot of plan `g` (const or not), a std::shared_ptr<const
/// GraphImpl>: the child plans, then the conditional bodies, in store order; f may replace the plan
/// when g is not const. The one place that knows which stores hold nested plans (nested_slots finds
/// one node's).
template <class G, class F>
void each_nested_slot(G& g, F&& f) {
  for (auto& c : g.children) f(c);
  for (auto& c : g.conditionals) {
    for (auto& b : c.bodies) f(b);
  }
}

/// Whether plan `g` stores a nested plan (each_nested_slot would call f), in O(1). Unlike
/// embeds_plans, it counts the plans of removed nodes, which the stores keep.
inline bool has_nested_slots(const GraphImpl& g) noexcept { return !g.children.empty() || !g.conditionals.empty(); }

/// Calls `visit(plan)` for `root` and for each distinct plan nested in it, at any depth, until
/// `visit` returns true; returns whether one did. Allocates nothing for a plan that embeds none.
template <class F>
bool any_nested_plan(const GraphImpl& root, F&& visit) {
  if (!has_nested_slots(root)) return visit(root);  // no nested plan: none of the walk's allocations
  std::vector<const GraphImpl*> stack{&root};
  std::unordered_set<const GraphImpl*> seen{&root};
  while (!stack.empty()) {
    const GraphImpl& g = *stack.back();
    stack.pop_back();
    if (visit(g)) return true;
    each_nested_slot(g, [&](const std::shared_ptr<const GraphImpl>& p) {
      if (seen.insert(p.get()).second) stack.push_back(p.get());
    });
  }
  return false;
}

}  // namespace graphdsl::detail
