// src/profile/node_map.cpp — from an executable's native graph to its plan nodes (node_map.hpp).
#include "profile/node_map.hpp"

#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "native/cuda_call.hpp"
#include "native/kind_build.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"
#include "profile/cupti.hpp"

namespace graphdsl::detail {
namespace {

/// The nodes of `graph` in the order the driver lists them (the order they were created in).
std::vector<cudaGraphNode_t> graph_nodes(cudaGraph_t graph) {
  std::size_t n = 0;
  GRAPHDSL_CHECK(cudaGraphGetNodes, graph, static_cast<cudaGraphNode_t*>(nullptr), &n);
  std::vector<cudaGraphNode_t> out(n);
  if (n != 0) GRAPHDSL_CHECK(cudaGraphGetNodes, graph, out.data(), &n);
  out.resize(n);
  return out;
}

/// The graph embedded in a child-graph node, or null when `node` is of another type.
cudaGraph_t embedded_graph(cudaGraphNode_t node) {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  GRAPHDSL_CHECK(cudaGraphNodeGetType, node, &type);
  if (type != cudaGraphNodeTypeGraph) return nullptr;
  cudaGraph_t g = nullptr;
  GRAPHDSL_CHECK(cudaGraphChildGraphNodeGetGraph, node, &g);
  return g;
}

/// One plan level being mapped: the plan, where its nodes are, and its entries.
struct Level {
  const GraphImpl& plan;
  const std::vector<cudaGraphNode_t>& natives;  ///< per plan node
  cudaGraph_t graph;                            ///< the graph they are in (null: not known)
  std::uint32_t layout;                         ///< its Materialized::layouts entry (unresolved: top level)
  bool cloned;                                  ///< inside a child graph CUDA cloned: layouts below do not apply
  const std::vector<std::int32_t>& entries;     ///< per plan node, its entry (-1: removed, none)
};

class Mapper {
 public:
  Mapper(const Materialized& m, NodeMap& out) : m_(m), out_(out) {
    for (std::uint32_t e = 0; e < m.layouts.size(); ++e) {
      const NestedLayout& l = m.layouts[e];
      keys_.emplace(std::make_tuple(l.parent, l.node, l.slot), e);
    }
  }

  /// Adds the entries of plan `g` (embedded in entry `parent`, body `slot`), then maps its nodes.
  void level(const GraphImpl& g, const std::vector<cudaGraphNode_t>& natives, cudaGraph_t graph, std::uint32_t layout,
             bool cloned, std::int32_t parent, std::uint32_t slot, const std::string& prefix) {
    std::vector<std::int32_t> entries(node_count(g), -1);  // a removed node (Graph::remove_node) has none
    auto next = static_cast<std::int32_t>(out_.nodes.size());
    for (std::uint32_t i = 0; i < node_count(g); ++i) {
      if (!removed(g, i)) entries[i] = next++;
    }
    for (std::uint32_t i = 0; i < node_count(g); ++i) {
      if (removed(g, i)) continue;
      ProfileNode n;
      const NodeInfo info = g.info(i);
      n.name = info.name;
      n.path = prefix + (info.name.empty() ? fmt::format("#{}", i) : info.name);
      n.kind = info.kind;
      n.graph = info.graph;
      n.index = i;
      n.parent = parent;
      n.slot = slot;
      for (std::uint32_t p : predecessors(g, i)) n.after.push_back(static_cast<std::uint32_t>(entries[p]));
      out_.nodes.push_back(std::move(n));
    }
    const Level lv{g, natives, graph, layout, cloned, entries};
    for (std::uint32_t i = 0; i < node_count(g); ++i) {
      if (!removed(g, i)) node(lv, i);
    }
    if (graph != nullptr) captured_inline(lv);
  }

 private:
  std::uint64_t id_of(cudaGraphNode_t n) {
    std::uint64_t id = 0;
    GRAPHDSL_CUPTI(cuptiGetGraphNodeId, n, &id);
    return id;
  }

  /// Native node `n` (and, for a child-graph node, every node under it) ran work of entry `e`.
  void attribute(cudaGraphNode_t n, std::int32_t e) {
    const std::uint64_t id = id_of(n);
    out_.by_id[id] = e;
    out_.nodes[static_cast<std::size_t>(e)].node_ids.push_back(id);
    if (cudaGraph_t inner = embedded_graph(n)) {
      for (cudaGraphNode_t c : graph_nodes(inner)) attribute(c, e);
    }
  }

  std::uint32_t layout_of(std::uint32_t parent, std::uint32_t node, std::uint32_t slot) const {
    const auto it = keys_.find(std::make_tuple(parent, node, slot));
    return it == keys_.end() ? ConditionRef::unresolved : it->second;
  }

  void node(const Level& lv, std::uint32_t i) {
    const std::int32_t e = lv.entries[i];
    const cudaGraphNode_t native = lv.natives[i];
    // A copy: the levels below append entries to out_.nodes, which moves the strings it holds.
    const std::string path = out_.nodes[static_cast<std::size_t>(e)].path;
    if (native == nullptr) {
      out_.notes.push_back(fmt::format("'{}': no native node known", path));
      return;
    }
    const std::uint64_t id = id_of(native);
    out_.by_id[id] = e;
    out_.nodes[static_cast<std::size_t>(e)].node_ids.push_back(id);
    // The plans nested in the node (nested_slots) are where its native node holds them: a child
    // plan in the graph of a child-graph node, bodies in the graphs of a conditional node.
    const NestedSlots nested = nested_slots(lv.plan, i);
    const cudaGraph_t inner = embedded_graph(native);
    if (nested.size() == 0) {
      if (inner != nullptr) {  // a captured node's own graph
        for (cudaGraphNode_t c : graph_nodes(inner)) attribute(c, e);
      }
      return;
    }
    if (inner != nullptr) return child(lv, i, e, nested[0], inner, path);
    bodies(lv, i, e, nested, path);
  }

  void child(const Level& lv, std::uint32_t i, std::int32_t e, const GraphImpl& c, cudaGraph_t embedded,
             const std::string& path) {
    const std::uint32_t l = lv.cloned ? ConditionRef::unresolved : layout_of(lv.layout, i, 0);
    if (l != ConditionRef::unresolved && m_.layouts[l].graph == embedded) {  // moved into the node
      return level(c, m_.layouts[l].nodes, embedded, l, false, e, 0, path + "/");
    }
    // Cloned by cudaGraphAddChildGraphNode: the clone lists its nodes in creation order.
    const std::vector<cudaGraphNode_t> listed = graph_nodes(embedded);
    const std::vector<std::uint32_t> order = creation_order(c);
    std::vector<cudaGraphNode_t> natives(node_count(c), nullptr);
    if (listed.size() == order.size()) {
      for (std::size_t k = 0; k < order.size(); ++k) natives[order[k]] = listed[k];
    } else {
      out_.notes.push_back(
          fmt::format("'{}': the child graph has {} native nodes for {} plan nodes (captured work "
                      "in a cloned child plan): its nodes are not mapped",
                      path, listed.size(), order.size()));
    }
    level(c, natives, nullptr, ConditionRef::unresolved, true, e, 0, path + "/");
  }

  void bodies(const Level& lv, std::uint32_t i, std::int32_t e, const NestedSlots& c, const std::string& path) {
    for (std::uint32_t b = 0; b < c.size(); ++b) {
      const std::string prefix = fmt::format("{}[{}]/", path, b);
      const std::uint32_t l = lv.cloned ? ConditionRef::unresolved : layout_of(lv.layout, i, b);
      if (l == ConditionRef::unresolved) {
        out_.notes.push_back(
            fmt::format("'{}[{}]': the body's graph is not known (a conditional node in a child "
                        "plan CUDA cloned): its nodes are not mapped",
                        path, b));
        const std::vector<cudaGraphNode_t> none(node_count(c[b]), nullptr);
        level(c[b], none, nullptr, ConditionRef::unresolved, true, e, b, prefix);
        continue;
      }
      level(c[b], m_.layouts[l].nodes, m_.layouts[l].graph, l, false, e, b, prefix);
    }
  }

  /// Nodes of lv.graph that are no plan node's: what captured nodes recorded into the graph
  /// itself, created just before the captured node's own (empty) node.
  void captured_inline(const Level& lv) {
    std::unordered_map<cudaGraphNode_t, std::uint32_t> plan_node;
    for (std::uint32_t i = 0; i < lv.natives.size(); ++i) plan_node.emplace(lv.natives[i], i);
    std::vector<cudaGraphNode_t> pending;
    for (cudaGraphNode_t n : graph_nodes(lv.graph)) {
      const auto it = plan_node.find(n);
      if (it == plan_node.end()) {
        pending.push_back(n);
        continue;
      }
      if (pending.empty()) continue;
      if (build_ops(node_kind(lv.plan, it->second)).foreign_nodes) {
        for (cudaGraphNode_t c : pending) attribute(c, lv.entries[it->second]);
      } else {
        out_.notes.push_back(fmt::format("{} native node(s) before '{}' belong to no plan node", pending.size(),
                                         out_.nodes[static_cast<std::size_t>(lv.entries[it->second])].path));
      }
      pending.clear();
    }
    if (!pending.empty()) out_.notes.push_back(fmt::format("{} native node(s) belong to no plan node", pending.size()));
  }

  const Materialized& m_;
  NodeMap& out_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> keys_;
};

}  // namespace

NodeMap map_nodes(const ExecImpl& x) {
  NodeMap out;
  Mapper mapper(x.native, out);
  mapper.level(x.plan.impl(), x.native.nodes, x.native.graph.get(), ConditionRef::unresolved, false, -1, 0, "");
  return out;
}

}  // namespace graphdsl::detail
