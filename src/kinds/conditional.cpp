// src/kinds/conditional.cpp — the conditional node kind (Graph::add_if / add_if_else / add_while / add_switch): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end patch ====
