// src/kinds/child.cpp — the child node kind (Graph::add_child): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"

namespace graphdsl {

ChildNode Graph::add_child(const Graph& child) {
  const auto& c = child.impl();
  if (!c.params.empty()) {
    throw UsageError(fmt::format("add_child: graph {} declares {} parameter{} (the first: {}); a child plan cannot hold "
                                 "parameters: Executable::set patches nodes of the top-level plan only (graphdsl's "
                                 "per-node setters do not reach the nodes of a child graph)",
                                 detail::quoted(c.name), c.params.size(), c.params.size() == 1 ? "" : "s",
                                 c.param_ref(0)));
  }
  auto copy = std::make_shared<const detail::GraphImpl>(c);  // before embed: `child` may be this plan
  auto& g = impl();
  g.embed({copy.get()}, true, "add_child");
  g.children.push_back(std::move(copy));
  return ChildNode(g.push(NodeKind::child, g.children.size() - 1));
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::child {
// No rule of its own: the child plan is checked by check_plan, with its scope.
const RuleOps rules{nullptr, "a child plan places its own nodes (call on_device on them)", true};
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

namespace graphdsl::detail::kinds::child {
const CompareOps compare{};
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

#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail::kinds::child {
namespace building {
namespace {

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const GraphImpl& c = *g.children[g.nodes[i].payload];
  NativeGraph inner = create_native_graph();
  std::vector<cudaGraphNode_t> inner_nodes;
  HostSlots* const outer = std::exchange(builder.slots_, nullptr);  // only top-level slots are recorded
  const std::string outer_where = builder.where_;
  builder.where_ = fmt::format("in {} of graph {}{}", g.info(i).describe(), quoted(g.name),
                               outer_where.empty() ? "" : " " + outer_where);
  builder.build(c, inner.get(), creation_order(c), inner_nodes);
  builder.where_ = outer_where;
  builder.slots_ = outer;
  AddedNode out;
  out.api = "cudaGraphAddChildGraphNode";
  out.rc = cuda_try(cudaGraphAddChildGraphNode, &out.node, graph, deps.data(), deps.size(),
                    inner.get());  // clones `inner`
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, true};

}  // namespace graphdsl::detail::kinds::child

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::child {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::child

// ==== end patch ====
