// src/kinds/host.cpp — the host node kind (Graph::add_host): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_host(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (g.hosts[n.payload]->empty) {
    fail(g, i, ctx, "the callable is empty (a null function pointer or an empty std::function)");
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::host {
const RuleOps rules{&rule::check_host, "a host node runs on the CPU", false};
}  // namespace graphdsl::detail::kinds::host

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// Unbounded unless its accesses are declared.
void host_accesses(const NodeContext& c) {
  if (c.decl.empty()) {
    c.level.unbounded.push_back(
        UnboundedAccess{c.level.info(c.i), "a host callback with no accesses() declaration: not checked"});
  }
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::host {
const RaceOps races{&race::host_accesses};
}  // namespace graphdsl::detail::kinds::host

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::host {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::host

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::host {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::host

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::host {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::host

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::host {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::host

// ==== end patch ====
