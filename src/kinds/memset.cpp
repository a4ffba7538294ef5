// src/kinds/memset.cpp — the memset node kind (Graph::add_memset*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"
#include "plan/node_params.hpp"

namespace graphdsl {

MemsetNode Graph::add_memset_raw(void* dst, unsigned int value, unsigned int element_size, std::size_t width,
                                 std::size_t height, std::size_t pitch_bytes) {
  auto& g = impl();
  g.memsets.push_back(detail::memset_node_params(dst, value, element_size, width, height, pitch_bytes));
  g.memset_types.push_back(detail::ScalarType::raw);  // add_memset_2d records a typed value's type
  return MemsetNode(g.push(NodeKind::memset, g.memsets.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::memset {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::memset

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::memset {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::memset

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::memset {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::memset

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::memset {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::memset

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::memset {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::memset

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::memset {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::memset

// ==== end patch ====
