// src/kinds/captured.cpp — the captured node kind (Graph::add_captured): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::captured {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::captured {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::captured {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  return a.captures[pa].fn->same_work(*b.captures[pb].fn) && a.captures[pa].mode == b.captures[pb].mode;
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) { s.capture = g.captures[payload]; }

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.captures[payload] = s.capture; }

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, nullptr, nullptr,
                         false, compare_fns::save, compare_fns::restore, false};
}  // namespace graphdsl::detail::kinds::captured

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::captured {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::captured {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::captured

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include <optional>

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::captured {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// The captured nodes are not mapped: update() goes whole-graph.
Applied apply(ExecImpl&, std::uint32_t) { return {cudaErrorNotSupported, "a per-node update of a captured node"}; }

/// Only cudaGraphExecUpdate patches it.
std::optional<UpdateResult> update_needs(const GraphImpl&, const GraphImpl&, std::uint32_t, UpdateNeeds& needs) {
  needs.nested_change = true;
  return std::nullopt;
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, patch_fns::update_needs};
}  // namespace graphdsl::detail::kinds::captured

// ==== end patch ====
