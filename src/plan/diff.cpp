// src/plan/diff.cpp — the host-side diff of two plans: shapes, parameters, names (diff(),
// Executable::update, replace_node), and Graph::fingerprint. Per-kind comparisons go through the kind table
// (plan/kind_compare.hpp). No CUDA call.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "graphdsl/graph.hpp"
#include "graphdsl/update.hpp"
#include "plan/diff.hpp"
#include "plan/kind_compare.hpp"
#include "plan/nested_buffers.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"

namespace graphdsl {

std::string UpdateResult::to_string() const {
  if (status == UpdateStatus::success && strategy == UpdateStrategy::none) {  // nothing sent to CUDA
    if (changed.empty()) {
      return reason.empty() ? "nothing to update: the parameters are the same" : "update possible: " + reason;
    }
    return fmt::format("update possible: {} node{} differ{}{}", changed.size(), changed.size() == 1 ? "" : "s",
                       changed.size() == 1 ? "s" : "", reason.empty() ? "" : "; " + reason);
  }
  if (status == UpdateStatus::success) {
    return fmt::format("update applied ({}): {} node{} patched", graphdsl::to_string(strategy), patched,
                       patched == 1 ? "" : "s");
  }
  return fmt::format("update refused ({}): {}", graphdsl::to_string(status), reason);
}

namespace detail {

// ---- shape -------------------------------------------------------------------------------------

std::string without_prefix(const Error& e) {
  const std::string what = e.what();
  const std::string prefix = "graphdsl: ";
  return what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what;
}

UpdateResult refusal(UpdateStatus status, std::optional<NodeInfo> node, std::string reason) {
  UpdateResult r;
  r.status = status;
  r.node = std::move(node);
  r.reason = std::move(reason);
  return r;
}

bool same_ref(const ConditionRef& x, const ConditionRef& y) { return x.levels == y.levels && x.index == y.index; }

namespace {

bool contains(const SmallVec& v, std::uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

/// Marks of the predecessors of one node, to test membership in O(1): each edge comparison of a
/// node whose edges were added in another order costs O(in-degree), so a whole diff O(E).
struct EdgeMarks {
  std::vector<std::uint32_t> mark;  ///< per node of the plan: the stamp of the last list it was in
  std::uint32_t stamp = 0;
  void set(const SmallVec& preds, std::size_t nodes) {
    if (mark.size() < nodes) mark.resize(nodes, 0);
    if (++stamp == 0) {  // wrapped: old marks would read as current
      std::fill(mark.begin(), mark.end(), 0);
      stamp = 1;
    }
    for (std::uint32_t p : preds) mark[p] = stamp;
  }
  bool has(std::uint32_t p) const { return p < mark.size() && mark[p] == stamp; }
};

/// The first edge into node i that plan `has` holds and plan `lacks` does not, as a refusal whose
/// nodes are those of the template `templ`.
std::optional<UpdateResult> missing_edge(const GraphImpl& has, const char* has_name, const GraphImpl& lacks,
                                         const char* lacks_name, const GraphImpl& templ, std::uint32_t i,
                                         const std::string& ctx, EdgeMarks& marks) {
  // Long lists (the same edges added in another order) are looked up in marks: O(d), not O(d^2).
  const SmallVec& other = lacks.nodes[i].preds;
  const bool marked = other.size() > 8;
  if (marked) marks.set(other, lacks.nodes.size());
  for (std::uint32_t p : has.nodes[i].preds) {
    if (marked ? marks.has(p) : contains(other, p)) continue;
    UpdateResult r = refusal(UpdateStatus::topology_changed, templ.info(i),
                             fmt::format("{}edge {} -> {} exists in the {} but not in the {}", ctx, has.info(p).ref(),
                                         has.info(i).ref(), has_name, lacks_name));
    r.from_node = templ.info(p);
    return r;
  }
  return std::nullopt;
}

/// What parameter use `u` of plan `g` is, in words: "argument 2 of kernel node 'k' (#1)".
std::string param_use(const GraphImpl& g, const ParamUse& u) {
  switch (u.place) {
    case ParamPlace::memset_value: return fmt::format("the value of {}", g.info(u.node).describe());
    case ParamPlace::memcpy_dst: return fmt::format("the destination of {}", g.info(u.node).describe());
    case ParamPlace::memcpy_src: return fmt::format("the source of {}", g.info(u.node).describe());
    case ParamPlace::kernel_argument: break;
  }
  return fmt::format("argument {} of {}", u.position, g.info(u.node).describe());
}

/// Parameters are structure: the same parameters (by position and type) used at the same places.
/// Their values are compared as the nodes' parameters (the argument bytes and memset values).
std::optional<UpdateResult> compare_parameters(const GraphImpl& a, const GraphImpl& b, const std::string& ctx) {
  if (a.params.size() != b.params.size()) {
    return refusal(UpdateStatus::topology_changed, std::nullopt,
                   fmt::format("{}graph {} has {} parameters in the template, {} in the executable", ctx,
                               quoted(b.name), b.params.size(), a.params.size()));
  }
  for (std::uint32_t k = 0; k < a.params.size(); ++k) {
    const ParamData& x = a.params[k];
    const ParamData& y = b.params[k];
    if (*x.type->info != *y.type->info) {
      return refusal(UpdateStatus::topology_changed, std::nullopt,
                     fmt::format("{}parameter {} is of type {} in the executable but parameter {} is of type {} in the "
                                 "template",
                                 ctx, a.param_ref(k), x.type->name, b.param_ref(k), y.type->name));
    }
    const auto same_use = [](const NestedUse& p, const NestedUse& q) {
      return p.node == q.node && p.slot == q.slot && p.entry == q.entry;
    };
    if (x.declared != y.declared || x.nested.size() != y.nested.size() ||
        !std::equal(x.nested.begin(), x.nested.end(), y.nested.begin(), same_use)) {
      return refusal(UpdateStatus::topology_changed, std::nullopt,
                     fmt::format("{}parameter {} is {} and used in {} nested plans in the executable, {} and used in "
                                 "{} in the template",
                                 ctx, a.param_ref(k), x.declared ? "declared here" : "declared outside this plan",
                                 x.nested.size(), y.declared ? "declared here" : "declared outside this plan",
                                 y.nested.size()));
    }
    const std::size_t n = std::min(x.uses.size(), y.uses.size());
    for (std::size_t u = 0; u <= n; ++u) {
      const bool ex = u < x.uses.size(), ey = u < y.uses.size();
      if (!ex && !ey) break;
      if (ex && ey && x.uses[u].node == y.uses[u].node && x.uses[u].offset == y.uses[u].offset &&
          x.uses[u].position == y.uses[u].position && x.uses[u].place == y.uses[u].place) {
        continue;
      }
      // The first use one plan has and the other lacks.
      const bool in_executable = ex && (!ey || x.uses[u].node <= y.uses[u].node);
      const ParamUse& use = in_executable ? x.uses[u] : y.uses[u];
      const GraphImpl& g = in_executable ? a : b;
      UpdateResult r = refusal(UpdateStatus::topology_changed, b.info(use.node),
                               fmt::format("{}{} is parameter {} in the {} but not in the {}", ctx, param_use(g, use),
                                           g.param_ref(k), in_executable ? "executable" : "template",
                                           in_executable ? "template" : "executable"));
      return r;
    }
  }
  return std::nullopt;
}

/// The plan-wide structure compare_shape() compares before the nodes: node count, graph-buffer
/// uses, peer copies, parameters, condition count.
std::optional<UpdateResult> compare_plan_tables(const GraphImpl& a, const GraphImpl& b, const std::string& ctx) {
  const std::size_t na = a.nodes.size(), nb = b.nodes.size();
  if (na != nb) {
    const bool more = nb > na;
    const NodeInfo extra = more ? b.info(static_cast<std::uint32_t>(na)) : a.info(static_cast<std::uint32_t>(nb));
    return refusal(UpdateStatus::topology_changed, extra,
                   fmt::format("{}the template has {} nodes, the executable {}: {} is not in the {}", ctx, nb, na,
                               extra.describe(), more ? "executable" : "template"));
  }
  const bool same_uses = std::equal(a.buffer_uses.begin(), a.buffer_uses.end(), b.buffer_uses.begin(),
                                    b.buffer_uses.end(), [](const BufferUse& u, const BufferUse& v) {
                                      return u.node == v.node && u.field == v.field && u.alloc_node == v.alloc_node &&
                                             u.levels == v.levels;
                                    });
  if (!same_uses) {
    return refusal(UpdateStatus::topology_changed, std::nullopt,
                   fmt::format("{}memset or memcpy nodes of graph {} use other graph buffers in the template", ctx,
                               quoted(b.name)));
  }
  const bool same_peers = std::equal(a.peer_copies.begin(), a.peer_copies.end(), b.peer_copies.begin(),
                                     b.peer_copies.end(), [](const PeerCopy& u, const PeerCopy& v) {
                                       return u.node == v.node && u.src_device == v.src_device &&
                                              u.dst_device == v.dst_device;
                                     });
  if (!same_peers) {
    return refusal(UpdateStatus::not_supported, std::nullopt,
                   fmt::format("{}the peer copies of graph {} (add_memcpy_peer) copy between other devices in the "
                               "template; CUDA cannot move a copy to other devices",
                               ctx, quoted(b.name)));
  }
  if (auto r = compare_parameters(a, b, ctx)) return r;
  if (a.conditions.size() != b.conditions.size()) {
    return refusal(UpdateStatus::topology_changed, std::nullopt,
                   fmt::format("{}graph {} declares {} conditions in the template, {} in the executable", ctx,
                               quoted(b.name), b.conditions.size(), a.conditions.size()));
  }
  return std::nullopt;
}

/// Compares node i of `a` and `b` (compare_shape's loop body): kind, device, the kind's own
/// structure (CompareOps::compare_shape) and edges; with `out`, lists it as changed or renamed.
std::optional<UpdateResult> compare_node(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                         const std::string& ctx, const DiffOut* out, EdgeMarks& marks) {
  const NodeData& x = a.nodes[i];
  const NodeData& y = b.nodes[i];
  if (x.removed != y.removed) {  // Graph::remove_node: the node is in one plan only
    const NodeInfo there = y.removed != 0 ? a.info(i) : b.info(i);
    return refusal(UpdateStatus::topology_changed, there,
                   fmt::format("{}{} {}", ctx, there.describe(),
                               y.removed != 0 ? "was removed from the template"
                                              : "is in the template but was removed from the executable's plan"));
  }
  if (x.kind != y.kind) {
    return refusal(UpdateStatus::node_type_changed, b.info(i),
                   fmt::format("{}node #{} is a {} node in the executable but a {} node in the template", ctx, i,
                               to_string(x.kind), to_string(y.kind)));
  }
  if (x.device != y.device) {
    return refusal(UpdateStatus::not_supported, b.info(i),
                   fmt::format("{}{} is placed on device {} in the executable but on device {} in the template; CUDA "
                               "cannot move a node to another device",
                               ctx, b.info(i).describe(), x.device, y.device));
  }
  const CompareOps& ops = compare_ops(x.kind);
  if (ops.compare_shape != nullptr && !ops.after_edges) {
    if (auto r = ops.compare_shape(a, b, i, ctx)) return r;
  }
  if (x.preds != y.preds) {
    if (auto r = missing_edge(a, "executable", b, "template", b, i, ctx, marks)) return r;
    if (auto r = missing_edge(b, "template", a, "executable", b, i, ctx, marks)) return r;
  }
  if (ops.compare_shape != nullptr && ops.after_edges) {
    if (auto r = ops.compare_shape(a, b, i, ctx)) return r;
  }
  if (out != nullptr) {
    if (!ops.same_params(a, x.payload, b, y.payload)) out->changed->push_back(i);
    if (a.node_name(i) != b.node_name(i)) out->renamed->push_back(i);
  }
  return std::nullopt;
}

/// The same edges (compared node by node); now the same kinds of edge (programmatic, launch
/// completion).
std::optional<UpdateResult> compare_edge_kinds(const GraphImpl& a, const GraphImpl& b, const std::string& ctx) {
  if (a.edge_kinds.size() != b.edge_kinds.size() ||
      !std::equal(a.edge_kinds.begin(), a.edge_kinds.end(), b.edge_kinds.begin(),
                  [](const EdgeKindData& p, const EdgeKindData& q) {
                    return p.from == q.from && p.to == q.to && p.kind == q.kind;
                  })) {
    for (const GraphImpl* g : {&a, &b}) {
      for (const EdgeKindData& e : g->edge_kinds) {
        const EdgeKind in_a = edge_kind(a, e.from, e.to), in_b = edge_kind(b, e.from, e.to);
        if (in_a == in_b) continue;
        return refusal(UpdateStatus::topology_changed, b.info(e.to),
                       fmt::format("{}edge {} -> {} is {} in the executable but {} in the template; CUDA cannot "
                                   "change the kind of an edge in place",
                                   ctx, b.info(e.from).ref(), b.info(e.to).ref(), to_string(in_a), to_string(in_b)));
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, const std::string& ctx,
                                          const DiffOut* out) {
  if (auto r = compare_plan_tables(a, b, ctx)) return r;
  for (std::size_t k = 0; out != nullptr && k < a.conditions.size(); ++k) {
    if (a.conditions[k].default_value != b.conditions[k].default_value ||
        a.conditions[k].assign_default != b.conditions[k].assign_default) {
      *out->conditions_changed = true;
    }
  }
  // Block by block: a block of identical kernel nodes is shown so wholesale (src/kinds/kernel_diff.cpp);
  // any other block, node by node, so that what is reported is what the node-by-node compare finds.
  const auto n = static_cast<std::uint32_t>(a.nodes.size());
  EdgeMarks marks;
  const std::vector<std::uint8_t> same = shared_block_compare(a, b);  // empty: compared here, block by block
  for (std::uint32_t lo = 0; lo < n; lo += diff_block) {
    const std::uint32_t hi = std::min(n, lo + diff_block);
    if (same.empty() ? same_kernel_block(a, b, lo, hi) : same[lo / diff_block] != 0) continue;
    for (std::uint32_t i = lo; i < hi; ++i) {
      if (out != nullptr && same_plain_kernel(a, b, i, out)) continue;
      if (auto r = compare_node(a, b, i, ctx, out, marks)) return r;
    }
  }
  return compare_edge_kinds(a, b, ctx);
}

// ---- parameters --------------------------------------------------------------------------------

bool same_dims(const dim3& x, const dim3& y) { return x.x == y.x && x.y == y.y && x.z == y.z; }

/// Priority and launch attributes: what per-node setters cannot patch.
bool same_attributes(const Launch& x, const Launch& y) {
  return x.priority == y.priority && same_dims(x.cluster, y.cluster) && x.cooperative == y.cooperative &&
         x.sync_domain == y.sync_domain && x.device_updatable == y.device_updatable && x.l2.bytes == y.l2.bytes &&
         (x.l2.bytes == 0 || (x.l2.base == y.l2.base && x.l2.hit_ratio == y.l2.hit_ratio && x.l2.hit == y.l2.hit &&
                              x.l2.miss == y.l2.miss));
}

/// A setter's launch keeps the node's launch attributes: CUDA patches a kernel node's grid, block,
/// shared memory and arguments, not its attributes. @throws UsageError naming the node.
void check_setter_attributes(const GraphImpl& a, std::uint32_t i, const Launch& recorded, const Launch& given) {
  Launch with_priority = given;
  with_priority.priority = recorded.priority;  // a setter's priority is ignored (documented)
  if (!same_attributes(recorded, with_priority)) {
    throw UsageError(fmt::format(
        "{}: a setter's launch has other launch attributes (cluster, cooperative, sync "
        "domain, L2 window, device-updatable) than the node's; CUDA cannot patch them on one node: give the "
        "node's own attributes, or update the executable from a plan (whole graph)",
        a.info(i).describe()));
  }
}

/// "cluster (2,1,1), cooperative" / "no cluster, not cooperative" (update refusals).
std::string launch_attributes_text(const Launch& l) {
  return fmt::format("{}, {}",
                     l.cluster.x != 0 ? fmt::format("cluster ({},{},{})", l.cluster.x, l.cluster.y, l.cluster.z)
                                      : std::string("no cluster"),
                     l.cooperative ? "cooperative" : "not cooperative");
}

bool same_params(const GraphImpl& a, const GraphImpl& b, std::uint32_t i) {
  return compare_ops(a.nodes[i].kind).same_params(a, a.nodes[i].payload, b, b.nodes[i].payload);
}

/// A deep copy of plan `g`: its child plans and conditional bodies are copied too, not shared.
std::shared_ptr<const GraphImpl> own_copy(const GraphImpl& g) {
  auto c = std::make_shared<GraphImpl>(g);
  each_nested_slot(*c, [](std::shared_ptr<const GraphImpl>& p) { p = own_copy(*p); });
  return c;
}

namespace {

/// True when two plans of the same shape have the same graph and node names, nested plans included.
bool same_names(const GraphImpl& a, const GraphImpl& b) {
  if (&a == &b) return true;
  if (a.name != b.name) return false;
  for (std::uint32_t i = 0; i < a.nodes.size(); ++i) {
    if (a.node_name(i) != b.node_name(i)) return false;
    const NestedSlots na = nested_slots(a, i), nb = nested_slots(b, i);
    for (std::size_t k = 0; k < na.size(); ++k) {
      if (!same_names(na[k], nb[k])) return false;
    }
  }
  return true;
}

}  // namespace

/// Gives node i of the recorded plan `a` the names inside the template's child plan or bodies
/// (node i's parameters are the same in both: only names differ).
void take_nested_names(GraphImpl& a, const GraphImpl& t, std::uint32_t i) {
  const NestedSlots na = nested_slots(a, i), nt = nested_slots(t, i);
  for (std::size_t k = 0; k < na.size(); ++k) {
    if (!same_names(na[k], nt[k])) na.first[k] = own_copy(nt[k]);
  }
}

SavedParams SavedParams::save(const GraphImpl& g, std::uint32_t i, bool own) {
  SavedParams s;
  const NodeData& n = g.nodes[i];
  s.kind = n.kind;
  compare_ops(n.kind).save(s, g, n.payload, own);
  return s;
}

void SavedParams::restore(GraphImpl& g, std::uint32_t i) const {
  const NodeData& n = g.nodes[i];
  compare_ops(n.kind).restore(*this, g, n.payload);
}

/// The shape check and the lists of changed and renamed nodes, in one pass. Unchanged nodes equal
/// nodes of the recorded plan, which was validated when compiled, and an equal shape is acyclic, so
/// only the changed nodes' parameters are checked again.
UpdateResult plan_diff(const GraphImpl& a, const GraphImpl& t, std::vector<std::uint32_t>* renamed,
                       bool* conditions_changed) {
  UpdateResult result;
  const DiffOut out{&result.changed, renamed, conditions_changed};
  if (auto r = compare_shape(a, t, {}, &out)) return std::move(*r);
  try {
    const bool nested = std::any_of(result.changed.begin(), result.changed.end(),
                                    [&](std::uint32_t i) { return compare_ops(t.nodes[i].kind).nested; });
    if (nested) {
      (void)check_plan(t);  // changed nested plans are checked with their scopes
    } else {
      for (std::uint32_t i : result.changed) check_node(t, i);
    }
  } catch (const UsageError& e) {
    return refusal(UpdateStatus::invalid_template, std::nullopt, without_prefix(e));
  }
  return result;
}

}  // namespace detail

UpdateResult diff(const Graph& current, const Graph& templ) {
  std::vector<std::uint32_t> renamed;
  bool conditions_changed = false;
  const detail::GraphImpl& a = current.impl();
  const detail::GraphImpl& t = templ.impl();
  UpdateResult r = detail::plan_diff(a, t, &renamed, &conditions_changed);
  r.patched = 0;
  if (r) {
    if (auto refused = detail::child_rebuild_refusal(a, t, r.changed)) return std::move(*refused);
  }
  if (r && detail::needs_exec_update(a, t, r.changed, conditions_changed)) {
    // update() refuses it under every policy (per-node setters cannot make it, cudaGraphExecUpdate
    // cannot take the plan), with automatic's status and reason
    if (auto refused = detail::whole_graph_refusal(a)) return std::move(*refused);
  }
  if (r && conditions_changed) {
    // Not a node, so not in `changed`; but update() applies it (cudaGraphExecUpdate), so the
    // verdict must not read "nothing to update".
    for (std::size_t k = 0; k < a.conditions.size(); ++k) {
      const detail::ConditionData& x = a.conditions[k];
      const detail::ConditionData& y = t.conditions[k];
      if (x.default_value == y.default_value && x.assign_default == y.assign_default) continue;
      r.reason = fmt::format("condition #{} of graph {} changes its default ({}{} to {}{})", k, detail::quoted(t.name),
                             x.default_value, x.assign_default ? "" : ", not assigned", y.default_value,
                             y.assign_default ? "" : ", not assigned");
      break;
    }
  }
  return r;
}

// ---- Graph::fingerprint ------------------------------------------------------------------------

namespace detail {
namespace {

void fingerprint_into(Fnv& f, const GraphImpl& g, FingerprintMemo& memo);

/// Hashes node n of g: kind, device, the kind's own structure (CompareOps::fingerprint) and edges.
void fingerprint_node(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& memo,
                      std::vector<std::uint32_t>& preds) {
  const NodeData& n = g.nodes[i];
  f.add(n.kind);
  f.add(n.device);
  if (n.removed != 0) f.add(std::uint8_t{0xeu});  // a tombstone is not an empty node
  const CompareOps& ops = compare_ops(n.kind);
  if (ops.fingerprint != nullptr && !ops.after_edges) ops.fingerprint(f, g, i, memo);
  preds.assign(n.preds.begin(), n.preds.end());
  std::sort(preds.begin(), preds.end());
  f.add(preds.size());
  f.add(preds.data(), preds.size() * sizeof(std::uint32_t));
  if (ops.fingerprint != nullptr && ops.after_edges) ops.fingerprint(f, g, i, memo);
}

/// Hashes everything compare_shape() compares, so that equal fingerprints mean update-compatible
/// plans (graph memory included: buffer uses, allocation sizes and devices, the buffer each free
/// frees).
void fingerprint_into(Fnv& f, const GraphImpl& g, FingerprintMemo& memo) {
  f.add(g.nodes.size());
  f.add(g.conditions.size());
  for (const auto& u : g.buffer_uses) {
    f.add(u.node);
    f.add(u.field);
    f.add(u.alloc_node);
    f.add(u.levels);
  }
  for (const auto& p : g.peer_copies) {
    f.add(p.node);
    f.add(p.src_device);
    f.add(p.dst_device);
  }
  for (const auto& e : g.edge_kinds) {
    f.add(e.from);
    f.add(e.to);
    f.add(e.kind);
  }
  f.add(g.params.size());
  for (const auto& p : g.params) {  // which places are parameters (structure), not values or names
    f.add(p.type->size);
    f.add(p.declared);
    f.add(p.nested.size());
    for (const auto& u : p.nested) {
      f.add(u.node);
      f.add(u.slot);
      f.add(u.entry);
    }
    f.add(p.uses.size());
    for (const auto& u : p.uses) {
      f.add(u.node);
      f.add(u.offset);
      f.add(u.position);
      f.add(u.place);
    }
  }
  std::vector<std::uint32_t> preds;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) fingerprint_node(f, g, i, memo, preds);
}

}  // namespace

void add_nested(Fnv& f, const GraphImpl& g, FingerprintMemo& memo) {
  auto it = memo.hashes.find(&g);
  if (it == memo.hashes.end()) {
    Fnv inner;
    fingerprint_into(inner, g, memo);
    it = memo.hashes.emplace(&g, inner.h).first;
  }
  f.add(it->second);
}

}  // namespace detail

std::uint64_t Graph::fingerprint() const {
  detail::Fnv f;
  detail::FingerprintMemo memo;
  detail::fingerprint_into(f, impl(), memo);
  return f.h;
}

}  // namespace graphdsl
