// src/kinds/host.cpp — the host node kind (Graph::add_host): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/counters.hpp"

namespace graphdsl::detail {

HostClosure::HostClosure() noexcept { counters().host_closures.fetch_add(1); }
HostClosure::~HostClosure() { counters().host_closures.fetch_sub(1); }

}  // namespace graphdsl::detail

namespace graphdsl {

HostNode Graph::add_host_node(std::shared_ptr<detail::HostClosure> closure) {
  auto& g = impl();
  g.hosts.push_back(std::move(closure));
  return HostNode(g.push(NodeKind::host, g.hosts.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::host {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::host

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::host {
const RaceOps races{};
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
