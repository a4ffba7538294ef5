// src/kinds/mem_alloc.cpp — the mem_alloc node kind (Graph::add_mem_alloc): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

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

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::mem_alloc {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl&, std::uint32_t, const GraphImpl&, std::uint32_t) {
  return true;  // compared as structure
}

/// The same size, device and peers: CUDA cannot change a graph allocation.
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const AllocData& ax = a.allocs[a.nodes[i].payload];
  const AllocData& ay = b.allocs[b.nodes[i].payload];
  if (ax.bytes != ay.bytes || ax.device != ay.device || ax.peers != ay.peers) {
    return refusal(UpdateStatus::not_supported, b.info(i),
                   fmt::format("{}{} allocates {} bytes in the executable but {} in the template (or on another "
                               "device); CUDA cannot change a graph allocation",
                               ctx, b.info(i).describe(), ax.bytes, ay.bytes));
  }
  return std::nullopt;
}

void save(SavedParams&, const GraphImpl&, std::uint32_t, bool) {}
void restore(const SavedParams&, GraphImpl&, std::uint32_t) {}

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t payload, FingerprintMemo& /*memo*/) {
  const auto& a = g.allocs[payload];
  f.add(a.bytes);
  f.add(a.device);
  f.add(a.peers.size());
  f.add(a.peers.data(), a.peers.size() * sizeof(int));
}

}  // namespace compare_fns

const CompareOps compare{compare_fns::same_params, compare_fns::compare_shape, compare_fns::fingerprint,
                         false, compare_fns::save, compare_fns::restore, false};
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

#include "exec/patch.hpp"

namespace graphdsl::detail::kinds::mem_alloc {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

/// Nothing to patch.
Applied apply(ExecImpl&, std::uint32_t) { return {}; }

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end patch ====
