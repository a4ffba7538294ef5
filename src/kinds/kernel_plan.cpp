// src/kinds/kernel_plan.cpp — the kernel kind's part of the plan layer's walks (src/plan/): what a
// kernel node's rules need of the plans around it, its graph-buffer and Condition arguments as
// validate() and remove_node read them, the lengths of its placeholder arguments an update carries
// over, and a setter's checks of its arguments. Declared in plan/records/kernel_access.hpp and
// plan/rule_kit.hpp; the kind's table entries are in src/kinds/kernel.cpp. No CUDA call.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/graph_impl.hpp"
#include "plan/plan_access.hpp"
#include "plan/replace.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail {

std::uint32_t first_device_updatable(const GraphImpl& g) noexcept {
  for (const KernelAttributes& a : g.kernel_attributes) {
    if (!a.device_updatable) continue;
    for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
      if (g.nodes[i].kind == NodeKind::kernel && g.nodes[i].payload == a.kernel) return i;
    }
  }
  return ConditionRef::unresolved;
}

void each_kernel_buffer_argument(
    const GraphImpl& g,
    FunctionRef<void(std::uint32_t, ConditionRef, std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t)> f) {
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != NodeKind::kernel) continue;
    const KernelData& k = kernel_of(g, i);
    const KernelLinks& l = g.kernel_links[g.nodes[i].payload];
    for (std::uint32_t c = 0; c < l.ph_count; ++c) {
      const KernelPlaceholder& ph = g.placeholders[l.ph_first + c];
      if (ph.kind != PlaceholderKind::buffer) continue;
      f(i, ph.ref, ph.uid, argument_at(*l.layout, ph.offset), placeholder_offset(g, k, ph), ph.bytes);
    }
  }
}

void each_placeholder_bytes(const GraphImpl& g, std::uint32_t i, FunctionRef<void(const std::uint64_t&)> f) {
  if (g.nodes[i].kind != NodeKind::kernel) return;
  const KernelLinks& l = g.kernel_links[g.nodes[i].payload];
  for (std::uint32_t c = 0; c < l.ph_count; ++c) f(g.placeholders[l.ph_first + c].bytes);
}

void each_placeholder_bytes(GraphImpl& g, std::uint32_t i, FunctionRef<void(std::uint64_t&)> f) {
  if (g.nodes[i].kind != NodeKind::kernel) return;
  const KernelLinks& l = g.kernel_links[g.nodes[i].payload];
  for (std::uint32_t c = 0; c < l.ph_count; ++c) f(g.placeholders[l.ph_first + c].bytes);
}

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

// ---- rules ----------------------------------------------------------------------------------------

void rule::add_kernel_buffer_users(const GraphImpl& g, std::vector<std::vector<std::uint32_t>>& users) {
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != NodeKind::kernel) continue;
    const KernelLinks& k = g.kernel_links[g.nodes[i].payload];
    for (std::uint32_t c = 0; c < k.ph_count; ++c) {
      const KernelPlaceholder& ph = kernel_placeholder(g, k, c);
      if (ph.kind == PlaceholderKind::buffer && ph.ref.levels == 0) users[ph.ref.index].push_back(i);
    }
  }
}

void rule::check_kernel_slices(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const KernelData& k = g.kernels[g.nodes[i].payload];
  const KernelLinks& links = g.kernel_links[g.nodes[i].payload];
  for (std::uint32_t c = 0; c < links.ph_count; ++c) {
    const KernelPlaceholder& ph = kernel_placeholder(g, links, c);
    if (ph.kind != PlaceholderKind::buffer || ph.ref.levels != 0) continue;
    const std::uint32_t arg = argument_at(*links.layout, ph.offset);
    rule::check_slice(g, i, ctx, fmt::format("argument {}", arg + 1), g, ph.ref.index, placeholder_offset(g, k, ph),
                      ph.bytes);
  }
}

void rule::check_kernel_scoped(const ScopedNode& node) {
  const GraphImpl& g = node.g;
  const std::uint32_t i = node.i;
  const KernelLinks& k = g.kernel_links[g.nodes[i].payload];
  if (node.here.outer != nullptr && device_updatable(g, g.nodes[i].payload)) {
    fail(g, i, node.ctx,
         "a device-updatable kernel node must be a node of the top-level plan; graphdsl refuses it in a "
         "child plan or a conditional body (CUDA embeds a child graph by copy, does not document device "
         "updates inside conditional bodies, and Executable::device_node() names top-level nodes only)");
  }
  for (std::uint32_t c = 0; c < k.ph_count; ++c) {
    const KernelPlaceholder& ph = kernel_placeholder(g, k, c);
    if (ph.kind == PlaceholderKind::condition) {
      (void)condition_owner(g, i, node.ctx, &node.here, ph.ref, "a Condition argument");
    }
  }
}

// ---- a setter's arguments (NodeReplacement, plan/replace.hpp) -------------------------------------

namespace {

/// What argument `arg` of the kernel of plan `g` whose links are `k` stands for, in words. With `in`,
/// a Condition or GraphBuffer is looked up in that plan (the executable's) by its id; without, by g's
/// own reference.
std::string kernel_arg_meaning(const GraphImpl& g, const KernelLinks& k, std::uint32_t arg, const GraphImpl* in) {
  const GraphImpl& where = in != nullptr ? *in : g;
  for (std::uint32_t c = 0; c < k.ph_count; ++c) {
    const KernelPlaceholder& ph = kernel_placeholder(g, k, c);
    if (ph.offset != k.layout->offsets[arg]) continue;
    if (ph.kind == PlaceholderKind::condition) {
      const ConditionRef ref = in != nullptr ? in->resolve(Condition(ph.uid)) : ph.ref;
      if (ref.levels != 0) return fmt::format("a Condition that graph '{}' does not declare", plan_name(where));
      return fmt::format("condition number {} of graph '{}'", ref.index, plan_name(where));
    }
    const std::uint32_t alloc = in != nullptr ? in->alloc_node(ph.uid) : ph.ref.index;
    if (alloc == ConditionRef::unresolved)
      return fmt::format("a GraphBuffer that graph '{}' does not allocate", plan_name(where));
    return fmt::format("the GraphBuffer of {}", where.info(alloc).describe());
  }
  return "a plain value";
}

/// A KernelNode made from a NodeRef is not checked against the kernel it names (node_cast is): an
/// argument block of another layout would overrun the recorded one or leave the kernel reading past
/// the arguments given.
void check_layout(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) {
  const ArgLayout& now = kernel_layout(a, kernel_index(a, i));
  const ArgLayout& given = kernel_layout(s, kernel_index(s, 0));
  if (same_layout(given, now)) return;
  throw UsageError(
      fmt::format("{}: the setter's kernel arguments ({} parameters, {} bytes) do not match the kernel the node "
                  "launches ({} parameters, {} bytes): a KernelNode handle of another signature (node_cast checks "
                  "it; KernelNodeOf<decltype(kernel)> names it), or one from before set_kernel switched the node "
                  "to another signature (use the handle it returned)",
                  a.info(i).describe(), given.count, given.total, now.count, now.total));
}

}  // namespace

void rule::check_kernel_replacement(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) {
  check_layout(a, i, s);
  const KernelLinks& k = kernel_links_of(a, kernel_index(a, i));
  const KernelLinks& ks = kernel_links_of(s, kernel_index(s, 0));
  for (std::uint32_t arg = 0; arg < k.layout->count; ++arg) {
    const std::string was = kernel_arg_meaning(a, k, arg, nullptr), now = kernel_arg_meaning(s, ks, arg, &a);
    if (was != now) refuse_replacement(a, i, fmt::format("argument {}", arg), was, now);
  }
}

}  // namespace graphdsl::detail
