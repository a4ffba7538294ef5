// src/kinds/mem_free.cpp — the mem_free node kind (Graph::add_mem_free): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::mem_free {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl&, std::uint32_t, const GraphImpl&, std::uint32_t) {
  return true;  // compared as structure
}

/// The same buffer freed.
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  if (a.frees[a.nodes[i].payload] != b.frees[b.nodes[i].payload]) {
    return refusal(UpdateStatus::topology_changed, b.info(i),
                   fmt::format("{}{} frees another buffer in the template", ctx, b.info(i).describe()));
  }
  return std::nullopt;
}

void save(SavedParams&, const GraphImpl&, std::uint32_t, bool) {}
void restore(const SavedParams&, GraphImpl&, std::uint32_t) {}

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t payload, FingerprintMemo& /*memo*/) {
  f.add(g.frees[payload]);
}

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, compare_fns::compare_shape, compare_fns::fingerprint,
                         false, compare_fns::save, compare_fns::restore, false};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::mem_free {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Nothing to patch.
Applied apply(ExecImpl&, std::uint32_t) { return {}; }

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end patch ====
