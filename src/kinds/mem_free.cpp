// src/kinds/mem_free.cpp — the mem_free node kind (Graph::add_mem_free): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"

namespace graphdsl {

MemFreeNode Graph::add_mem_free_node(std::uint64_t uid) {
  auto& g = impl();
  g.frees.push_back(g.alloc_node(uid));
  return MemFreeNode(g.push(NodeKind::mem_free, g.frees.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end patch ====
