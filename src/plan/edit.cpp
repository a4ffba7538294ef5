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

/// Whether node k of plan `p` is a kernel with graph buffer `uid` as an argument.
bool kernel_uses_buffer(const GraphImpl& p, std::uint32_t k, std::uint64_t uid) {
  const NodeData& n = p.nodes[k];
  if (n.kind != NodeKind::kernel) return false;
  const KernelLinks& links = kernel_links_of(p, n.payload);
  for (std::uint32_t c = 0; c < links.ph_count; ++c) {
    const KernelPlaceholder& ph = kernel_placeholder(p, links, c);
    if (ph.kind == PlaceholderKind::buffer && ph.uid == uid) return true;
  }
  return false;
}

/// Whether a node of plan `p` uses graph buffer `uid`: a kernel argument, a memset's or memcpy's end.
bool plan_uses_buffer(const GraphImpl& p, std::uint64_t uid) {
  for (std::uint32_t k = 0; k < p.nodes.size(); ++k) {
    if (kernel_uses_buffer(p, k, uid)) return true;
  }
  return std::any_of(p.buffer_uses.begin(), p.buffer_uses.end(), [&](const BufferUse& u) { return u.uid == uid; });
}

/// Refuses to remove mem_alloc node `a` of g while a node uses its buffer (or frees it): the node
/// would refer to memory no node allocates. Reads the whole plan and the plans nested in it.
void check_unused_buffer(const GraphImpl& g, std::uint32_t a) {
  const std::uint64_t uid = node_record(g.allocs, a)->uid;
  auto refuse = [&](const std::string& user) {
    throw UsageError(
        fmt::format("remove_node: {} allocates the buffer that {} uses; remove that use first (change "
                    "or remove the node)",
                    g.info(a).describe(), user));
  };
  for (const BufferUse& u : g.buffer_uses) {
    if (u.uid == uid) refuse(g.info(u.node).describe());
  }
  for (std::uint32_t k = 0; k < g.nodes.size(); ++k) {
    const NodeData& n = g.nodes[k];
    if (kernel_uses_buffer(g, k, uid) || (n.kind == NodeKind::mem_free && g.frees[n.payload] == a)) {
      refuse(g.info(k).describe());
    }
    for (const auto& inner : nested_slots(g, k)) {
      if (any_nested_plan(*inner, [&](const GraphImpl& p) { return plan_uses_buffer(p, uid); })) {
        refuse(fmt::format("a node in the plan nested in {}", g.info(k).describe()));
      }
    }
  }
}

/// What g's nested plans and node kinds amount to (GraphImpl::held_kinds, depth, nested_nodes),
/// recounted from its live nodes once a node that changes them is removed.
void recount_nesting(GraphImpl& g) noexcept {
  std::uint32_t held = 0, depth = 0;
  std::uint64_t nested = 0;
  for (std::uint32_t k = 0; k < g.nodes.size(); ++k) {
    const NodeData& n = g.nodes[k];
    if (n.removed != 0) continue;
    held |= 1u << static_cast<unsigned>(n.kind);
    for (const auto& p : nested_slots(g, k)) {
      if (n.kind == NodeKind::child) held |= p->held_kinds;
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
  if (kind == NodeKind::mem_alloc) detail::check_unused_buffer(g, i);
  // Everything that allocates first: from here on nothing throws.
  detail::on_remove::Removal r{i, n.payload, nullptr};
  if (kind == NodeKind::child) r.empty_plan = std::make_shared<const detail::GraphImpl>(g.children[n.payload]->name);
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
  if (kind == NodeKind::child || kind == NodeKind::conditional || kind == NodeKind::mem_alloc ||
      kind == NodeKind::mem_free) {
    detail::recount_nesting(g);
  }
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
