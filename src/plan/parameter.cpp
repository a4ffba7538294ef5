// src/plan/parameter.cpp — parameters on the plan side: declaring, naming, and recording their uses by
// kernel arguments and memset values (Executable::set is in src/exec/setters.cpp, with the other setters).
#include <algorithm>
#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "graphdsl/error.hpp"
#include "graphdsl/graph.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl {
namespace detail {

namespace {
bool uid_before(const std::pair<std::uint64_t, std::uint32_t>& e, std::uint64_t uid) { return e.first < uid; }
}  // namespace

std::uint32_t GraphImpl::param_index(std::uint64_t uid) const {
  const auto it = std::lower_bound(param_order.begin(), param_order.end(), uid, uid_before);
  return it != param_order.end() && it->first == uid ? it->second : ConditionRef::unresolved;
}

std::uint32_t push_param(GraphImpl& g, ParamData d) {
  const auto k = static_cast<std::uint32_t>(g.params.size());
  // Declared parameters come in uid order (appended); entries for parameters of other plans may not.
  const auto at = std::lower_bound(g.param_order.begin(), g.param_order.end(), d.uid, uid_before);
  const auto pos = at - g.param_order.begin();
  g.param_order.insert(at, std::make_pair(d.uid, k));
  try {
    g.params.push_back(std::move(d));
  } catch (...) {
    g.param_order.erase(g.param_order.begin() + pos);
    throw;
  }
  return k;
}

void truncate_params(GraphImpl& g, std::size_t size) noexcept {
  if (g.params.size() <= size) return;
  g.params.erase(g.params.begin() + static_cast<std::ptrdiff_t>(size), g.params.end());
  const auto dropped = [size](const std::pair<std::uint64_t, std::uint32_t>& e) { return e.second >= size; };
  g.param_order.erase(std::remove_if(g.param_order.begin(), g.param_order.end(), dropped), g.param_order.end());
}

std::string GraphImpl::param_ref(std::uint32_t k) const {
  return params[k].name.empty() ? fmt::format("#{}", k) : quoted(params[k].name);
}

namespace {

/// The plan behind a Parameter's token and the parameter's index in it.
/// @throws UsageError for an empty parameter or a destroyed plan.
std::pair<GraphImpl*, std::uint32_t> parameter_of(const SharedRef<PlanToken>& plan, std::uint64_t uid) {
  if (!plan) throw UsageError("empty Parameter (a default-constructed Parameter was used)");
  if (plan->plan == nullptr) {
    throw UsageError(
        fmt::format("a parameter (id {}) of graph {} (plan id {}) was used after its plan was destroyed; a "
                    "Parameter handle is usable only while its plan is alive",
                    uid, quoted(plan->name), plan->id));
  }
  GraphImpl& g = *plan->plan;
  g.stamp.store(0, std::memory_order_relaxed);  // a Parameter handle may change its plan
  const std::uint32_t k = g.param_index(uid);
  if (k == ConditionRef::unresolved) {
    throw UsageError(fmt::format("parameter id {} is not declared by graph {}", uid, quoted(g.name)));
  }
  return {&g, k};
}

/// The parameter behind `p`, as a message names it: "parameter 'lr' of graph 'train'".
std::string foreign_parameter(const ParamArg& p) {
  if (p.plan == nullptr || p.plan->plan == nullptr) return fmt::format("a parameter (id {}) of another plan", p.uid);
  const GraphImpl& other = *p.plan->plan;
  const std::uint32_t k = other.param_index(p.uid);
  const std::string name = k == ConditionRef::unresolved ? fmt::format("id {}", p.uid) : other.param_ref(k);
  return fmt::format("parameter {} of graph {} (plan id {})", name, quoted(other.name), other.id);
}

/// The plan enclosing `g` while g is a conditional body being built (null otherwise).
const GraphImpl* enclosing(const GraphImpl& g) { return g.parent && g.parent->outer ? g.parent->outer->plan : nullptr; }

/// Checks that parameter argument `p` may be used in plan `g` at the place `where` names, and
/// returns its index in g.params. A conditional body being built may use a parameter of a plan
/// enclosing it: the body then gets its own entry for it (declared = false), appended to g.params
/// (callers that refuse later truncate g.params back, see ImportGuard). `wanted` says what the
/// place's type is ("the kernel's parameter 2").
/// @throws UsageError naming the place and the rule.
std::uint32_t check_param_arg(GraphImpl& g, const ParamArg& p, const std::string& where, const std::string& wanted,
                              const char* rule) {
  if (p.plan == nullptr || p.uid == 0) {
    throw UsageError(fmt::format("{} is an empty Parameter (default-constructed); pass one made by Graph::parameter()",
                                 where));
  }
  const GraphImpl* owner = &g;
  std::uint32_t k = g.param_index(p.uid);
  while (k == ConditionRef::unresolved && (owner = enclosing(*owner)) != nullptr) k = owner->param_index(p.uid);
  if (k == ConditionRef::unresolved) {
    const bool body = g.parent != nullptr || g.sealed == Sealed::body;
    throw UsageError(
        fmt::format("{} is {}, not of graph {}{}; a parameter is used in the plan that declares it (or a copy of that "
                    "plan) and in the conditional bodies built inside it; another plan embeds it with add_child",
                    where, foreign_parameter(p), quoted(g.name),
                    body ? " or a plan enclosing it (a conditional body being built)" : ""));
  }
  const ParamData& d = owner->params[k];
  if (!p.fits || *d.type->info != *p.given->info) {
    throw UsageError(fmt::format("{} is parameter {} of type {}, but {} is of type {}: {}", where, owner->param_ref(k),
                                 d.type->name, wanted, p.wanted->name, rule));
  }
  if (owner == &g) return k;
  return push_param(g, ParamData{d.uid, d.type, d.name, d.value, {}, {}, false});  // the enclosing plan's, used here
}

/// Truncates g.params back to what it held when constructed unless dismissed: the parameter entries
/// check_param_arg imported for a call that is then refused.
struct ImportGuard {
  GraphImpl& g;
  std::size_t size = g.params.size();
  bool keep = false;
  ~ImportGuard() {
    if (!keep) truncate_params(g, size);
  }
};

/// Appends the names of the entries of parameter `e` in the plans nested in g that use it (e.nested),
/// at every depth: what naming the parameter renames besides its own entry.
void nested_names(const GraphImpl& g, const ParamData& e, std::vector<std::string*>& out) {
  for (const NestedUse& u : e.nested) {
    GraphImpl& in = nested_plan(g, u);
    ParamData& d = in.params[u.entry];
    out.push_back(&d.name);
    nested_names(in, d, out);
  }
}

constexpr const char* kernel_rule =
    "a parameter is passed as it is, never converted, so its type must be the kernel parameter's type (a "
    "Parameter<U*> also fits a const U* parameter)";
constexpr const char* memcpy_rule =
    "a parameter is passed as it is, never converted, so a memcpy endpoint's parameter must be a pointer to the "
    "copy's element type (a Parameter<U*> also fits a const U* source)";
constexpr const char* memset_rule =
    "a parameter is passed as it is, never converted, so its type must be the memset's element type";

}  // namespace

void name_parameter(const SharedRef<PlanToken>& plan, std::uint64_t uid, std::string_view name) {
  auto [g, k] = parameter_of(plan, uid);
  if (g->sealed == Sealed::child) {
    throw UsageError(
        fmt::format("parameter {} of graph {} belongs to a plan moved into a child node "
                    "(add_child(Graph&&)), which is fixed since; name it before moving the plan",
                    g->param_ref(k), quoted(g->name)));
  }
  if (g->sealed != Sealed::no) {
    throw UsageError(
        fmt::format("parameter {} of graph {} belongs to the recorded plan of an executable "
                    "(Executable::plan()), which changes only through update() and the setters; naming "
                    "it is allowed on a copy of the plan",
                    g->param_ref(k), quoted(g->name)));
  }
  // Every copy of the name is made before the first entry changes: all entries are renamed, or none.
  std::vector<std::string*> entries{&g->params[k].name};
  nested_names(*g, g->params[k], entries);
  std::vector<std::string> names(entries.size(), std::string(name));
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i]->swap(names[i]);
}

std::string parameter_name(const SharedRef<PlanToken>& plan, std::uint64_t uid) {
  auto [g, k] = parameter_of(plan, uid);
  return g->params[k].name;
}

const unsigned char* parameter_value(const SharedRef<PlanToken>& plan, std::uint64_t uid) {
  auto [g, k] = parameter_of(plan, uid);
  return g->params[k].value.data();
}

GraphImpl& nested_plan(const GraphImpl& g, const NestedUse& u) {
  const NestedSlots slots = nested_slots(g, u.node);
  const GraphImpl& in = slots[u.slot];
  // Nested plans with parameter entries belong to one plan (GraphImpl's copy constructor copies
  // them), so the plan that owns `g` may change them.
  return const_cast<GraphImpl&>(in);
}

void own_parameter_plans(GraphImpl& g) {
  each_nested_slot(g, [](std::shared_ptr<const GraphImpl>& p) {
    if (!p->params.empty()) p = std::make_shared<const GraphImpl>(*p);
  });
}

void adopt_parameters(GraphImpl& g, std::uint32_t node, std::uint32_t slot, const GraphImpl& inner) {
  for (std::uint32_t entry = 0; entry < inner.params.size(); ++entry) {
    const ParamData& e = inner.params[entry];
    std::uint32_t k = g.param_index(e.uid);
    if (k == ConditionRef::unresolved) k = push_param(g, ParamData{e.uid, e.type, e.name, e.value, {}, {}, false});
    g.params[k].nested.push_back(NestedUse{node, slot, entry});
  }
}

}  // namespace detail

std::uint64_t Graph::add_parameter(const detail::ParamType& type, const void* initial) {
  static std::atomic<std::uint64_t> next{1};
  auto& g = impl();
  if (g.parent != nullptr || g.sealed != detail::Sealed::no) {
    throw UsageError(
        fmt::format("parameter<{}>: graph {} is a conditional body or a recorded plan; parameters are "
                    "declared on top-level plans (a body uses the parameters of the plans enclosing it)",
                    type.name, detail::quoted(g.name)));
  }
  detail::ParamData d{next.fetch_add(1, std::memory_order_relaxed), &type, {}, {}, {}, {}, true};
  std::memcpy(d.value.data(), initial, type.size);
  return g.params[detail::push_param(g, std::move(d))].uid;
}

void Graph::bind_kernel_parameters(std::size_t args_offset, const detail::ParamArg* list, std::size_t count) {
  auto& g = impl();
  const auto node = static_cast<std::uint32_t>(g.nodes.size());  // the index add_kernel_node gives the node
  std::uint32_t index[detail::max_setter_args];
  detail::ImportGuard imports{g};
  try {
    if (count > detail::max_setter_args) {
      throw UsageError(
          fmt::format("add_kernel: kernel node #{} of graph {} takes {} parameters; at most {} arguments "
                      "of one kernel may be Parameters",
                      node, detail::quoted(g.name), count, detail::max_setter_args));
    }
    for (std::size_t a = 0; a < count; ++a) {
      const detail::ParamArg& p = list[a];
      index[a] = detail::check_param_arg(g, p,
                                         fmt::format("add_kernel: argument {} of kernel node #{} of graph {}",
                                                     p.position, node, detail::quoted(g.name)),
                                         fmt::format("the kernel's parameter {}", p.position), detail::kernel_rule);
    }
  } catch (...) {
    g.args.resize(args_offset);  // the block add_kernel packed: the plan is left as it was
    throw;
  }
  imports.keep = true;
  for (std::size_t a = 0; a < count; ++a) {
    detail::ParamData& d = g.params[index[a]];
    std::memcpy(g.args.data() + args_offset + list[a].offset, d.value.data(), d.type->size);
    d.uses.push_back(detail::ParamUse{node, list[a].offset, list[a].position});
  }
}

MemsetNode Graph::add_memset_parameter(void* dst, const detail::ParamArg& p, unsigned int element_size,
                                       std::size_t count, detail::ScalarType type) {
  const std::size_t bytes = detail::checked_bytes(count, element_size, "add_memset");
  auto& g = impl();
  Change change(*this);
  detail::ImportGuard imports{g};
  const std::uint32_t k = detail::check_param_arg(
      g, p, fmt::format("add_memset: the value of memset node #{} of graph {}", g.nodes.size(), detail::quoted(g.name)),
      "the memset's element", detail::memset_rule);
  const detail::ParamData& d = g.params[k];
  const MemsetNode n = add_memset_node(dst, detail::memset_bits(d.value.data(), d.type->size), element_size, count, 1,
                                       bytes, type);
  g.params[k].uses.push_back(detail::ParamUse{n.index(), 0, 0, detail::ParamPlace::memset_value});
  imports.keep = true;
  change.commit();
  return n;
}

MemcpyNode Graph::add_memcpy_parameters(const detail::ParamArg* dst_param, void* dst, const detail::ParamArg* src_param,
                                        const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  auto& g = impl();
  const std::string node = fmt::format("memcpy node #{} of graph {}", g.nodes.size(), detail::quoted(g.name));
  std::uint32_t k_dst = 0, k_src = 0;  // both checked before anything is added: a refusal leaves the plan as it was
  Change change(*this);
  detail::ImportGuard imports{g};
  if (dst_param != nullptr) {
    k_dst = detail::check_param_arg(g, *dst_param, fmt::format("add_memcpy: the destination of {}", node),
                                    "the memcpy's destination", detail::memcpy_rule);
    std::memcpy(&dst, g.params[k_dst].value.data(), sizeof dst);
  }
  if (src_param != nullptr) {
    k_src = detail::check_param_arg(g, *src_param, fmt::format("add_memcpy: the source of {}", node),
                                    "the memcpy's source", detail::memcpy_rule);
    std::memcpy(&src, g.params[k_src].value.data(), sizeof src);
  }
  const MemcpyNode n = add_memcpy_bytes(dst, src, bytes, kind);
  if (dst_param != nullptr) {
    g.params[k_dst].uses.push_back(detail::ParamUse{n.index(), 0, 0, detail::ParamPlace::memcpy_dst});
  }
  if (src_param != nullptr) {
    g.params[k_src].uses.push_back(detail::ParamUse{n.index(), 0, 0, detail::ParamPlace::memcpy_src});
  }
  imports.keep = true;
  change.commit();
  return n;
}

}  // namespace graphdsl
