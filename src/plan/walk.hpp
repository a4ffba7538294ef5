// src/plan/walk.hpp — the walk over nested plans (child plans and conditional bodies).
//
// Plans nest at most max_nesting_depth levels and hold at most max_embedded_nodes nodes counting
// embedded ones (GraphImpl::embed refuses more), so recursive walks have a bounded depth; copies of
// a plan share its nested plans, so a walk that needs every plan once (not every embedding) uses
// this one, which visits each distinct plan once, iteratively.
#pragma once

#include <unordered_set>
#include <vector>

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// Calls `visit(plan)` for `root` and for each distinct plan nested in it, at any depth, until
/// `visit` returns true; returns whether one did.
template <class F>
bool any_nested_plan(const GraphImpl& root, F&& visit) {
  std::vector<const GraphImpl*> stack{&root};
  std::unordered_set<const GraphImpl*> seen{&root};
  while (!stack.empty()) {
    const GraphImpl& g = *stack.back();
    stack.pop_back();
    if (visit(g)) return true;
    auto push = [&](const GraphImpl* p) {
      if (seen.insert(p).second) stack.push_back(p);
    };
    for (const auto& c : g.children) push(c.get());
    for (const auto& c : g.conditionals) {
      for (const auto& b : c.bodies) push(b.get());
    }
  }
  return false;
}

}  // namespace graphdsl::detail
