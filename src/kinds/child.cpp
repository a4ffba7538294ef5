// src/kinds/child.cpp — the child node kind (Graph::add_child): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::child {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::child

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::child {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::child

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::child {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const GraphImpl& ca = *a.children[pa];
  const GraphImpl& cb = *b.children[pb];
  if (&ca == &cb) return true;
  for (std::uint32_t k = 0; k < ca.nodes.size(); ++k) {
    if (!detail::same_params(ca, cb, k)) return false;
  }
  return true;
}

/// The child plans have the same shape (compared after the node's edges).
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const std::uint32_t pa = a.nodes[i].payload, pb = b.nodes[i].payload;
  if (a.children[pa] == b.children[pb]) return std::nullopt;
  const std::string inner = fmt::format("{}in {}: ", ctx, b.info(i).describe());
  if (auto r = detail::compare_shape(*a.children[pa], *b.children[pb], inner)) {
    r->node = b.info(i);  // the top-level node; the reason names the inner one
    r->from_node.reset();
    if (r->status == UpdateStatus::node_type_changed) r->status = UpdateStatus::topology_changed;
    return r;
  }
  return std::nullopt;
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool own) {
  s.child = own ? own_copy(*g.children[payload]) : g.children[payload];
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.children[payload] = s.child; }

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t payload, FingerprintMemo& memo) {
  add_nested(f, *g.children[payload], memo);
}

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, compare_fns::compare_shape, compare_fns::fingerprint,
                         true, compare_fns::save, compare_fns::restore, true};
}  // namespace graphdsl::detail::kinds::child

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::child {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::child

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::child {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::child

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"
#include "graphdsl/error.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail::kinds::child {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& g = x.plan.impl();
  const GraphImpl& c = *g.children[g.nodes[i].payload];
  Materialized m;
  try {
    m = detail::materialize(c, detail::check_plan(c), x.sink);
  } catch (const CudaError& e) {
    return {e.code(), "cudaGraphAdd*Node (child plan)"};
  }
  return {cuda_try(cudaGraphExecChildGraphNodeSetParams, x.exec.get(), x.native.nodes[i], m.graph.get()),
          "cudaGraphExecChildGraphNodeSetParams"};
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr};
}  // namespace graphdsl::detail::kinds::child

// ==== end patch ====
