// src/plan/print.cpp — the text dump and the Graphviz DOT export of a plan.
//
// Both are deterministic functions of the plan: pointer values are left out (they differ between
// runs), everything else that shapes the graph is shown.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/graph.hpp"

namespace graphdsl {

namespace {

const char* copy_kind(cudaMemcpyKind k) {
  switch (k) {
    case cudaMemcpyHostToHost: return "host-to-host";
    case cudaMemcpyHostToDevice: return "host-to-device";
    case cudaMemcpyDeviceToHost: return "device-to-host";
    case cudaMemcpyDeviceToDevice: return "device-to-device";
    case cudaMemcpyDefault: return "cudaMemcpyDefault (direction inferred by CUDA at run time)";
  }
  return "invalid";
}

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

/// A condition as the dump shows it: "#index" in this plan, or "#index of the plan n levels out".
std::string condition_ref(const detail::ConditionRef& r) {
  if (r.levels == detail::ConditionRef::unresolved) return "(undeclared)";
  if (r.levels == 0) return fmt::format("#{}", r.index);
  return fmt::format("#{} of the plan {} level{} out", r.index, r.levels, r.levels == 1 ? "" : "s");
}

/// A typed memset's value as its element type ("1.5 (float)"); the bits for add_memset_raw.
std::string memset_value(unsigned int bits, detail::ScalarType type) {
  float f = 0.0f;
  std::memcpy(&f, &bits, sizeof f);
  switch (type) {
    case detail::ScalarType::float32: return fmt::format("{} (float)", f);
    case detail::ScalarType::int8: return fmt::format("{} (int8)", static_cast<std::int8_t>(bits));
    case detail::ScalarType::uint8: return fmt::format("{} (uint8)", static_cast<std::uint8_t>(bits));
    case detail::ScalarType::int16: return fmt::format("{} (int16)", static_cast<std::int16_t>(bits));
    case detail::ScalarType::uint16: return fmt::format("{} (uint16)", static_cast<std::uint16_t>(bits));
    case detail::ScalarType::int32: return fmt::format("{} (int32)", static_cast<std::int32_t>(bits));
    case detail::ScalarType::uint32: return fmt::format("{} (uint32)", bits);
    case detail::ScalarType::raw: break;
  }
  return fmt::format("0x{:x}", bits);
}

/// A kernel's placeholder argument: ", sets condition #0" or ", argument 2: buffer of 'tmp'" (the
/// mem_alloc node that allocates it; arguments count from 1).
std::string placeholder_arg(const detail::GraphImpl& g, const detail::KernelData& k, const detail::KernelPlaceholder& p) {
  if (p.kind == detail::PlaceholderKind::condition) return fmt::format(", sets condition {}", condition_ref(p.ref));
  std::uint32_t arg = 0;
  while (arg + 1 < k.layout->count && k.layout->offsets[arg] != p.offset) ++arg;
  if (p.ref.levels == detail::ConditionRef::unresolved) {
    return fmt::format(", argument {}: a graph buffer of another plan", arg + 1);
  }
  return fmt::format(", argument {}: buffer of {}", arg + 1, g.info(p.ref.index).ref());
}

/// A kernel's launch attributes for dumps and DOT labels: ", cluster (2,1,1), cooperative, ...";
/// empty when it has none.
std::string attributes_text(const Launch& l) {
  std::string s;
  if (l.cluster.x != 0) s += fmt::format(", cluster {}", dims(l.cluster));
  if (l.cooperative) s += ", cooperative";
  if (l.sync_domain != MemSyncDomain::default_domain) s += fmt::format(", sync domain {}", to_string(l.sync_domain));
  if (l.l2.bytes != 0) {
    s += fmt::format(", L2 window {} B hit {:g} {}/{}", l.l2.bytes, l.l2.hit_ratio, to_string(l.l2.hit),
                     to_string(l.l2.miss));
  }
  return s;
}

/// A parameter value of type `t` whose bytes are at `v`: "0.01", "-3", "true"; pointers are left
/// out like every pointer of a dump ("(pointer)").
std::string param_value(const detail::ParamType& t, const unsigned char* v) {
  auto as = [v](auto x) {
    std::memcpy(&x, v, sizeof x);
    return fmt::format("{}", x);
  };
  switch (t.kind) {
    case detail::ParamValueKind::floating:
      if (t.size == sizeof(float)) return as(0.0f);
      if (t.size == sizeof(double)) return as(0.0);
      break;
    case detail::ParamValueKind::signed_int:
      if (t.size == 1) return as(std::int8_t{});
      if (t.size == 2) return as(std::int16_t{});
      if (t.size == 4) return as(std::int32_t{});
      if (t.size == 8) return as(std::int64_t{});
      break;
    case detail::ParamValueKind::unsigned_int:
      if (t.size == 1) return as(std::uint8_t{});
      if (t.size == 2) return as(std::uint16_t{});
      if (t.size == 4) return as(std::uint32_t{});
      if (t.size == 8) return as(std::uint64_t{});
      break;
    case detail::ParamValueKind::boolean: return v[0] != 0 ? "true" : "false";
    case detail::ParamValueKind::pointer: return "(pointer)";
    case detail::ParamValueKind::other: break;
  }
  return fmt::format("({} bytes)", t.size);
}

/// A parameter as dumps and DOT labels name it: its name, or "parameter #k" when unnamed (raw:
/// the dump escapes it with escaped(), DOT with dot_escape()).
std::string param_label(const detail::GraphImpl& g, std::uint32_t k) {
  const auto& name = g.params[k].name;
  return name.empty() ? fmt::format("parameter #{}", k) : name;
}

/// The uses of parameters by one node: (parameter index, use), for the node being printed.
using NodeParams = std::vector<std::pair<std::uint32_t, detail::ParamUse>>;

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

/// "lr=0.01": parameter k as node i uses it (the value the node holds: a per-node setter may have
/// written another one over the parameter's).
std::string param_use_text(const detail::GraphImpl& g, std::uint32_t k, const detail::ParamUse& u) {
  const detail::NodeData& n = g.nodes[u.node];
  const detail::ParamType& t = *g.params[k].type;
  unsigned char bytes[detail::max_parameter_bytes] = {};
  if (u.position == 0) {
    const unsigned int bits = g.memsets[n.payload].value;
    std::memcpy(bytes, &bits, sizeof bits < t.size ? sizeof bits : t.size);
  } else {
    std::memcpy(bytes, g.args.data() + g.kernels[n.payload].args + u.offset, t.size);
  }
  return fmt::format("{}={}", param_label(g, k), param_value(t, bytes));
}

/// What a node does, in a few words.
std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams& params) {
  const detail::NodeData& n = g.nodes[i];
  switch (n.kind) {
    case NodeKind::kernel: {
      const auto& k = g.kernels[n.payload];
      std::string s = fmt::format("grid {} block {} shared {} B, {} args ({} B)", dims(k.launch.grid),
                                  dims(k.launch.block), k.launch.shared_bytes, k.layout->count, k.layout->total);
      for (std::uint32_t c = 0; c < k.ph_count; ++c) s += placeholder_arg(g, k, g.placeholders[k.ph_first + c]);
      for (const auto& [p, u] : params) s += fmt::format(", argument {}: {}", u.position, detail::escaped(param_use_text(g, p, u)));
      if (k.launch.priority != 0) s += fmt::format(", priority {}", k.launch.priority);
      return detail::attributes_of(g, n.payload) != nullptr ? s + attributes_text(detail::launch_of(g, n.payload)) : s;
    }
    case NodeKind::memset: {
      const auto& p = g.memsets[n.payload];
      const std::string param = params.empty() ? std::string() : detail::escaped(param_label(g, params[0].first)) + "=";
      return fmt::format("value {}{}, {}-byte elements, {} x {}", param, memset_value(p.value, g.memset_types[n.payload]),
                         p.elementSize, p.width, p.height);
    }
    case NodeKind::memcpy: {
      const auto& p = g.memcpys[n.payload];
      if (const detail::PeerCopy* peer = g.peer_copy(i)) {
        return fmt::format("{} bytes, peer copy device {} -> device {}", p.extent.width, peer->src_device,
                           peer->dst_device);
      }
      return fmt::format("{} x {} x {} bytes, {}", p.extent.width, p.extent.height, p.extent.depth, copy_kind(p.kind));
    }
    case NodeKind::child: {
      const auto& c = *g.children[n.payload];
      return fmt::format("graph {}, {} nodes, {} edges", detail::quoted(c.name), c.nodes.size(), c.edge_count);
    }
    case NodeKind::conditional: {
      const auto& c = g.conditionals[n.payload];
      return fmt::format("{}, {} bod{}, condition {}", to_string(c.type), c.bodies.size(),
                         c.bodies.size() == 1 ? "y" : "ies", condition_ref(c.condition));
    }
    case NodeKind::captured: {
      const detail::CaptureData& c = g.captures[n.payload];
      const cudaStreamCaptureMode m = c.mode;
      const std::string what = detail::escaped(c.fn->describe());
      return fmt::format("{}stream capture, mode {}", what.empty() ? "" : what + ", ",
                         m == cudaStreamCaptureModeGlobal       ? "global"
                         : m == cudaStreamCaptureModeThreadLocal ? "thread-local"
                                                                 : "relaxed");
    }
    case NodeKind::mem_alloc: {
      const auto& a = g.allocs[n.payload];
      std::string s = fmt::format("{} bytes on {}", a.bytes, a.device < 0 ? std::string("the current device")
                                                                          : fmt::format("device {}", a.device));
      for (int p : a.peers) s += fmt::format(", peer {}", p);
      return s;
    }
    case NodeKind::mem_free: {
      const std::uint32_t a = g.frees[n.payload];
      return a == detail::ConditionRef::unresolved ? std::string("frees a buffer of another plan")
                                                   : fmt::format("frees {}", g.info(a).ref());
    }
    case NodeKind::host:
    case NodeKind::empty:
    case NodeKind::event_record:
    case NodeKind::event_wait: return {};
  }
  return {};
}

void dump_into(std::string& out, const detail::GraphImpl& g, const std::string& indent) {
  for (std::uint32_t k = 0; k < g.conditions.size(); ++k) {
    const auto& c = g.conditions[k];
    out += fmt::format("{}condition #{}: default {}{}\n", indent, k, c.default_value,
                       c.assign_default ? " (assigned at each launch)" : " (set upstream)");
  }
  for (std::uint32_t k = 0; k < g.params.size(); ++k) {
    const auto& p = g.params[k];
    out += fmt::format("{}parameter #{}{}: {} = {}, {} use{}\n", indent, k, p.name.empty() ? "" : " " + detail::quoted(p.name),
                       p.type->name, param_value(*p.type, p.value.data()), p.uses.size(), p.uses.size() == 1 ? "" : "s");
  }
  const NodeParams all = all_param_uses(g);
  std::size_t cursor = 0;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const detail::NodeData& n = g.nodes[i];
    out += fmt::format("{}#{} {}", indent, i, to_string(n.kind));
    if (!n.name.empty()) out += " " + detail::quoted(n.name);
    const std::string s = summary(g, i, uses_of(all, &cursor, i));
    if (!s.empty()) out += ": " + s;
    if (n.device >= 0) out += fmt::format("{}on device {}", s.empty() ? ": " : ", ", n.device);
    if (!n.preds.empty()) {
      out += "; after ";
      for (std::size_t k = 0; k < n.preds.size(); ++k) {
        out += (k ? ", " : "") + g.info(n.preds[k]).ref();
        const EdgeKind kind = detail::edge_kind(g, n.preds[k], i);
        if (kind != EdgeKind::full) out += fmt::format(" ({})", to_string(kind));
      }
    }
    out += '\n';
    if (n.kind == NodeKind::child) dump_into(out, *g.children[n.payload], indent + "    ");
    if (n.kind == NodeKind::conditional) {
      const auto& c = g.conditionals[n.payload];
      for (std::size_t b = 0; b < c.bodies.size(); ++b) {
        out += fmt::format("{}    body {} ({}):\n", indent, b, detail::quoted(c.bodies[b]->name));
        dump_into(out, *c.bodies[b], indent + "      ");
      }
    }
  }
}

/// A DOT string's text: escaped() (so no control character or non-UTF-8 byte reaches Graphviz),
/// then quotes and backslashes escaped for the DOT string, so the label shows what dumps show.
std::string dot_escape(const std::string& raw) {
  const std::string s = detail::escaped(raw);
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

const char* dot_shape(NodeKind k) {
  switch (k) {
    case NodeKind::kernel: return "box";
    case NodeKind::memset:
    case NodeKind::memcpy: return "cds";
    case NodeKind::host: return "hexagon";
    case NodeKind::child: return "box3d";
    case NodeKind::empty: return "point";
    case NodeKind::event_record:
    case NodeKind::event_wait: return "diamond";
    case NodeKind::conditional: return "octagon";
    case NodeKind::captured: return "component";
    case NodeKind::mem_alloc:
    case NodeKind::mem_free: return "cylinder";
  }
  return "box";
}

void dot_cluster(std::string& out, const detail::GraphImpl& c, const std::string& owner, const std::string& inner,
                 const std::string& indent);

void dot_into(std::string& out, const detail::GraphImpl& g, const std::string& prefix, const std::string& indent) {
  const NodeParams all = all_param_uses(g);
  std::size_t cursor = 0;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const detail::NodeData& n = g.nodes[i];
    const std::string label = n.name.empty() ? fmt::format("#{}", i) : n.name;
    std::string where = n.device >= 0 ? fmt::format(" @ gpu {}", n.device) : std::string();
    for (const auto& [p, u] : uses_of(all, &cursor, i)) where += "\\n" + dot_escape(param_use_text(g, p, u));
    if (n.kind == NodeKind::captured) {
      const std::string what = g.captures[n.payload].fn->describe();
      if (!what.empty()) where += "\\n" + dot_escape(what);
    }
    if (n.kind == NodeKind::kernel && detail::attributes_of(g, n.payload) != nullptr) {
      where += "\\n" + dot_escape(attributes_text(detail::launch_of(g, n.payload)).substr(2));
    }
    out += fmt::format("{}{}{} [label=\"{}\\n{}{}\", shape={}];\n", indent, prefix, i, dot_escape(label),
                       to_string(n.kind), where, dot_shape(n.kind));
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
    const detail::NodeData& n = g.nodes[i];
    if (n.kind == NodeKind::child) {
      dot_cluster(out, *g.children[n.payload], fmt::format("{}{}", prefix, i), fmt::format("{}{}_", prefix, i), indent);
    } else if (n.kind == NodeKind::conditional) {
      const auto& c = g.conditionals[n.payload];
      for (std::size_t b = 0; b < c.bodies.size(); ++b) {
        dot_cluster(out, *c.bodies[b], fmt::format("{}{}", prefix, i), fmt::format("{}{}_b{}_", prefix, i, b), indent);
      }
    }
  }
}

/// A nested plan (child plan or conditional body) as a dashed cluster, tied to its node `owner`.
void dot_cluster(std::string& out, const detail::GraphImpl& c, const std::string& owner, const std::string& inner,
                 const std::string& indent) {
  out += fmt::format("{}subgraph cluster_{} {{\n{}  label=\"{}\";\n{}  style=dashed;\n", indent,
                     inner.substr(0, inner.size() - 1), indent,
                     dot_escape(c.name), indent);
  dot_into(out, c, inner, indent + "  ");
  out += indent + "}\n";
  for (std::uint32_t k = 0; k < c.nodes.size(); ++k) {
    if (c.nodes[k].preds.empty()) {
      out += fmt::format("{}{} -> {}{} [style=dotted, arrowhead=none];\n", indent, owner, inner, k);
    }
  }
}

}  // namespace

std::string Graph::dump() const {
  const auto& g = impl();
  std::string out = fmt::format("graph {}: {} nodes, {} edges\n", detail::quoted(g.name), g.nodes.size(), g.edge_count);
  dump_into(out, g, "  ");
  return out;
}

std::string Graph::to_dot() const {
  const auto& g = impl();
  std::string out = fmt::format("digraph \"{}\" {{\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n", dot_escape(g.name));
  dot_into(out, g, "n", "  ");
  out += "}\n";
  return out;
}

}  // namespace graphdsl
