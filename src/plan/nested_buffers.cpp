// src/plan/nested_buffers.cpp — graph buffers used in child plans and conditional bodies: resolving
// the references (plan/nested_buffers.hpp says how they are kept). No CUDA call.
#include "plan/nested_buffers.hpp"

#include <memory>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"
#include "plan/plan_access.hpp"
#include "plan/records/kernel_access.hpp"

namespace graphdsl::detail {
namespace {

/// Calls f(ref, uid) with each buffer reference of plan p itself (kernel arguments, then memset and
/// memcpy pointers) as a ConditionRef {levels, alloc node}.
template <class F>
void each_buffer_ref(const GraphImpl& p, F&& f) {
  each_buffer_argument(p, f);
  for (const BufferUse& u : p.buffer_uses) {
    f(u.alloc_node == ConditionRef::unresolved ? ConditionRef{} : ConditionRef{u.levels, u.alloc_node}, u.uid);
  }
}

/// Where buffer `uid` is allocated, seen from a plan `depth` levels inside the plan embedded in
/// `parent`; unresolved when neither `parent` nor a plan enclosing it allocates it.
ConditionRef outer_ref(const GraphImpl& parent, std::uint64_t uid, std::uint32_t depth) {
  const ConditionRef found = parent.resolve_buffer(uid);
  if (found.levels == ConditionRef::unresolved) return found;
  return ConditionRef{found.levels + 1 + depth, found.index};
}

/// Resolves the open references of p, `depth` levels inside the plan embedded in `parent`.
void resolve_in(GraphImpl& p, std::uint32_t depth, const GraphImpl& parent) {
  each_buffer_argument(p, [&](ConditionRef& ref, std::uint64_t uid) {
    if (ref.levels == ConditionRef::unresolved) ref = outer_ref(parent, uid, depth);
  });
  for (BufferUse& u : p.buffer_uses) {
    if (u.alloc_node != ConditionRef::unresolved) continue;
    const ConditionRef r = outer_ref(parent, u.uid, depth);
    if (r.levels == ConditionRef::unresolved) continue;
    u.levels = r.levels;
    u.alloc_node = r.index;
  }
  auto nested = [&](std::shared_ptr<const GraphImpl>& slot) {
    if (!has_open_buffers(*slot)) return;
    auto copy = std::make_shared<GraphImpl>(*slot);
    resolve_in(*copy, depth + 1, parent);
    slot = std::move(copy);
  };
  for (auto& c : p.children) nested(c);
  for (auto& c : p.conditionals) {
    for (auto& b : c.bodies) nested(b);
  }
}

void add_users_in(const GraphImpl& p, std::uint32_t depth, std::uint32_t user,
                  std::vector<std::vector<std::uint32_t>>& users) {
  each_buffer_ref(p, [&](const ConditionRef& r, std::uint64_t) {
    if (r.levels == depth && r.index < users.size()) users[r.index].push_back(user);
  });
  for (const auto& c : p.children) add_users_in(*c, depth + 1, user, users);
  for (const auto& c : p.conditionals) {
    for (const auto& b : c.bodies) add_users_in(*b, depth + 1, user, users);
  }
}

}  // namespace

ConditionRef GraphImpl::resolve_buffer(std::uint64_t uid) const {
  std::uint32_t levels = 0;
  for (const GraphImpl* p = this; p != nullptr; ++levels) {
    const std::uint32_t a = p->alloc_node(uid);
    if (a != ConditionRef::unresolved) return ConditionRef{levels, a};
    p = p->parent && p->parent->outer ? p->parent->outer->plan : nullptr;
  }
  return {};
}

bool has_open_buffers(const GraphImpl& g) {
  bool open = false;
  each_buffer_ref(g,
                  [&](const ConditionRef& r, std::uint64_t) { open = open || r.levels == ConditionRef::unresolved; });
  if (open) return true;
  for (const auto& c : g.children) {
    if (has_open_buffers(*c)) return true;
  }
  for (const auto& c : g.conditionals) {
    for (const auto& b : c.bodies) {
      if (has_open_buffers(*b)) return true;
    }
  }
  return false;
}

void resolve_embedded_buffers(GraphImpl& inner, const GraphImpl& parent) { resolve_in(inner, 0, parent); }

std::shared_ptr<const GraphImpl> embedded_child(const GraphImpl& parent, const GraphImpl& child) {
  auto c = std::make_shared<GraphImpl>(child);
  resolve_in(*c, 0, parent);
  return own_copy(*c);  // nested plans of its own (the executable's plan writes parameter values into them)
}

void add_nested_buffer_users(const GraphImpl& g, std::vector<std::vector<std::uint32_t>>& users) {
  if (!g.holds(NodeKind::child) && !g.holds(NodeKind::conditional)) return;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& inner : nested_slots(g, i)) add_users_in(*inner, 1, i, users);
  }
}

namespace {

/// The first memset or memcpy node, in p or a plan nested in it, that uses graph memory of a plan
/// enclosing p: its description, or "".
std::string outer_memory_node(const GraphImpl& p) {
  for (const BufferUse& u : p.buffer_uses) {
    if (u.levels != 0 && u.alloc_node != ConditionRef::unresolved) return p.info(u.node).describe();
  }
  for (const auto& c : p.children) {
    if (std::string d = outer_memory_node(*c); !d.empty()) return d + " of graph " + quoted(c->name);
  }
  for (const auto& c : p.conditionals) {
    for (const auto& b : c.bodies) {
      if (std::string d = outer_memory_node(*b); !d.empty()) return d + " of graph " + quoted(b->name);
    }
  }
  return {};
}

}  // namespace

std::optional<UpdateResult> child_rebuild_refusal(const GraphImpl& a, std::uint32_t i, const GraphImpl& t_child) {
  const std::string node = outer_memory_node(t_child);
  if (node.empty()) return std::nullopt;
  return refusal(UpdateStatus::not_supported, a.info(i),
                 fmt::format("{}: its new child plan has {}, a memset or memcpy on graph memory of the enclosing "
                             "plan; CUDA creates such nodes only while the plan that allocates the memory is being "
                             "compiled (cudaGraphAddMemsetNode and cudaGraphAddMemcpyNode return "
                             "cudaErrorInvalidValue for it afterwards), so the child cannot be rebuilt in an "
                             "executable: compile the new plan (kernels on that memory can be replaced)",
                             a.info(i).describe(), node));
}

std::optional<UpdateResult> child_rebuild_refusal(const GraphImpl& a, const GraphImpl& t,
                                                  const std::vector<std::uint32_t>& changed) {
  if (!a.holds(NodeKind::child) || !a.holds(NodeKind::mem_alloc)) return std::nullopt;  // the common case: O(1)
  for (const std::uint32_t i : changed) {
    if (t.nodes[i].kind != NodeKind::child) continue;
    if (auto r = child_rebuild_refusal(a, i, *t.children[t.nodes[i].payload])) return r;
  }
  return std::nullopt;
}

std::uint64_t buffer_use_offset(const GraphImpl& g, const BufferUse& u) noexcept {
  const void* ptr = u.field == BufferField::memset_dst   ? memset_of(g, u.node).dst
                    : u.field == BufferField::memcpy_dst ? memcpy_of(g, u.node).dstPtr.ptr
                                                         : memcpy_of(g, u.node).srcPtr.ptr;
  return reinterpret_cast<std::uintptr_t>(ptr);
}

}  // namespace graphdsl::detail
