// src/kinds/child.cpp — the child node kind (Graph::add_child): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <memory>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/nested_buffers.hpp"

namespace graphdsl {

ChildNode Graph::add_child(const Graph& child) { return add_child_copy(child, detail::has_open_buffers(child.impl())); }

ChildNode Graph::add_child_copy(const Graph& child, bool open_buffers) {
  const auto& c = child.impl();
  auto copy = std::make_shared<detail::GraphImpl>(c);  // before embed: `child` may be this plan
  auto& g = impl();
  // Buffers of this plan (or of the plan a body is built in) used by the child: resolved in the copy.
  if (open_buffers) detail::resolve_embedded_buffers(*copy, g);
  Change change(*this);
  g.embed({copy.get()}, true, "add_child");
  const detail::GraphImpl& inner = *copy;
  g.children.push_back(std::move(copy));
  const ChildNode node(g.push(NodeKind::child, g.children.size() - 1));
  detail::adopt_parameters(g, node.index(), 0, inner);
  change.commit();
  return node;
}

ChildNode Graph::add_child(Graph&& child) {
  detail::GraphImpl& c = child.impl();
  auto& g = impl();
  // A child that uses buffers of an enclosing plan is resolved in a copy (all or none).
  const bool open_buffers = detail::has_open_buffers(c);
  if (&c == &g || c.parent != nullptr || open_buffers) return add_child_copy(child, open_buffers);
  detail::own_parameter_plans(c);  // as a copy does: Executable::set writes into nested plans that use parameters
  Change change(*this);
  g.embed({&c}, true, "add_child");
  g.children.emplace_back();  // filled last, once nothing can fail: a failure leaves `child` as it was
  const ChildNode node(g.push(NodeKind::child, g.children.size() - 1));
  detail::adopt_parameters(g, node.index(), 0, c);
  std::unique_ptr<detail::GraphImpl> taken(child.impl_.release());
  try {
    g.children.back() = std::shared_ptr<const detail::GraphImpl>(std::move(taken));
  } catch (...) {  // the control block: `taken` still owns the plan
    child.impl_ = decltype(child.impl_)(taken.release());
    throw;
  }
  c.sealed = detail::Sealed::child;  // copies of this plan share it: its handles no longer change it
  change.commit();
  return node;
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <fmt/format.h>

#include "plan/plan_access.hpp"
#include "plan/replace.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

/// What CUDA cannot embed in a child graph (graph allocations, conditional nodes), then the child
/// plan itself, with its scope.
void check_child_scoped(const ScopedNode& node) {
  const GraphImpl& g = node.g;
  const std::uint32_t i = node.i;
  const GraphImpl& c = child_plan(g, i);
  for (NodeKind forbidden : {NodeKind::mem_alloc, NodeKind::mem_free}) {
    if (c.holds(forbidden)) {
      fail(g, i, node.ctx,
           fmt::format("child plan {} contains a {} node; CUDA cannot embed graph allocations in a "
                       "child graph by copy (allocate in the enclosing plan instead)",
                       quoted(c.name), to_string(forbidden)));
    }
  }
  if (c.holds(NodeKind::conditional)) {
    fail(g, i, node.ctx,
         fmt::format("child plan {} contains a conditional node; CUDA cannot embed conditional nodes "
                     "in a child graph (add the conditional to the enclosing plan instead)",
                     quoted(c.name)));
  }
  check_nested_plan(c, fmt::format("{}in {} of graph {}: ", node.ctx, g.info(i).describe(), quoted(g.name)), node);
}

/// A setter's child plan has the node's shape.
void check_child_replacement(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) {
  check_child_shape(a, i, child_plan(s, 0));
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::child {
// No rule of its own on the node: the child plan is checked by check_plan, with its scope.
const RuleOps rules{
    /*check=*/nullptr,         /*not_placeable=*/"a child plan places its own nodes (call on_device on them)",
    /*in_body=*/true,          /*check_scoped=*/&rule::check_child_scoped,
    /*kinded_edges=*/false,    /*check_replacement=*/&rule::check_child_replacement,
    /*nested_in_plan=*/true,   /*inert=*/false,
    /*recount_on_remove=*/true};
}  // namespace graphdsl::detail::kinds::child

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include <fmt/format.h>

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// The accesses of the child plan, analysed first.
void child_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  add_nested(level, i, -1,
             analyze(*g.children[n.payload], fmt::format("in {} of graph '{}'", level.info(i).describe(), g.name),
                     &c.here, &level));
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::child {
const RaceOps races{&race::child_accesses};
}  // namespace graphdsl::detail::kinds::child

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::child {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

bool same_params(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb) {
  const GraphImpl& ca = *a.children[pa];
  const GraphImpl& cb = *b.children[pb];
  if (&ca == &cb) return true;
  for (std::uint32_t k = 0; k < ca.nodes.size(); ++k) {
    if (!detail::same_params(ca, cb, k)) return false;
  }
  return true;
}

/// The child plans have the same shape (compared after the node's edges).
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const std::uint32_t pa = a.nodes[i].payload, pb = b.nodes[i].payload;
  if (a.children[pa] == b.children[pb]) return std::nullopt;
  const std::string inner = fmt::format("{}in {}: ", ctx, b.info(i).describe());
  if (auto r = detail::compare_shape(*a.children[pa], *b.children[pb], inner)) {
    r->node = b.info(i);  // the top-level node; the reason names the inner one
    r->from_node.reset();
    if (r->status == UpdateStatus::node_type_changed) r->status = UpdateStatus::topology_changed;
    return r;
  }
  return std::nullopt;
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool own) {
  s.child = own ? own_copy(*g.children[payload]) : g.children[payload];
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) { g.children[payload] = s.child; }

/// Slot 0: the child plan.
NestedSlots nested_slots(GraphImpl& g, std::uint32_t payload) { return {&g.children[payload], 1}; }

/// A new child plan that cannot be rebuilt in an executable (child_rebuild_refusal).
std::optional<UpdateResult> change_refusal(const GraphImpl& a, const GraphImpl& t, std::uint32_t i) {
  return child_rebuild_refusal(a, i, child_plan(t, i));
}

void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& memo) {
  const std::uint32_t payload = g.nodes[i].payload;
  add_nested(f, *g.children[payload], memo);
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/compare_fns::same_params,
                         /*compare_shape=*/compare_fns::compare_shape,
                         /*fingerprint=*/compare_fns::fingerprint,
                         /*after_edges=*/true,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/true,
                         /*needs_whole_update=*/nullptr,
                         /*nested_slots=*/compare_fns::nested_slots,
                         /*change_refusal=*/compare_fns::change_refusal};
}  // namespace graphdsl::detail::kinds::child

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"

namespace graphdsl::detail::kinds::child {
namespace describing {
namespace {

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams&) {
  const auto& c = *g.children[g.nodes[i].payload];
  return fmt::format("graph {}, {} nodes, {} edges", detail::quoted(c.name), c.nodes.size(), c.edge_count);
}

void dump_nested(std::string& out, const detail::GraphImpl& g, std::uint32_t i, const std::string& indent) {
  dump_into(out, *g.children[g.nodes[i].payload], indent + "    ");
}

void dot_nested(std::string& out, const detail::GraphImpl& g, std::uint32_t i, const std::string& prefix,
                const std::string& indent) {
  dot_cluster(out, *g.children[g.nodes[i].payload], fmt::format("{}{}", prefix, i), fmt::format("{}{}_", prefix, i),
              indent);
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, nullptr, "box3d", &describing::dump_nested, &describing::dot_nested};

}  // namespace graphdsl::detail::kinds::child

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/detail/config.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "plan/counters.hpp"

namespace graphdsl::detail::kinds::child {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const GraphImpl& c = *g.children[g.nodes[i].payload];
  NativeGraph inner = create_native_graph();
  builder.build_nested(i, 0, c, inner.get(),
                       fmt::format("in {} of graph {}{}", g.info(i).describe(), quoted(g.name),
                                   builder.where_.empty() ? "" : " " + builder.where_));
  AddedNode out;
  if (c.params.empty()) {
    out.api = "cudaGraphAddChildGraphNode";
    out.rc = cuda_try(cudaGraphAddChildGraphNode, &out.node, graph, deps.data(), deps.size(),
                      inner.get());  // clones `inner`
    return out;
  }
  // A child plan that uses parameters: its graph is moved into the node, so that the native nodes
  // build_nested recorded are the embedded graph's, which Executable::set patches.
#if GRAPHDSL_CUDA_13
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeGraph;
  p.graph.graph = inner.get();
  p.graph.ownership = cudaGraphChildGraphOwnershipMove;
  out.api = "cudaGraphAddNode";
  out.rc = cuda_try(cudaGraphAddNode, &out.node, graph, deps.data(), static_cast<const cudaGraphEdgeData*>(nullptr),
                    deps.size(), &p);
  if (out.rc == cudaSuccess) {
    (void)inner.release();  // the parent graph owns and destroys it
    counters().native_graphs.fetch_sub(1);
  }
#else
  out.api = "cudaGraphAddNode";
  out.rc = cudaErrorNotSupported;
  out.hint = "a child plan that uses parameters needs CUDA 13 (cudaGraphChildGraphOwnershipMove)";
#endif
  return out;
}

/// The child plan's nodes, as the plan's own.
void check_devices(const GraphImpl& g, std::uint32_t i, int count, int current) {
  check_devices_in(*g.children[g.nodes[i].payload], count, current);
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, /*may_keep=*/true, &building::check_devices,
                     /*device_launch=*/true};

}  // namespace graphdsl::detail::kinds::child

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

#include "exec/patch.hpp"
#include "graphdsl/error.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail {

Applied apply_child_plan(ExecImpl& x, std::uint32_t i, Materialized& m) {
  const GraphImpl& g = recorded_plan(x);
  const GraphImpl& c = *g.children[g.nodes[i].payload];
  try {
    // From a template of the plan's shape (update()): its buffers are the executable's by position.
    m = detail::materialize(c, detail::check_child_plan(c, g, true), x.sink, &x.native.dptrs);
  } catch (const CudaError& e) {
    return {e.code(), "cudaGraphAdd*Node (child plan)"};
  }
  return set_child_node(x, i, m.graph.get());
}

namespace kinds::child {
namespace patch_fns {  // this section's functions (a namespace of their own: sections share the file)

Applied apply(ExecImpl& x, std::uint32_t i) {
  Materialized m;  // destroyed once set: the executable holds its own copy of the graph
  return apply_child_plan(x, i, m);
}

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, nullptr, nullptr};
}  // namespace kinds::child
}  // namespace graphdsl::detail

// ==== end patch ====
