// src/kinds/mem_alloc.cpp — the mem_alloc node kind (Graph::add_mem_alloc): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <atomic>

#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"

namespace graphdsl {

std::pair<MemAllocNode, std::uint64_t> Graph::add_mem_alloc_node(std::size_t bytes, const MemAllocOptions& options) {
  static std::atomic<std::uint64_t> next{1};
  auto& g = impl();
  const std::uint64_t uid = next.fetch_add(1, std::memory_order_relaxed);
  g.allocs.push_back(detail::AllocData{uid, bytes, options.device, options.peer_access,
                                       static_cast<std::uint32_t>(g.nodes.size())});
  const detail::NodeRef ref = g.push(NodeKind::mem_alloc, g.allocs.size() - 1);
  if (options.device >= 0) g.nodes[ref.index].device = detail::device_number(options.device, "MemAllocOptions::device");
  return {MemAllocNode(ref), uid};
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end patch ====
