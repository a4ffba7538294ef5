// src/exec/child_cache.cpp — the child graphs Executable::set_child(node, plan) keeps
// (exec/child_cache.hpp).
#include "exec/child_cache.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "plan/diff.hpp"
#include "plan/nested_buffers.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl::detail {

namespace {

/// Whether plans `a` and `b` are equal in what a materialized graph holds and the recorded plan
/// shows: the same shape (compare_shape), no node with other parameters or another name, the same
/// condition defaults. The lists are the calling thread's, so that a plan that differs allocates
/// nothing once they have grown.
bool same_plan(const GraphImpl& a, const GraphImpl& b) {
  if (node_count(a) != node_count(b)) return false;
  thread_local std::vector<std::uint32_t> changed;
  thread_local std::vector<std::uint32_t> renamed;
  changed.clear();
  renamed.clear();
  bool conditions_changed = false;
  const DiffOut out{&changed, &renamed, &conditions_changed};
  static const std::string ctx;
  return !compare_shape(a, b, ctx, &out) && changed.empty() && renamed.empty() && !conditions_changed;
}

std::size_t kept_nodes(const CachedChild& c) noexcept { return c.native.nodes.size(); }

// keep_cached_child moves entries within reserved storage in a noexcept function.
static_assert(std::is_nothrow_move_constructible_v<CachedChild> && std::is_nothrow_move_assignable_v<CachedChild>);

/// Node i's entries, oldest first (the cache is sorted by node; a node's entries in the order kept).
std::pair<std::vector<CachedChild>::iterator, std::vector<CachedChild>::iterator> node_entries(
    std::vector<CachedChild>& cache, std::uint32_t i) {
  struct ByNode {
    bool operator()(const CachedChild& c, std::uint32_t n) const { return c.node < n; }
    bool operator()(std::uint32_t n, const CachedChild& c) const { return n < c.node; }
  };
  return std::equal_range(cache.begin(), cache.end(), i, ByNode{});
}

}  // namespace

bool cacheable_child(const GraphImpl& child) {
  return !has_open_buffers(child) &&
         !any_nested(child, [](const GraphImpl& p) { return has_param_entries(p) || p.holds(NodeKind::captured); });
}

CachedChild* find_cached_child(ExecImpl& x, std::uint32_t i, const GraphImpl& child) {
  const auto [first, last] = node_entries(x.child_cache, i);
  for (auto it = first; it != last; ++it) {
    if (same_plan(*it->plan, child)) {
      it->used = ++x.child_uses;
      return &*it;
    }
  }
  return nullptr;
}

void reserve_cached_child(ExecImpl& x) {
  if (x.child_cache_limit == 0) {  // once: the plan's child nodes do not change
    std::size_t children = 0;
    const GraphImpl& a = x.plan.impl();
    for (std::uint32_t i = 0; i < node_count(a); ++i) children += node_kind(a, i) == NodeKind::child ? 1 : 0;
    x.child_cache_limit = static_cast<std::uint32_t>(
        std::min<std::size_t>(std::max(child_cache_entries, child_cache_per_node * children), child_cache_nodes));
  }
  x.child_cache.reserve(x.child_cache.size() + 1);
}

void keep_cached_child(ExecImpl& x, std::uint32_t i, std::shared_ptr<const GraphImpl> plan, Materialized&& m) noexcept {
  std::vector<CachedChild>& cache = x.child_cache;
  const auto at = node_entries(cache, i).second;                                    // after node i's older entries
  cache.insert(at, CachedChild{i, ++x.child_uses, std::move(plan), std::move(m)});  // reserved: no allocation
  std::size_t nodes = 0;
  for (const CachedChild& c : cache) nodes += kept_nodes(c);
  while (cache.size() > 1 && (cache.size() > x.child_cache_limit || nodes > child_cache_nodes)) {
    auto oldest = cache.begin();
    for (auto it = cache.begin(); it != cache.end(); ++it) {
      if (it->used < oldest->used) oldest = it;
    }
    nodes -= kept_nodes(*oldest);
    cache.erase(oldest);  // move-assigns the later entries down: no allocation
  }
}

}  // namespace graphdsl::detail
