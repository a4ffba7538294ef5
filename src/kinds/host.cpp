// src/kinds/host.cpp — the host node kind (Graph::add_host): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

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

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::host {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return a.hosts[pa] == b.hosts[pb];
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) { s.host = g.hosts[payload]; }

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.hosts[payload] = s.host; }

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, nullptr, nullptr,
                         false, compare_fns::save, compare_fns::restore, false};
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

#include <atomic>

#include "exec/patch.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::host {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Swaps the callable in the node's slot: no CUDA call.
Applied apply(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& g = x.plan.impl();
  const std::uint32_t payload = g.nodes[i].payload;
  std::atomic_store(&x.native.host_slots[payload]->fn, g.hosts[payload]);
  return {};
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr};
}  // namespace graphdsl::detail::kinds::host

// ==== end patch ====
