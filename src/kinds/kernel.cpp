// src/kinds/kernel.cpp — the kernel node kind (Graph::add_kernel): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <algorithm>

#include "graphdsl/graph.hpp"

namespace graphdsl {

detail::NodeRef Graph::add_kernel_node(const void* func, const Launch& launch, const detail::ArgLayout* layout,
                                       std::size_t args_offset, const detail::PlaceholderArg* placeholders,
                                       std::size_t count) {
  auto& g = impl();
  const auto first = static_cast<std::uint32_t>(g.placeholders.size());
  for (std::size_t k = 0; k < count; ++k) {
    const detail::PlaceholderArg& p = placeholders[k];
    detail::ConditionRef ref;
    if (p.kind == detail::PlaceholderKind::condition) {
      ref = g.resolve(Condition(p.uid));
    } else if (const std::uint32_t alloc = g.alloc_node(p.uid); alloc != detail::ConditionRef::unresolved) {
      ref = detail::ConditionRef{0, alloc};
    }
    g.placeholders.push_back(detail::KernelPlaceholder{p.offset, p.kind, ref, p.uid});
  }
  g.kernels.push_back(detail::KernelData{func, detail::LaunchShape{}, layout, std::uint64_t{args_offset}, first,
                                         static_cast<std::uint32_t>(count)});
  detail::store_launch(g, static_cast<std::uint32_t>(g.kernels.size() - 1), launch);
  return g.push(NodeKind::kernel, g.kernels.size() - 1);
}

namespace detail {

const KernelAttributes* attributes_of(const GraphImpl& g, std::uint32_t kernel) noexcept {
  if (g.kernel_attributes.empty()) return nullptr;
  const auto it = std::lower_bound(g.kernel_attributes.begin(), g.kernel_attributes.end(), kernel,
                                   [](const KernelAttributes& a, std::uint32_t k) { return a.kernel < k; });
  return it != g.kernel_attributes.end() && it->kernel == kernel ? &*it : nullptr;
}

Launch launch_of(const GraphImpl& g, std::uint32_t kernel) {
  const LaunchShape& s = g.kernels[kernel].launch;
  Launch l(s.grid, s.block, s.shared_bytes, s.priority);
  if (const KernelAttributes* a = attributes_of(g, kernel)) {
    l.cluster = a->cluster;
    l.cooperative = a->cooperative;
    l.sync_domain = a->sync_domain;
    l.l2 = a->l2;
  }
  return l;
}

void store_launch(GraphImpl& g, std::uint32_t kernel, const Launch& l) {
  g.kernels[kernel].launch = LaunchShape{l.grid, l.block, l.shared_bytes, l.priority};
  auto& all = g.kernel_attributes;
  const auto it = std::lower_bound(all.begin(), all.end(), kernel,
                                   [](const KernelAttributes& a, std::uint32_t k) { return a.kernel < k; });
  const bool present = it != all.end() && it->kernel == kernel;
  if (!l.has_attributes()) {
    if (present) all.erase(it);
    return;
  }
  const KernelAttributes a{kernel, l.cluster, l.cooperative, l.sync_domain, l.l2};
  if (present) {
    *it = a;
  } else {
    all.insert(it, a);
  }
}

}  // namespace detail

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end patch ====
