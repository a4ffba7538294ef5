// src/kinds/empty.cpp — the mem_op node kind (Graph::add_mem_ops): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"

namespace graphdsl {

namespace detail::kinds::mem_op {
/// The most operations one node runs (cuStreamBatchMemOp: "must be less than 256").
constexpr std::size_t max_ops = 255;
}  // namespace detail::kinds::mem_op

/// The record of a mem_op node: its operation count (a std::uint32_t), then the MemOps.
MemOpNode Graph::add_mem_ops(const std::vector<MemOp>& ops) {
  if (ops.empty() || ops.size() > detail::kinds::mem_op::max_ops) {
    throw UsageError(fmt::format("add_mem_ops: {} operations; a memory-operations node runs 1 to {}", ops.size(),
                                 detail::kinds::mem_op::max_ops));
  }
  detail::GraphImpl& g = impl();
  const std::size_t before = g.records.size();
  try {
    const auto count = static_cast<std::uint32_t>(ops.size());
    const std::uint32_t at = detail::put_records(g, &count, 1);
    detail::put_records(g, ops.data(), ops.size());
    return MemOpNode(g.push(NodeKind::mem_op, at));
  } catch (...) {
    g.records.resize(before);  // a refused call changes nothing
    throw;
  }
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::mem_op {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::mem_op {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::mem_op {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::mem_op {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::mem_op {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::mem_op {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::mem_op

// ==== end patch ====
