// src/kinds/memcpy.cpp — the memcpy node kind (Graph::add_memcpy*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::memcpy {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end patch ====
