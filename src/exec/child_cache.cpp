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

// keep_cached_child moves a plan and a graph into a slot in a noexcept function.
static_assert(std::is_nothrow_move_assignable_v<Materialized>);

constexpr std::uint32_t none = CachedChild::none;

/// Takes slot e out of the list of all entries (least to most recently set).
void unlink_use(ChildCache& c, std::uint32_t e) noexcept {
  CachedChild& s = c.slots[e];
  (s.older != none ? c.slots[s.older].newer : c.oldest) = s.newer;
  (s.newer != none ? c.slots[s.newer].older : c.newest) = s.older;
  s.older = s.newer = none;
}

/// Puts slot e at the most recently set end of that list.
void link_newest(ChildCache& c, std::uint32_t e) noexcept {
  CachedChild& s = c.slots[e];
  s.older = c.newest;
  s.newer = none;
  (c.newest != none ? c.slots[c.newest].newer : c.oldest) = e;
  c.newest = e;
}

/// Frees slot e: out of both lists, its plan and graph released (the graph destroyed).
void evict(ChildCache& c, std::uint32_t e) noexcept {
  unlink_use(c, e);
  CachedChild& s = c.slots[e];
  (s.node_prev != none ? c.slots[s.node_prev].node_next : c.node_first[s.node]) = s.node_next;
  if (s.node_next != none) c.slots[s.node_next].node_prev = s.node_prev;
  c.graph_nodes -= kept_nodes(s);
  --c.entries;
  s.node_prev = s.node_next = none;
  s.plan.reset();
  s.stamp = 0;
  s.native = Materialized{};
  s.newer = c.free;
  c.free = e;
}

}  // namespace

bool cacheable_child(const GraphImpl& child) {
  return !has_open_buffers(child) &&
         !any_nested(child, [](const GraphImpl& p) { return has_param_entries(p) || p.holds(NodeKind::captured); });
}

CachedChild* find_cached_child(ExecImpl& x, std::uint32_t i, const GraphImpl& child, std::uint64_t stamp) {
  ChildCache& c = x.child_cache;
  if (i >= c.node_first.size()) return nullptr;  // nothing kept yet
  auto found = [&](std::uint32_t e) {
    c.slots[e].stamp = stamp;
    unlink_use(c, e);
    link_newest(c, e);
    return &c.slots[e];
  };
  // The plan unchanged since it was set: its stamp, without reading the plan.
  if (stamp != 0) {
    for (std::uint32_t e = c.node_first[i]; e != none; e = c.slots[e].node_next) {
      if (c.slots[e].stamp == stamp) return found(e);
    }
  }
  for (std::uint32_t e = c.node_first[i]; e != none; e = c.slots[e].node_next) {
    if (same_plan(*c.slots[e].plan, child)) return found(e);
  }
  return nullptr;
}

void reserve_cached_child(ExecImpl& x) {
  ChildCache& c = x.child_cache;
  if (c.limit == 0) {  // once: the plan's child nodes do not change
    std::size_t children = 0;
    const GraphImpl& a = recorded_plan(x);
    for (std::uint32_t i = 0; i < node_count(a); ++i) children += node_kind(a, i) == NodeKind::child ? 1 : 0;
    c.node_first.assign(node_count(a), none);
    c.limit = static_cast<std::uint32_t>(
        std::min<std::size_t>(std::max(child_cache_entries, child_cache_per_node * children), child_cache_nodes));
  }
  if (c.free == none && c.slots.size() == c.slots.capacity()) {
    c.slots.reserve(std::max<std::size_t>(4, 2 * c.slots.size()));
  }
}

void keep_cached_child(ExecImpl& x, std::uint32_t i, std::shared_ptr<const GraphImpl> plan, Materialized&& m,
                       std::uint64_t stamp) noexcept {
  ChildCache& c = x.child_cache;
  std::uint32_t e = c.free;
  if (e != none) {
    c.free = c.slots[e].newer;
  } else {
    e = static_cast<std::uint32_t>(c.slots.size());
    c.slots.emplace_back();  // reserved: no allocation
  }
  CachedChild& s = c.slots[e];
  s.node = i;
  s.plan = std::move(plan);
  s.stamp = stamp;
  s.native = std::move(m);
  s.node_prev = none;  // first among its node's entries
  s.node_next = c.node_first[i];
  if (s.node_next != none) c.slots[s.node_next].node_prev = e;
  c.node_first[i] = e;
  link_newest(c, e);
  ++c.entries;
  c.graph_nodes += kept_nodes(s);
  while (c.entries > 1 && (c.entries > c.limit || c.graph_nodes > child_cache_nodes)) evict(c, c.oldest);
}

}  // namespace graphdsl::detail
