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

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_pos(const cudaPos& x, const cudaPos& y) { return x.x == y.x && x.y == y.y && x.z == y.z; }
bool same_ptr(const cudaPitchedPtr& x, const cudaPitchedPtr& y) {
  return x.ptr == y.ptr && x.pitch == y.pitch && x.xsize == y.xsize && x.ysize == y.ysize;
}

bool same_memcpy(const cudaMemcpy3DParms& x, const cudaMemcpy3DParms& y) {
  return x.srcArray == y.srcArray && same_pos(x.srcPos, y.srcPos) && same_ptr(x.srcPtr, y.srcPtr) &&
         x.dstArray == y.dstArray && same_pos(x.dstPos, y.dstPos) && same_ptr(x.dstPtr, y.dstPtr) &&
         x.extent.width == y.extent.width && x.extent.height == y.extent.height && x.extent.depth == y.extent.depth &&
         x.kind == y.kind;
}

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return same_memcpy(a.memcpys[pa], b.memcpys[pb]);
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) { s.memcpy = g.memcpys[payload]; }

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.memcpys[payload] = s.memcpy; }

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, nullptr, nullptr,
                         false, compare_fns::save, compare_fns::restore, false};
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

#include <optional>
#include <utility>

#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"

namespace graphdsl::detail::kinds::memcpy {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  const cudaMemcpy3DParms p = detail::memcpy_params(x.plan.impl(), i, x.native.dptrs);
  return {cuda_try(cudaGraphExecMemcpyNodeSetParams, x.exec.get(), x.native.nodes[i], &p),
          "cudaGraphExecMemcpyNodeSetParams"};
}

/// cudaGraphExecMemcpyNodeSetParams takes 1-D operands only.
std::optional<UpdateResult> update_needs(const GraphImpl& a, const GraphImpl& t, std::uint32_t i, UpdateNeeds& needs) {
  for (const cudaMemcpy3DParms* p : {&std::as_const(a.memcpys[a.nodes[i].payload]), &t.memcpys[t.nodes[i].payload]}) {
    needs.multi_dim_copy |= p->extent.height > 1 || p->extent.depth > 1 || p->srcArray || p->dstArray;
  }
  return std::nullopt;
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, patch_fns::update_needs};
}  // namespace graphdsl::detail::kinds::memcpy

// ==== end patch ====
