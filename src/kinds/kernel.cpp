// src/kinds/kernel.cpp — the kernel node kind (Graph::add_kernel): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

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

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::kernel {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Same function and the same Condition or GraphBuffer arguments (the launch and argument bytes
/// are parameters: same_kernel).
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const KernelData& kx = a.kernels[a.nodes[i].payload];
  const KernelData& ky = b.kernels[b.nodes[i].payload];
  if (kx.func != ky.func) {
    return refusal(UpdateStatus::function_changed, b.info(i),
                   fmt::format("{}{} launches a different kernel function in the template", ctx, b.info(i).describe()));
  }
  bool same_conditions = kx.ph_count == ky.ph_count;
  for (std::uint32_t c = 0; same_conditions && c < kx.ph_count; ++c) {
    const KernelPlaceholder& cx = a.placeholders[kx.ph_first + c];
    const KernelPlaceholder& cy = b.placeholders[ky.ph_first + c];
    same_conditions = cx.offset == cy.offset && cx.kind == cy.kind && same_ref(cx.ref, cy.ref);
  }
  if (!same_conditions) {
    return refusal(UpdateStatus::topology_changed, b.info(i),
                   fmt::format("{}{} takes other Condition or GraphBuffer arguments in the template", ctx,
                               b.info(i).describe()));
  }
  return std::nullopt;
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) {
  s.kernel = g.kernels[payload];
  s.launch = launch_of(g, payload);
  s.args.assign(g.args.begin() + s.kernel.args, g.args.begin() + s.kernel.args + s.kernel.layout->total);
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) {
  KernelData& k = g.kernels[payload];
  const KernelData mine = k;  // where this plan keeps the arguments and Condition references
  k = s.kernel;
  k.args = mine.args;
  k.ph_first = mine.ph_first;
  k.ph_count = mine.ph_count;
  store_launch(g, payload, s.launch);
  const std::size_t offset = k.args;
  std::copy(s.args.begin(), s.args.end(), g.args.begin() + offset);
}

/// The function and the Condition or GraphBuffer arguments.
void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t payload, FingerprintMemo& /*memo*/) {
  const auto& k = g.kernels[payload];
  f.add(k.func);
  for (std::uint32_t c = 0; c < k.ph_count; ++c) {
    const auto& kc = g.placeholders[k.ph_first + c];
    f.add(kc.offset);
    f.add(kc.kind);
    f.add(kc.ref.levels);
    f.add(kc.ref.index);
  }
}

}  // namespace compare_fns

const CompareOps compare{detail::same_kernel, compare_fns::compare_shape, compare_fns::fingerprint,
                         false, compare_fns::save, compare_fns::restore, false};
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

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "exec/patch.hpp"
#include "native/native.hpp"
#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::kernel {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& g = x.plan.impl();
  std::vector<void*> argv;
  std::vector<unsigned char> block;
  const cudaKernelNodeParams p = detail::kernel_params(g, g.kernels[g.nodes[i].payload], HandleScopes{x.native.handles},
                                                       x.native.dptrs, block, argv);
  return {exec_kernel_set_params(x, x.native.nodes[i], p), "cudaGraphExecKernelNodeSetParams"};
}

/// A kernel's priority and launch attributes are not patched per node; its cluster shape and
/// cooperative launch not at all.
std::optional<UpdateResult> update_needs(const GraphImpl& a, const GraphImpl& t, std::uint32_t i, UpdateNeeds& needs) {
  const Launch la = launch_of(a, a.nodes[i].payload);
  const Launch lt = launch_of(t, t.nodes[i].payload);
  // cudaGraphExecUpdate accepts a new cluster shape, but the node then faults when launched
  // (cudaErrorLaunchFailure, H200, driver 580): refused, as a change of cooperative launch.
  if (!same_dims(la.cluster, lt.cluster) || la.cooperative != lt.cooperative) {
    return refusal(UpdateStatus::attributes_changed, a.info(i),
                   fmt::format("{}: its cluster or cooperative launch changed ({} to {}), which CUDA "
                               "cannot patch in an executable; compile the new plan instead",
                               a.info(i).describe(), launch_attributes_text(la), launch_attributes_text(lt)));
  }
  needs.priority_changed |= !same_attributes(la, lt);
  return std::nullopt;
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, patch_fns::update_needs};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end patch ====
