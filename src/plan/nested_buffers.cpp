// src/plan/nested_buffers.cpp — graph buffers used in child plans and conditional bodies: resolving
// the references (plan/nested_buffers.hpp says how they are kept). No CUDA call.
#include "plan/nested_buffers.hpp"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

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

/// Whether p itself refers to a graph buffer no plan resolved yet.
bool own_open(const GraphImpl& p) {
  bool open = false;
  each_buffer_ref(p,
                  [&](const ConditionRef& r, std::uint64_t) { open = open || r.levels == ConditionRef::unresolved; });
  return open;
}

/// Resolving the plans nested in one plan being embedded. Nested plans are shared (a plan embedding
/// copies of itself is a DAG of shared plans): each distinct plan is looked at once, and a plan
/// that changes is copied once per depth, the copies shared as the originals were.
class Resolver {
 public:
  explicit Resolver(const GraphImpl& parent) : parent_(parent) {}

  /// Resolves the open references of p, `depth` levels inside the plan embedded in `parent`.
  void resolve(GraphImpl& p, std::uint32_t depth) {
    each_buffer_argument(p, [&](ConditionRef& ref, std::uint64_t uid) {
      if (ref.levels == ConditionRef::unresolved) ref = outer_ref(parent_, uid, depth);
    });
    for (BufferUse& u : p.buffer_uses) {
      if (u.alloc_node != ConditionRef::unresolved) continue;
      const ConditionRef r = outer_ref(parent_, u.uid, depth);
      if (r.levels == ConditionRef::unresolved) continue;
      u.levels = r.levels;
      u.alloc_node = r.index;
    }
    each_nested_slot(p, [&](std::shared_ptr<const GraphImpl>& slot) {
      if (!changes(*slot)) return;
      const auto key = std::make_pair(slot.get(), depth + 1);
      const auto it = copies_.find(key);
      if (it != copies_.end()) {
        slot = it->second;
        return;
      }
      auto copy = std::make_shared<GraphImpl>(*slot);
      resolve(*copy, depth + 1);
      copies_.emplace(key, copy);
      slot = std::move(copy);
    });
  }

 private:
  /// Whether p, or a plan nested in it, has an open reference that `parent` resolves.
  bool changes(const GraphImpl& p) {
    const auto it = changes_.find(&p);
    if (it != changes_.end()) return it->second;
    bool found = false;
    auto resolves = [&](const ConditionRef& r, std::uint64_t uid) {
      found = found ||
              (r.levels == ConditionRef::unresolved && parent_.resolve_buffer(uid).levels != ConditionRef::unresolved);
    };
    each_buffer_ref(p, resolves);
    each_nested_slot(p, [&](const std::shared_ptr<const GraphImpl>& slot) { found = found || changes(*slot); });
    changes_.emplace(&p, found);
    return found;
  }

  const GraphImpl& parent_;
  std::unordered_map<const GraphImpl*, bool> changes_;
  std::map<std::pair<const GraphImpl*, std::uint32_t>, std::shared_ptr<const GraphImpl>> copies_;
};

/// Adds `user` to users[a] for each reference of p (`depth` levels below the plan that allocates)
/// to that plan's mem_alloc node a; each distinct (plan, depth) once.
void add_users_in(const GraphImpl& p, std::uint32_t depth, std::uint32_t user,
                  std::vector<std::vector<std::uint32_t>>& users,
                  std::set<std::pair<const GraphImpl*, std::uint32_t>>& seen) {
  if (!seen.emplace(&p, depth).second) return;
  each_buffer_ref(p, [&](const ConditionRef& r, std::uint64_t) {
    if (r.levels == depth && r.index < users.size()) users[r.index].push_back(user);
  });
  each_nested_slot(p, [&](const std::shared_ptr<const GraphImpl>& slot) {
    add_users_in(*slot, depth + 1, user, users, seen);
  });
}

/// Calls f(plan) once for g and each distinct plan nested in it; stops when f returns true.
template <class F>
bool any_distinct(const GraphImpl& g, F&& f) {
  std::unordered_set<const GraphImpl*> seen{&g};
  std::vector<const GraphImpl*> todo{&g};
  while (!todo.empty()) {
    const GraphImpl* p = todo.back();
    todo.pop_back();
    if (f(*p)) return true;
    each_nested_slot(*p, [&](const std::shared_ptr<const GraphImpl>& slot) {
      if (seen.insert(slot.get()).second) todo.push_back(slot.get());
    });
  }
  return false;
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
  return any_distinct(g, [](const GraphImpl& p) { return own_open(p); });
}

void resolve_embedded_buffers(GraphImpl& inner, const GraphImpl& parent) { Resolver(parent).resolve(inner, 0); }

std::shared_ptr<const GraphImpl> embedded_child(const GraphImpl& parent, const GraphImpl& child) {
  // A deep copy first (nested plans of its own: the executable's plan writes parameter values into
  // them), resolved in place: made with make_shared<GraphImpl>, so writable through the cast.
  auto c = std::const_pointer_cast<GraphImpl>(own_copy(child));
  Resolver(parent).resolve(*c, 0);
  return c;
}

void add_nested_buffer_users(const GraphImpl& g, std::vector<std::vector<std::uint32_t>>& users) {
  if (!embeds_plans(g)) return;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    std::set<std::pair<const GraphImpl*, std::uint32_t>> seen;
    for (const auto& inner : nested_slots(g, i)) add_users_in(*inner, 1, i, users, seen);
  }
}

namespace {

/// The first memset or memcpy node, in p or a plan nested in it, that uses graph memory of a plan
/// enclosing p: its description, or "".
std::string outer_memory_node(const GraphImpl& top) {
  std::string found;
  (void)any_distinct(top, [&](const GraphImpl& p) {
    for (const BufferUse& u : p.buffer_uses) {
      if (u.levels == 0 || u.alloc_node == ConditionRef::unresolved) continue;
      found = p.info(u.node).describe() + (&p == &top ? std::string() : " of graph " + quoted(p.name));
      return true;
    }
    return false;
  });
  return found;
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
    const auto refusal = compare_ops(t.nodes[i].kind).change_refusal;  // a child plan's
    if (refusal == nullptr) continue;
    if (auto r = refusal(a, t, i)) return r;
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
