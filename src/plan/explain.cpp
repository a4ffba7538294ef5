// src/plan/explain.cpp — graphdsl::explain: why two plans of one shape differ, field by field, in the
// user's node names (graphdsl/update.hpp). Each kind says what differs in its nodes through the kind
// table (DescribeOps::change); a kind without it is described by its dump lines.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/graph.hpp"
#include "graphdsl/update.hpp"
#include "plan/graph_impl.hpp"
#include "plan/kind_describe.hpp"

namespace graphdsl {
namespace detail {
namespace {

std::string summary(const GraphImpl& g, std::uint32_t i) {
  const auto fn = describe_ops(g.nodes[i].kind).summary;
  return fn != nullptr ? fn(g, i, NodeParams{}) : std::string("(no parameters)");
}

/// What differs in node i (of one kind in both plans).
std::string change(const GraphImpl& a, const GraphImpl& t, std::uint32_t i) {
  if (const auto fn = describe_ops(a.nodes[i].kind).change) return fn(a, t, i);
  return fmt::format("'{}' -> '{}'", summary(a, i), summary(t, i));
}

}  // namespace
}  // namespace detail

std::vector<NodeChange> explain(const Graph& current, const Graph& templ) {
  const UpdateResult r = diff(current, templ);
  const detail::GraphImpl& a = current.impl();
  const detail::GraphImpl& t = templ.impl();
  if (r.status == UpdateStatus::function_changed && r.node && r.node->index < a.nodes.size() &&
      r.node->index < t.nodes.size()) {  // the refusal names the node; its kind says which functions
    return {NodeChange{r.node, detail::change(a, t, r.node->index)}};
  }
  if (!r) return {NodeChange{r.node, r.reason}};
  std::vector<NodeChange> out;
  out.reserve(r.changed.size() + 1);
  for (const std::uint32_t i : r.changed) out.push_back(NodeChange{a.info(i), detail::change(a, t, i)});
  if (!r.reason.empty() && r.changed.empty()) out.push_back(NodeChange{std::nullopt, r.reason});
  return out;
}

}  // namespace graphdsl
