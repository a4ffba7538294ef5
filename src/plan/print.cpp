// src/plan/print.cpp — the text dump and the Graphviz DOT export of a plan.
//
// Both are deterministic functions of the plan: pointer values are left out (they differ between
// runs), everything else that shapes the graph is shown. What is shown of a node of each kind
// (summary, DOT shape and label lines, nested plans) is its DescribeOps, in the describe section
// of src/kinds/<kind>.cpp; the parts those share are declared in plan/print_parts.hpp.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/graph.hpp"
#include "plan/kind_describe.hpp"
#include "plan/node_params.hpp"
#include "plan/print_parts.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail {

namespace {

template <class T>
std::string as(const unsigned char* v) {
  T x{};
  std::memcpy(&x, v, sizeof x);
  return fmt::format("{}", x);
}

// A parameter value of `size` bytes at `v` as one ParamValueKind shows it; empty for a size the
// kind does not have (param_value then shows the size).
std::string floating_value(std::uint32_t size, const unsigned char* v) {
  if (size == sizeof(float)) return as<float>(v);
  if (size == sizeof(double)) return as<double>(v);
  return {};
}
std::string signed_value(std::uint32_t size, const unsigned char* v) {
  if (size == 1) return as<std::int8_t>(v);
  if (size == 2) return as<std::int16_t>(v);
  if (size == 4) return as<std::int32_t>(v);
  if (size == 8) return as<std::int64_t>(v);
  return {};
}
std::string unsigned_value(std::uint32_t size, const unsigned char* v) {
  if (size == 1) return as<std::uint8_t>(v);
  if (size == 2) return as<std::uint16_t>(v);
  if (size == 4) return as<std::uint32_t>(v);
  if (size == 8) return as<std::uint64_t>(v);
  return {};
}
std::string boolean_value(std::uint32_t, const unsigned char* v) { return v[0] != 0 ? "true" : "false"; }
std::string pointer_value(std::uint32_t, const unsigned char*) { return "(pointer)"; }
std::string other_value(std::uint32_t, const unsigned char*) { return {}; }

/// The formatter of each ParamValueKind, in the enum's order.
constexpr std::string (*value_formats[])(std::uint32_t, const unsigned char*) = {&floating_value, &signed_value,
                                                                                 &unsigned_value, &boolean_value,
                                                                                 &pointer_value,  &other_value};
static_assert(std::size(value_formats) == static_cast<std::size_t>(ParamValueKind::other) + 1);

/// A parameter value of type `t` whose bytes are at `v`: "0.01", "-3", "true"; pointers are left
/// out like every pointer of a dump ("(pointer)").
std::string param_value(const detail::ParamType& t, const unsigned char* v) {
  const auto kind = static_cast<std::size_t>(t.kind);
  const std::string s = kind < std::size(value_formats) ? value_formats[kind](t.size, v) : std::string();
  return s.empty() ? fmt::format("({} bytes)", t.size) : s;
}

/// Every parameter use of plan g, sorted by node (for a walk in node order).
NodeParams all_param_uses(const detail::GraphImpl& g) {
  NodeParams all;
  for (std::uint32_t k = 0; k < g.params.size(); ++k) {
    for (const auto& u : g.params[k].uses) all.emplace_back(k, u);
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.second.node < y.second.node; });
  return all;
}

/// The uses of node i in `all` (sorted by node), starting at `*cursor`, which moves past them.
NodeParams uses_of(const NodeParams& all, std::size_t* cursor, std::uint32_t i) {
  NodeParams out;
  while (*cursor < all.size() && all[*cursor].second.node < i) ++*cursor;
  while (*cursor < all.size() && all[*cursor].second.node == i) out.push_back(all[(*cursor)++]);
  return out;
}

}  // namespace

std::string condition_ref(const detail::ConditionRef& r) {
  if (r.levels == detail::ConditionRef::unresolved) return "(undeclared)";
  if (r.levels == 0) return fmt::format("#{}", r.index);
  return fmt::format("#{} of the plan {} level{} out", r.index, r.levels, r.levels == 1 ? "" : "s");
}

std::string param_label(const detail::GraphImpl& g, std::uint32_t k) {
  const auto& name = g.params[k].name;
  return name.empty() ? fmt::format("parameter #{}", k) : name;
}

std::string param_use_text(const detail::GraphImpl& g, std::uint32_t k, const detail::ParamUse& u) {
  const detail::NodeData& n = g.nodes[u.node];
  const detail::ParamType& t = *g.params[k].type;
  unsigned char bytes[detail::max_parameter_bytes] = {};
  if (const void* at = detail::param_bytes(g, u)) {
    std::memcpy(bytes, at, t.size);
  } else {
    const unsigned int bits = g.memsets[n.payload].value;
    std::memcpy(bytes, &bits, sizeof bits < t.size ? sizeof bits : t.size);
  }
  return fmt::format("{}={}", param_label(g, k), param_value(t, bytes));
}

void dump_into(std::string& out, const detail::GraphImpl& g, const std::string& indent) {
  for (std::uint32_t k = 0; k < g.conditions.size(); ++k) {
    const auto& c = g.conditions[k];
    out += fmt::format("{}condition #{}: default {}{}\n", indent, k, c.default_value,
                       c.assign_default ? " (assigned at each launch)" : " (set upstream)");
  }
  for (std::uint32_t k = 0; k < g.params.size(); ++k) {
    const auto& p = g.params[k];
    out += fmt::format(
        "{}parameter #{}{}: {} = {}, {} use{}{}{}\n", indent, k, p.name.empty() ? "" : " " + detail::quoted(p.name),
        p.type->name, param_value(*p.type, p.value.data()), p.uses.size(), p.uses.size() == 1 ? "" : "s",
        p.nested.empty() ? ""
                         : fmt::format(", used in {} nested plan{}", p.nested.size(), p.nested.size() == 1 ? "" : "s"),
        p.declared ? "" : " (declared outside this plan)");
  }
  const NodeParams all = all_param_uses(g);
  std::size_t cursor = 0;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const detail::NodeData& n = g.nodes[i];
    if (n.removed != 0) continue;  // removed by Graph::remove_node: shown nowhere
    const DescribeOps& ops = describe_ops(n.kind);
    out += fmt::format("{}#{} {}", indent, i, to_string(n.kind));
    if (!g.node_name(i).empty()) out += " " + detail::quoted(g.node_name(i));
    const NodeParams params = uses_of(all, &cursor, i);
    const std::string s = ops.summary != nullptr ? ops.summary(g, i, params) : std::string();
    if (!s.empty()) out += ": " + s;
    if (n.device >= 0) out += fmt::format("{}on device {}", s.empty() ? ": " : ", ", n.device);
    if (!n.preds.empty()) {
      out += "; after ";
      for (std::size_t k = 0; k < n.preds.size(); ++k) {
        out += (k ? ", " : "") + detail::node_ref(g, n.preds[k]);
        const EdgeKind kind = detail::edge_kind(g, n.preds[k], i);
        if (kind != EdgeKind::full) out += fmt::format(" ({})", to_string(kind));
      }
    }
    out += '\n';
    if (ops.dump_nested != nullptr) ops.dump_nested(out, g, i, indent);
  }
}

std::string dot_escape(const std::string& raw) {
  const std::string s = detail::escaped(raw);
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

namespace {

void dot_into(std::string& out, const detail::GraphImpl& g, const std::string& prefix, const std::string& indent) {
  const NodeParams all = all_param_uses(g);
  std::size_t cursor = 0;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const detail::NodeData& n = g.nodes[i];
    if (n.removed != 0) continue;
    const DescribeOps& ops = describe_ops(n.kind);
    const std::string label = g.node_name(i).empty() ? fmt::format("#{}", i) : g.node_name(i);
    std::string where = n.device >= 0 ? fmt::format(" @ gpu {}", n.device) : std::string();
    for (const auto& [p, u] : uses_of(all, &cursor, i)) where += "\\n" + dot_escape(param_use_text(g, p, u));
    if (ops.dot_label != nullptr) ops.dot_label(where, g, i);
    out += fmt::format("{}{}{} [label=\"{}\\n{}{}\", shape={}];\n", indent, prefix, i, dot_escape(label),
                       to_string(n.kind), where, ops.dot_shape);
  }
  for (std::uint32_t to = 0; to < g.nodes.size(); ++to) {
    for (std::uint32_t from : g.nodes[to].preds) {
      const EdgeKind kind = detail::edge_kind(g, from, to);
      out += fmt::format("{}{}{} -> {}{}{};\n", indent, prefix, from, prefix, to,
                         kind == EdgeKind::full ? std::string()
                                                : fmt::format(" [style=dashed, label=\"{}\"]", to_string(kind)));
    }
  }
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const DescribeOps& ops = describe_ops(g.nodes[i].kind);
    if (ops.dot_nested != nullptr) ops.dot_nested(out, g, i, prefix, indent);
  }
}

}  // namespace

void dot_cluster(std::string& out, const detail::GraphImpl& c, const std::string& owner, const std::string& inner,
                 const std::string& indent) {
  out += fmt::format("{}subgraph cluster_{} {{\n{}  label=\"{}\";\n{}  style=dashed;\n", indent,
                     inner.substr(0, inner.size() - 1), indent, dot_escape(c.name), indent);
  dot_into(out, c, inner, indent + "  ");
  out += indent + "}\n";
  for (std::uint32_t k = 0; k < c.nodes.size(); ++k) {
    if (c.nodes[k].preds.empty() && c.nodes[k].removed == 0) {
      out += fmt::format("{}{} -> {}{} [style=dotted, arrowhead=none];\n", indent, owner, inner, k);
    }
  }
}

}  // namespace graphdsl::detail

namespace graphdsl {

std::string Graph::dump() const {
  const auto& g = impl();
  std::string out = fmt::format("graph {}: {} nodes, {} edges\n", detail::quoted(g.name), node_count(), g.edge_count);
  detail::dump_into(out, g, "  ");
  return out;
}

std::string Graph::to_dot() const {
  const auto& g = impl();
  std::string out = fmt::format("digraph \"{}\" {{\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n",
                                detail::dot_escape(g.name));
  detail::dot_into(out, g, "n", "  ");
  out += "}\n";
  return out;
}

}  // namespace graphdsl
