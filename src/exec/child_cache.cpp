// src/exec/child_cache.cpp — the child graphs Executable::set_child(node, plan) keeps
// (exec/child_cache.hpp).
#include "exec/child_cache.hpp"

#include <string>
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

}  // namespace

bool cacheable_child(const GraphImpl& child) {
  return !has_open_buffers(child) &&
         !any_nested(child, [](const GraphImpl& p) { return has_param_entries(p) || p.holds(NodeKind::captured); });
}

CachedChild* find_cached_child(ExecImpl& x, std::uint32_t i, const GraphImpl& child) {
  for (CachedChild& c : x.child_cache) {
    if (c.node == i && same_plan(*c.plan, child)) {
      c.used = ++x.child_uses;
      return &c;
    }
  }
  return nullptr;
}

void reserve_cached_child(ExecImpl& x) { x.child_cache.reserve(x.child_cache.size() + 1); }

void keep_cached_child(ExecImpl& x, std::uint32_t i, std::shared_ptr<const GraphImpl> plan, Materialized&& m) noexcept {
  std::vector<CachedChild>& cache = x.child_cache;
  cache.push_back(CachedChild{i, ++x.child_uses, std::move(plan), std::move(m)});  // reserved: no allocation
  std::size_t nodes = 0;
  for (const CachedChild& c : cache) nodes += kept_nodes(c);
  while (cache.size() > 1 && (cache.size() > child_cache_entries || nodes > child_cache_nodes)) {
    auto oldest = cache.begin();
    for (auto it = cache.begin(); it != cache.end(); ++it) {
      if (it->used < oldest->used) oldest = it;
    }
    nodes -= kept_nodes(*oldest);
    cache.erase(oldest);  // move-assigns the later entries down: no allocation
  }
}

}  // namespace graphdsl::detail
