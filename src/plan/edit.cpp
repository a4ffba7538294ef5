// src/plan/edit.cpp — editing a plan in place: its dependencies (Graph::remove_edge,
// Graph::set_predecessors), its nodes' parameters (the typed setters: Graph::set_kernel_args, ...,
// whose templates are in graphdsl/detail/graph_edits.hpp) and its nodes (Graph::remove_node).
// Plans grow through add_* and after(); these change what is there. No CUDA call.
//
// A removed node stays as a tombstone (NodeData::removed) rather than being taken out: node handles
// hold indices, which are positions, so taking a node out would move every later node under its
// handles. The tombstone is an empty node without edges, device or payload, so the walks that check,
// compare and build a plan need nothing to skip it but creation_order (plan/rules.cpp), which leaves
// it out of what materialize builds; what users see of a plan (node_count, nodes(), dump(), to_dot())
// skips it, and its handle is refused (handle_plan, plan/rules.hpp). What the node had in the plan's
// stores goes by the on_remove column of plan/records/stores.def (plan/records/on_remove.hpp).
#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"
#include "plan/graph_impl.hpp"
#include "plan/kind_rules.hpp"
#include "plan/nested_buffers.hpp"
#include "plan/plan_access.hpp"
#include "plan/records/on_remove.hpp"
#include "plan/replace.hpp"
#include "plan/rules.hpp"
#include "plan/walk.hpp"

namespace graphdsl {
namespace detail {

void throw_removed_node(const GraphImpl& g, std::uint32_t i) {
  const std::string& name = g.node_name(i);
  throw UsageError(fmt::format("node {} was removed from graph {} (Graph::remove_node); its handle names no node",
                               name.empty() ? fmt::format("#{}", i) : fmt::format("{} (#{})", quoted(name), i),
                               quoted(g.name)));
}

namespace {

/// What g's nested plans and node kinds amount to (GraphImpl::held_kinds, depth, nested_nodes),
/// recounted from its live nodes once a node that changes them is removed.
void recount_nesting(GraphImpl& g) noexcept {
  std::uint32_t held = 0, depth = 0;
  std::uint64_t nested = 0;
  for (std::uint32_t k = 0; k < g.nodes.size(); ++k) {
    const NodeData& n = g.nodes[k];
    if (n.removed != 0) continue;
    held |= 1u << static_cast<unsigned>(n.kind);
    const bool part_of_plan = rule_ops(n.kind).nested_in_plan;  // a child plan's kinds are the plan's
    for (const auto& p : nested_slots(g, k)) {
      if (part_of_plan) held |= p->held_kinds;
      depth = std::max(depth, p->depth + 1);
      nested += p->nodes.size() + p->nested_nodes;
    }
  }
  g.held_kinds = held;
  g.depth = depth;
  g.nested_nodes = nested;
}

}  // namespace
}  // namespace detail

void Graph::remove_edge(const Node& from, const Node& to) {
  auto& g = impl();
  const std::uint32_t f = detail::own_index(g, from);
  const std::uint32_t t = detail::own_index(g, to);
  (void)detail::changeable(to, "removing an edge into it");
  const detail::SmallVec& preds = g.nodes[t].preds;  // searched from the end, as remove_pred does
  if (std::find(std::make_reverse_iterator(preds.end()), std::make_reverse_iterator(preds.begin()), f) ==
      std::make_reverse_iterator(preds.begin())) {
    throw UsageError(fmt::format("remove_edge: graph {} has no edge {} -> {}", detail::quoted(g.name), g.info(f).ref(),
                                 g.info(t).ref()));
  }
  detail::remove_pred(g, t, f);
}

void Graph::set_predecessors(const Node& node, const std::vector<Node>& preds) {
  auto& g = impl();
  const std::uint32_t t = detail::own_index(g, node);
  for (const Node& p : preds) (void)detail::own_index(g, p);
  (void)detail::changeable(node, "setting its predecessors");
  // What stays is marked first (the one allocation); then the new edges are checked and added, all
  // or none; then the edges from unmarked nodes go, in one pass, which allocates nothing.
  std::vector<bool> wanted(g.nodes.size(), false);
  for (const Node& p : preds) wanted[p.index()] = true;
  detail::add_edges(preds.data(), preds.size(), node);
  detail::remove_preds_except(g, t, wanted);
}

void Graph::remove_node(const Node& node) {
  auto& g = impl();
  const std::uint32_t i = detail::own_index(g, node);
  (void)detail::changeable(node, "removing it");
  detail::NodeData& n = g.nodes[i];
  const NodeKind kind = n.kind;
  const detail::RuleOps& rules = detail::rule_ops(kind);
  if (rules.check_removal != nullptr) rules.check_removal(g, i);
  // Everything that allocates first (each store's policy prepares): from here on nothing throws.
  detail::on_remove::Removal r{i, n.payload, nullptr};
#define GRAPHDSL_STORE(owner, member, element, on_update, policy) \
  detail::on_remove::policy::prepare(g.member, r, detail::on_remove::owned_by::owner(kind));
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE
  const std::vector<std::uint32_t> preds(n.preds.begin(), n.preds.end());
  const std::vector<std::uint32_t> succs(g.succs[i].begin(), g.succs[i].end());
  // Last first: each edge is then the last of the node's own list, where remove_pred looks first.
  for (auto p = preds.rbegin(); p != preds.rend(); ++p) detail::remove_pred(g, i, *p);
  for (auto s = succs.rbegin(); s != succs.rend(); ++s) detail::remove_pred(g, *s, i);
#define GRAPHDSL_STORE(owner, member, element, on_update, policy) \
  detail::on_remove::policy::apply(g.member, r, detail::on_remove::owned_by::owner(kind));
#include "plan/records/stores.def"
#undef GRAPHDSL_STORE
  n.kind = NodeKind::empty;
  n.payload = 0;
  n.device = -1;
  n.removed = 1;
  ++g.removed_nodes;
  // The kinds a plan holds are what rules read of a child plan (no graph memory, no conditional);
  // nested plans count towards the nesting limits.
  if (rules.recount_on_remove) detail::recount_nesting(g);
}

// ---- the typed setters (their templates: graphdsl/detail/graph_edits.hpp) ----------------------

void Graph::replace_params(const Node& node, const Graph& one, const char* what) {
  auto& g = impl();
  const detail::GraphImpl& s = one.impl();
  const std::uint32_t i = detail::own_node(g, node, detail::node_kind(s, 0), what);
  (void)detail::changeable(node, "changing its parameters");
  (void)detail::NodeReplacement(g, i, s);  // checked and written, or nothing changed
}

const void* Graph::kernel_function(const Node& node) const {
  auto& g = impl();
  return detail::kernel_of(g, detail::own_node(g, node, NodeKind::kernel, "set_kernel_args")).func;
}

void Graph::set_kernel_launch(const Node& node, const Launch& launch) {
  auto& g = impl();
  const std::uint32_t i = detail::own_node(g, node, NodeKind::kernel, "set_launch");
  (void)detail::changeable(node, "changing its launch");
  const std::uint32_t k = detail::kernel_index(g, i);
  const Launch old = detail::launch_of(g, k);
  try {
    detail::store_launch(g, k, launch);
    detail::check_node(g, i);
  } catch (...) {
    detail::store_launch(g, k, old);  // allocates nothing: an attribute entry it may insert was just there
    throw;
  }
}

void Graph::set_child(const ChildNode& node, const Graph& child) {
  Graph one("setter");
  one.add_child(child);
  // The child's uses of this plan's graph buffers, resolved as add_child on this plan resolves them
  // (in the setter plan's own copy).
  std::shared_ptr<const detail::GraphImpl>& c = one.impl().children[0];
  if (detail::has_open_buffers(*c)) {
    auto resolved = std::make_shared<detail::GraphImpl>(*c);
    detail::resolve_embedded_buffers(*resolved, impl());
    c = std::move(resolved);
  }
  replace_params(node, one, "set_child");
}

void Graph::set_event(const EventRecordNode& node, const Event& event) {
  Graph one("setter");
  one.add_event_record(event);
  replace_params(node, one, "set_event");
}

void Graph::set_event(const EventWaitNode& node, const Event& event) {
  Graph one("setter");
  one.add_event_wait(event);
  replace_params(node, one, "set_event");
}

}  // namespace graphdsl
