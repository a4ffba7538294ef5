// src/kinds/memset.cpp — the memset node kind (Graph::add_memset*): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

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

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::memset {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_memset(const cudaMemsetParams& x, const cudaMemsetParams& y) {
  return x.dst == y.dst && x.pitch == y.pitch && x.value == y.value && x.elementSize == y.elementSize &&
         x.width == y.width && x.height == y.height;
}

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return same_memset(a.memsets[pa], b.memsets[pb]);
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) {
  s.memset = g.memsets[payload];
  s.memset_type = g.memset_types[payload];
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) {
  g.memsets[payload] = s.memset;
  g.memset_types[payload] = s.memset_type;
}

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, nullptr, nullptr,
                         false, compare_fns::save, compare_fns::restore, false};
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

#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::memset {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  const cudaMemsetParams p = detail::memset_params(x.plan.impl(), i, x.native.dptrs);
  return {cuda_try(cudaGraphExecMemsetNodeSetParams, x.exec.get(), x.native.nodes[i], &p),
          "cudaGraphExecMemsetNodeSetParams"};
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr};
}  // namespace graphdsl::detail::kinds::memset

// ==== end patch ====
