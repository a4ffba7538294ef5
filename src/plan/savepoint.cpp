// src/plan/savepoint.cpp — Graph::Change: an add_* that fails part way leaves the plan as it was.
// No function in this file calls CUDA.
#include <new>

#include "graphdsl/graph.hpp"
#include "plan/graph_impl.hpp"
#include "plan/handles.hpp"

namespace graphdsl {
namespace detail {
namespace {

PlanMark mark_of(const GraphImpl& g) noexcept {
  PlanMark m;
  for_each_store(g, [&](const auto& store, StoreId id) { m.sizes[static_cast<std::size_t>(id)] = store.size(); });
  m.depth = g.depth;
  m.nested_nodes = g.nested_nodes;
  m.held_kinds = g.held_kinds;
  return m;
}

/// Drops the entries of `list` (in node order) that name a node from `nodes` on.
template <class T>
void drop_uses_from(std::vector<T>& list, std::size_t nodes) noexcept {
  while (!list.empty() && list.back().node >= nodes) list.pop_back();
}

/// Takes g back to `m`: what was appended since is dropped (only appended: an add_* changes no
/// entry it did not add, but for the uses of the parameters already declared, which are in node order).
void roll_back(GraphImpl& g, const PlanMark& m) noexcept {
  const std::size_t kept_nodes = m.sizes[static_cast<std::size_t>(StoreId::nodes)];
  const bool nodes_dropped = g.nodes.size() > kept_nodes;
  truncate_params(g, m.sizes[static_cast<std::size_t>(StoreId::params)]);  // with their index (param_order)
  for_each_store(g, [&](auto& store, StoreId id) {
    const std::size_t size = m.sizes[static_cast<std::size_t>(id)];
    if (store.size() > size) store.erase(store.begin() + static_cast<std::ptrdiff_t>(size), store.end());
  });
  for (ParamData& p : g.params) {
    drop_uses_from(p.uses, kept_nodes);
    drop_uses_from(p.nested, kept_nodes);
  }
  if (g.succs.size() > kept_nodes)
    g.succs.erase(g.succs.begin() + static_cast<std::ptrdiff_t>(kept_nodes), g.succs.end());
  if (nodes_dropped) {
    // Edges between the nodes kept and those dropped (a body builder may add them to this plan),
    // and the edge index, a cache rebuilt when a long list is next added to.
    for (std::size_t v = 0; v < g.nodes.size(); ++v) {
      g.nodes[v].preds.keep_below(static_cast<std::uint32_t>(kept_nodes));
      g.succs[v].keep_below(static_cast<std::uint32_t>(kept_nodes));
    }
    g.long_edges.clear();
  }
  std::size_t edges = 0;  // counted: a builder may also have added edges between nodes kept
  for (const NodeData& n : g.nodes) edges += n.preds.size();
  g.edge_count = edges;
  g.depth = m.depth;
  g.nested_nodes = m.nested_nodes;
  g.held_kinds = m.held_kinds;
}

}  // namespace
}  // namespace detail

Graph::Change::Change(Graph& g) : graph_(g) {
  static_assert(sizeof(detail::PlanMark) <= mark_bytes && alignof(detail::PlanMark) <= alignof(std::uint64_t));
  detail::GraphImpl& plan = g.impl();
  new (mark_) detail::PlanMark(detail::mark_of(plan));
  plan_ = plan.handle(0);
}

Graph::Change::~Change() {
  if (committed_) return;
  detail::GraphImpl* plan = graph_.impl_.get();
  // A body builder may have moved the plan to another Graph or destroyed it (add_conditional
  // refuses both): the plan this Change marked is then found through the plan table, if alive.
  if (plan == nullptr || plan->id != plan_.plan) plan = detail::live_plan(plan_);
  if (plan != nullptr) detail::roll_back(*plan, *std::launder(reinterpret_cast<const detail::PlanMark*>(mark_)));
}

}  // namespace graphdsl
