// src/exec/child_cache.hpp — the child graphs Executable::set_child(node, plan) keeps: a plan set on
// a node before (equal in shape, parameters and names) is set again from its kept graph with one
// driver call instead of being copied, checked and materialized again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "native/native.hpp"

namespace graphdsl::detail {

/// At most child_cache_entries child graphs kept per executable, or two per child node of its plan
/// where that is more (a pipeline that sets each of its child nodes to one of two plans in turn
/// sets them all from kept graphs), holding at most child_cache_nodes nodes together: the least
/// recently set goes first.
inline constexpr std::size_t child_cache_entries = 16;
inline constexpr std::size_t child_cache_per_node = 2;
inline constexpr std::size_t child_cache_nodes = std::size_t{1} << 16;

/// Whether set_child may keep the graph of `child` (a plan as given): no parameter entries (the
/// recorded plan shares the kept copy, and Executable::set writes into such plans), no reference
/// to an enclosing plan's graph buffer (its graph is compiled against the executable's
/// allocations), no captured node (setting the plan again runs the capture function again).
bool cacheable_child(const GraphImpl& child);

/// The kept entry of node i whose plan equals `child`, marked as just set; null when there is none.
/// `stamp`: child's content stamp (GraphImpl::content_stamp), read before anything could change
/// `child`; 0 for none. An entry last set from a plan with that stamp is found without comparing
/// plans; one found by comparing takes the stamp.
CachedChild* find_cached_child(ExecImpl& x, std::uint32_t i, const GraphImpl& child, std::uint64_t stamp = 0);

/// Makes room for one more entry, so that keep_cached_child cannot fail (std::bad_alloc here, before
/// the executable changes).
void reserve_cached_child(ExecImpl& x);

/// Keeps `plan` (set on node i) with its graph `m`, evicting the least recently set entries beyond
/// the bounds. After reserve_cached_child: no allocation.
/// `stamp`: the content stamp of the plan `plan` was copied from (0: none).
void keep_cached_child(ExecImpl& x, std::uint32_t i, std::shared_ptr<const GraphImpl> plan, Materialized&& m,
                       std::uint64_t stamp = 0) noexcept;

}  // namespace graphdsl::detail
