// src/plan/explain.cpp — graphdsl::explain: why two plans of one shape differ, field by field, in the
// user's node names (graphdsl/update.hpp).
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/graph.hpp"
#include "graphdsl/update.hpp"
#include "plan/graph_impl.hpp"
#include "plan/kind_describe.hpp"
#include "plan/records/kernel_access.hpp"

namespace graphdsl {
namespace detail {
namespace {

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

/// An argument's bytes as a number (little-endian) for up to 8 bytes, else as hex bytes.
std::string argument_text(const unsigned char* p, std::uint32_t size) {
  if (size <= 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, size);
    return fmt::format("{:#x}", v);
  }
  std::string out;
  for (std::uint32_t b = 0; b < size; ++b) fmt::format_to(std::back_inserter(out), "{:02x}", p[b]);
  return out;
}

/// The first field of kernel node i that differs between a and t.
std::string kernel_change(const GraphImpl& a, const GraphImpl& t, std::uint32_t i) {
  const KernelData& x = kernel_of(a, i);
  const KernelData& y = kernel_of(t, i);
  if (x.func != y.func) {  // adopted kernels are named after their functions; others by address
    if (a.node_name(i) != t.node_name(i)) return fmt::format("function '{}' -> '{}'", a.node_name(i), t.node_name(i));
    return fmt::format("function {} -> {}", x.func, y.func);
  }
  if (std::memcmp(&x.launch.grid, &y.launch.grid, sizeof(dim3)) != 0) {
    return fmt::format("grid {} -> {}", dims(x.launch.grid), dims(y.launch.grid));
  }
  if (std::memcmp(&x.launch.block, &y.launch.block, sizeof(dim3)) != 0) {
    return fmt::format("block {} -> {}", dims(x.launch.block), dims(y.launch.block));
  }
  if (x.launch.shared_bytes != y.launch.shared_bytes) {
    return fmt::format("dynamic shared memory {} B -> {} B", x.launch.shared_bytes, y.launch.shared_bytes);
  }
  if (x.launch.priority != y.launch.priority) {
    return fmt::format("priority {} -> {}", x.launch.priority, y.launch.priority);
  }
  const ArgLayout& l = kernel_layout(a, kernel_index(a, i));
  const unsigned char* xa = argument_block(a, x);
  const unsigned char* ya = argument_block(t, y);
  for (std::uint32_t p = 0; p < l.count; ++p) {
    const unsigned char* u = xa + l.offsets[p];
    const unsigned char* v = ya + l.offsets[p];
    if (std::memcmp(u, v, l.sizes[p]) != 0) {
      return fmt::format("argument {} ({} bytes): {} -> {}", p, l.sizes[p], argument_text(u, l.sizes[p]),
                         argument_text(v, l.sizes[p]));
    }
  }
  return "its launch attributes or placeholder arguments";
}

std::string summary(const GraphImpl& g, std::uint32_t i) {
  const auto fn = describe_ops(g.nodes[i].kind).summary;
  return fn != nullptr ? fn(g, i, NodeParams{}) : std::string("(no parameters)");
}

}  // namespace
}  // namespace detail

std::vector<NodeChange> explain(const Graph& current, const Graph& templ) {
  const UpdateResult r = diff(current, templ);
  const detail::GraphImpl& a = current.impl();
  const detail::GraphImpl& t = templ.impl();
  if (r.status == UpdateStatus::function_changed && r.node && r.node->index < a.nodes.size() &&
      a.nodes[r.node->index].kind == NodeKind::kernel) {  // the refusal names the node; say which functions
    return {NodeChange{r.node, detail::kernel_change(a, t, r.node->index)}};
  }
  if (!r) return {NodeChange{r.node, r.reason}};
  std::vector<NodeChange> out;
  out.reserve(r.changed.size() + 1);
  for (const std::uint32_t i : r.changed) {
    std::string what;
    if (a.nodes[i].kind == NodeKind::kernel) {
      what = detail::kernel_change(a, t, i);
    } else {
      what = fmt::format("'{}' -> '{}'", detail::summary(a, i), detail::summary(t, i));
    }
    out.push_back(NodeChange{a.info(i), std::move(what)});
  }
  if (!r.reason.empty() && r.changed.empty()) out.push_back(NodeChange{std::nullopt, r.reason});
  return out;
}

}  // namespace graphdsl
