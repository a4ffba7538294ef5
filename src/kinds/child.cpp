// src/kinds/child.cpp — the child node kind (Graph::add_child): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"

namespace graphdsl {

ChildNode Graph::add_child(const Graph& child) {
  const auto& c = child.impl();
  if (!c.params.empty()) {
    throw UsageError(fmt::format("add_child: graph {} declares {} parameter{} (the first: {}); a child plan cannot hold "
                                 "parameters: Executable::set patches nodes of the top-level plan only (graphdsl's "
                                 "per-node setters do not reach the nodes of a child graph)",
                                 detail::quoted(c.name), c.params.size(), c.params.size() == 1 ? "" : "s",
                                 c.param_ref(0)));
  }
  auto copy = std::make_shared<const detail::GraphImpl>(c);  // before embed: `child` may be this plan
  auto& g = impl();
  g.embed({copy.get()}, true, "add_child");
  g.children.push_back(std::move(copy));
  return ChildNode(g.push(NodeKind::child, g.children.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::child {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::child

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::child {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::child

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::child {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::child

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::child {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::child

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::child {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::child

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::child {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::child

// ==== end patch ====
