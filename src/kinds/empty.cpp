// src/kinds/empty.cpp — the empty node kind (Graph::add_empty): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"

namespace graphdsl {

EmptyNode Graph::add_empty() { return EmptyNode(impl().push(NodeKind::empty, 0)); }

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::empty {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::empty

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::empty {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::empty

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::empty {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::empty

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::empty {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::empty

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::empty {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::empty

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::empty {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::empty

// ==== end patch ====
