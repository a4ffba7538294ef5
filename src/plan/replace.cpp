// src/plan/replace.cpp — new parameters for one node, from a setter's one-node plan
// (plan/replace.hpp): the checks and the write that the typed setters of executables and of plans
// share. No CUDA call.
#include "plan/replace.hpp"

#include <string>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "plan/kind_rules.hpp"
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

void refuse_replacement(const GraphImpl& a, std::uint32_t i, const std::string& what, const std::string& was,
                        const std::string& now) {
  const bool recorded = a.sealed == Sealed::recorded;  // an executable's plan
  throw UsageError(
      fmt::format("{}: {} is {} in {} but {} in the setter; setters and update() patch values, not which "
                  "arguments are Conditions, GraphBuffers or __device__ symbols ({} for that)",
                  a.info(i).describe(), what, was, recorded ? "this executable's plan" : "the plan", now,
                  recorded ? "compile a new plan" : "remove the node and add a new one"));
}

namespace {

/// What pointer `field` of memset or memcpy node i of plan `g` stands for, in words. With `in`, a
/// GraphBuffer is looked up in that plan (the executable's) by its id; without, by g's own reference.
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

}  // namespace

void check_pointer_meanings(const GraphImpl& a, std::uint32_t i, const GraphImpl& s,
                            std::initializer_list<BufferField> fields) {
  for (const BufferField f : fields) {
    const std::string was = buffer_field_meaning(a, i, f, nullptr), now = buffer_field_meaning(s, 0, f, &a);
    if (was != now) refuse_replacement(a, i, f == BufferField::memcpy_src ? "the source" : "the destination", was, now);
  }
}

NodeReplacement::NodeReplacement(GraphImpl& a, std::uint32_t i, const GraphImpl& s)
    : a_(a), i_(i), old_(SavedParams::save(a, i)), old_bytes_(buffer_bytes_of(a, i)) {
  // What the kind's parameters may not change (s holds one node of node i's kind: the setter's).
  if (const auto check = rule_ops(node_kind(s, 0)).check_replacement) check(a, i, s);
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
