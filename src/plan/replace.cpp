// src/plan/replace.cpp — new parameters for one node, from a setter's one-node plan
// (plan/replace.hpp): the checks and the write that the typed setters of executables and of plans
// share. No CUDA call.
#include "plan/replace.hpp"

#include <string>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail {

/// Whether `layout` (the setter's) packs exactly like `recorded`.
bool same_layout(const ArgLayout& layout, const ArgLayout& recorded) {
  if (&layout == &recorded) return true;
  if (layout.count != recorded.count || layout.total != recorded.total) return false;
  for (std::uint32_t a = 0; a < layout.count; ++a) {
    if (layout.offsets[a] != recorded.offsets[a] || layout.sizes[a] != recorded.sizes[a]) return false;
  }
  return true;
}

void check_child_shape(const GraphImpl& a, std::uint32_t i, const GraphImpl& child) {
  if (auto r = compare_shape(child_plan(a, i), child, {})) {
    throw UsageError(fmt::format("{}: the new child plan has another shape ({})", a.info(i).describe(), r->reason));
  }
}

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

/// What pointer `field` of memset or memcpy node i of plan `g` stands for, in words (`in`: as above).
std::string buffer_field_meaning(const GraphImpl& g, std::uint32_t i, BufferField field, const GraphImpl* in) {
  const GraphImpl& where = in != nullptr ? *in : g;
  for (const BufferUse& u : buffer_uses_of(g, i)) {
    if (u.field != field) continue;
    const std::uint32_t alloc = in != nullptr ? in->alloc_node(u.uid) : u.alloc_node;
    if (alloc == ConditionRef::unresolved)
      return fmt::format("a GraphBuffer that graph '{}' does not allocate", plan_name(where));
    return fmt::format("the GraphBuffer of {}", where.info(alloc).describe());
  }
  if (const SymbolUse* u = g.symbol_use(i); u != nullptr && u->field == field) {
    return fmt::format("a __device__ symbol ({} bytes, at byte {})", u->symbol_bytes, u->offset);
  }
  return "a plain pointer";
}

/// Refuses a setter whose Condition or GraphBuffer arguments (plan `s`, node #0) do not mean, in
/// plan `a` (the executable's, or the plan a Graph setter edits), what node i's own ones mean: a setter, like update(),
/// patches values; it cannot turn a graph buffer into a raw pointer (the buffer's address would be written over it) or
/// a raw pointer into a graph buffer (it would reach the kernel as null).
void check_placeholders(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) {
  const bool recorded = a.sealed == Sealed::recorded;  // an executable's plan
  const NodeKind kind = node_kind(a, i);
  auto refuse = [&](const std::string& what, const std::string& was, const std::string& now) {
    throw UsageError(
        fmt::format("{}: {} is {} in {} but {} in the setter; setters and update() patch values, not which "
                    "arguments are Conditions, GraphBuffers or __device__ symbols ({} for that)",
                    a.info(i).describe(), what, was, recorded ? "this executable's plan" : "the plan", now,
                    recorded ? "compile a new plan" : "remove the node and add a new one"));
  };
  if (kind == NodeKind::kernel) {
    const KernelLinks& k = kernel_links_of(a, kernel_index(a, i));
    const KernelLinks& ks = kernel_links_of(s, kernel_index(s, 0));
    for (std::uint32_t arg = 0; arg < k.layout->count; ++arg) {
      const std::string was = kernel_arg_meaning(a, k, arg, nullptr), now = kernel_arg_meaning(s, ks, arg, &a);
      if (was != now) refuse(fmt::format("argument {}", arg), was, now);
    }
  } else if (kind == NodeKind::memset || kind == NodeKind::memcpy) {
    const bool set = kind == NodeKind::memset;
    for (const BufferField f : {BufferField::memset_dst, BufferField::memcpy_dst, BufferField::memcpy_src}) {
      if ((f == BufferField::memset_dst) != set) continue;
      const std::string was = buffer_field_meaning(a, i, f, nullptr), now = buffer_field_meaning(s, 0, f, &a);
      if (was != now) refuse(f == BufferField::memcpy_src ? "the source" : "the destination", was, now);
    }
  }
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

NodeReplacement::NodeReplacement(GraphImpl& a, std::uint32_t i, const GraphImpl& s)
    : a_(a), i_(i), old_(SavedParams::save(a, i)), old_bytes_(buffer_bytes_of(a, i)) {
  const NodeKind kind = node_kind(s, 0);
  if (kind == NodeKind::child) check_child_shape(a, i, child_plan(s, 0));
  if (kind == NodeKind::kernel) check_layout(a, i, s);
  check_placeholders(a, i, s);
  const SavedParams now = SavedParams::save(s, 0, true);  // nested plans: the plan's own deep copies
  const std::vector<std::uint64_t> now_bytes = buffer_bytes_of(s, 0);
  try {
    now.restore(a, i);  // may allocate (a kernel's launch attributes): undone below
    set_buffer_bytes(a, i, now_bytes);
    check_node(a, i);
  } catch (...) {
    undo();
    throw;
  }
}

void NodeReplacement::undo() {
  old_.restore(a_, i_);
  set_buffer_bytes(a_, i_, old_bytes_);
}

}  // namespace graphdsl::detail
