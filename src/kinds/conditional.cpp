// src/kinds/conditional.cpp — the conditional node kind (Graph::add_if / add_if_else / add_while / add_switch): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::conditional {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const ConditionalData& x = a.conditionals[pa];
  const ConditionalData& y = b.conditionals[pb];
  for (std::size_t k = 0; k < x.bodies.size(); ++k) {
    const GraphImpl& bx = *x.bodies[k];
    const GraphImpl& by = *y.bodies[k];
    if (&bx == &by) continue;
    for (std::size_t c = 0; c < bx.conditions.size(); ++c) {
      if (bx.conditions[c].default_value != by.conditions[c].default_value ||
          bx.conditions[c].assign_default != by.conditions[c].assign_default) {
        return false;
      }
    }
    for (std::uint32_t n = 0; n < bx.nodes.size(); ++n) {
      if (!detail::same_params(bx, by, n)) return false;
    }
  }
  return true;
}

/// The same type, body count and condition, and bodies of the same shape.
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const ConditionalData& cx = a.conditionals[a.nodes[i].payload];
  const ConditionalData& cy = b.conditionals[b.nodes[i].payload];
  if (cx.type != cy.type || cx.bodies.size() != cy.bodies.size() || !same_ref(cx.condition, cy.condition)) {
    auto shape = [](const ConditionalData& c) {
      return fmt::format("{} ({} bod{})", to_string(c.type), c.bodies.size(), c.bodies.size() == 1 ? "y" : "ies");
    };
    return refusal(UpdateStatus::not_supported, b.info(i),
                   fmt::format("{}{} is {} in the executable but {} in the template (or uses another condition); "
                               "CUDA cannot change a conditional node's shape",
                               ctx, b.info(i).describe(), shape(cx), shape(cy)));
  }
  for (std::size_t k = 0; k < cx.bodies.size(); ++k) {
    if (cx.bodies[k] == cy.bodies[k]) continue;
    const std::string inner = fmt::format("{}in body {} of {}: ", ctx, k, b.info(i).describe());
    if (auto r = detail::compare_shape(*cx.bodies[k], *cy.bodies[k], inner)) {
      r->node = b.info(i);
      r->from_node.reset();
      if (r->status == UpdateStatus::node_type_changed) r->status = UpdateStatus::topology_changed;
      return r;
    }
  }
  return std::nullopt;
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool own) {
  s.bodies = g.conditionals[payload].bodies;
  for (auto& b : s.bodies) b = own ? own_copy(*b) : b;
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.conditionals[payload].bodies = s.bodies; }

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t payload, FingerprintMemo& memo) {
  const auto& c = g.conditionals[payload];
  f.add(c.type);
  f.add(c.condition.levels);
  f.add(c.condition.index);
  f.add(c.bodies.size());
  for (const auto& b : c.bodies) add_nested(f, *b, memo);
}

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, compare_fns::compare_shape, compare_fns::fingerprint,
                         false, compare_fns::save, compare_fns::restore, true};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include <optional>

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::conditional {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// The bodies are not mapped node by node: update() goes whole-graph.
Applied apply(ExecImpl&, std::uint32_t) { return {cudaErrorNotSupported, "a per-node update of a conditional node"}; }

/// Only cudaGraphExecUpdate patches it.
std::optional<UpdateResult> update_needs(const GraphImpl&, const GraphImpl&, std::uint32_t, UpdateNeeds& needs) {
  needs.nested_change = true;
  return std::nullopt;
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, patch_fns::update_needs};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end patch ====
