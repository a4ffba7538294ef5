// src/plan/edit.cpp — taking edges out of a plan: Graph::remove_edge and Graph::set_predecessors.
// Plans grow through add_* and after(); these two let a plan's dependencies be edited in place. No
// CUDA call.
#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/graph_build.hpp"
#include "plan/graph_impl.hpp"
#include "plan/rules.hpp"

namespace graphdsl {

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

}  // namespace graphdsl
