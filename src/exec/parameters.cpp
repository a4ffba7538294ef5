// src/exec/parameters.cpp — Executable::set(param, value): writing a parameter's value into the
// recorded plan and patching every node that uses it, at the top level and in the child plans and
// conditional bodies nested in it, with one per-node CUDA setter each, rolled back on a refusal.
#include <array>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exec/kind_patch.hpp"
#include "exec/patch.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/native.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"

namespace graphdsl {
namespace detail {
namespace {

/// The index, in the executable's plan, of the parameter a Parameter handle names: its own
/// (compiled from its plan or a copy: same id), or one of the last update template's, by position.
/// @throws UsageError naming the parameter and both plans.
std::uint32_t exec_param(const ExecImpl& x, const SharedRef<PlanToken>& plan, std::uint64_t uid) {
  const GraphImpl& a = recorded_plan(x);
  if (!plan || uid == 0) throw UsageError("Executable::set: an empty Parameter (default-constructed) was given");
  if (const std::uint32_t k = a.param_index(uid); k != ConditionRef::unresolved) return k;
  const GraphImpl* owner = plan->plan;
  const std::uint32_t t = owner != nullptr ? owner->param_index(uid) : ConditionRef::unresolved;
  if (plan->id == x.last_template_id && t != ConditionRef::unresolved && t < param_count(a)) return t;
  const std::string which = t != ConditionRef::unresolved
                                ? fmt::format("parameter {} of graph {} (plan id {})", owner->param_ref(t),
                                              quoted(plan_name(*owner)), plan_id(*owner))
                                : fmt::format("parameter id {} of graph {} (plan id {}, destroyed)", uid,
                                              quoted(plan->name), plan->id);
  throw UsageError(
      fmt::format("Executable::set: {} is not a parameter of this executable, compiled from graph {} (plan "
                  "id {}); a parameter is set on executables compiled from the plan that declares it (or "
                  "a copy of that plan, or a plan that embeds it as a child plan)",
                  which, quoted(plan_name(a)), x.origin_id));
}

/// One node that uses a parameter: node i of plan g (the recorded plan, or a plan nested in it whose
/// native nodes are x.native.nested[nested]), and where its use writes the value.
struct ParamSite {
  const GraphImpl* g;
  std::uint32_t i;
  std::uint32_t nested;  ///< ConditionRef::unresolved: a top-level node
  ParamPlace place;
};

/// The entry of x.native.nested for the plan nested in `u` of the plan whose entry is `parent`.
std::uint32_t nested_entry(const ExecImpl& x, std::uint32_t parent, const NestedUse& u) {
  const std::uint32_t e = find_nested(x.native, parent, u.node, u.slot);
  if (e != ConditionRef::unresolved) return e;
  throw std::logic_error("graphdsl: a nested plan using a parameter has no native nodes");  // materialize records them
}

/// Calls f(site) for every node that uses parameter entry `e` of plan g, nodes of g first (in node
/// order, once per node), then those of the nested plans, depth first. Stops when f returns false.
template <class F>
bool visit_sites(const ExecImpl& x, const GraphImpl& g, const ParamData& e, std::uint32_t nested, F&& f) {
  for (std::size_t u = 0; u < e.uses.size(); ++u) {
    if (u + 1 < e.uses.size() && e.uses[u + 1].node == e.uses[u].node) continue;  // the node's last use
    if (!f(ParamSite{&g, e.uses[u].node, nested, e.uses[u].place})) return false;
  }
  for (const NestedUse& n : e.nested) {
    const GraphImpl& in = nested_plan(g, n);
    if (!visit_sites(x, in, param_entry(in, n.entry), nested_entry(x, nested, n), f)) return false;
  }
  return true;
}

/// A parameter used as a memcpy endpoint cannot be set to null (checked before any change).
/// @throws UsageError naming the parameter and the first node that would copy to or from null.
void check_endpoints(const ExecImpl& x, std::uint32_t k, const void* value) {
  const GraphImpl& a = recorded_plan(x);
  const ParamData& d = param_entry(a, k);
  void* p = nullptr;
  if (d.type->size != sizeof p) return;
  std::memcpy(&p, value, sizeof p);
  if (p != nullptr) return;
  visit_sites(x, a, d, ConditionRef::unresolved, [&](const ParamSite& s) {
    if (s.place != ParamPlace::memcpy_dst && s.place != ParamPlace::memcpy_src) return true;
    throw UsageError(fmt::format(
        "Executable::set: parameter {} of graph {} is the {} of {}{}; a memcpy endpoint cannot be "
        "null: pass the address of memory to copy {}",
        a.param_ref(k), quoted(plan_name(a)), s.place == ParamPlace::memcpy_dst ? "destination" : "source",
        s.g->info(s.i).describe(), s.nested == ConditionRef::unresolved ? "" : " " + x.native.nested[s.nested].where,
        s.place == ParamPlace::memcpy_dst ? "to" : "from"));
  });
}

/// Writes `value` into entry `d` of plan g and every place of g that uses it, then into the entries
/// of the nested plans that use it.
void write_param(const GraphImpl& g, const ParamData& d, const unsigned char* value) {
  GraphImpl& w = const_cast<GraphImpl&>(g);  // the recorded plan or a plan nested in it (nested_plan)
  ParamData& e = const_cast<ParamData&>(d);
  if (e.value.data() != value) std::memcpy(e.value.data(), value, e.type->size);
  for (const ParamUse& u : e.uses) {
    if (void* at = param_bytes(w, u)) {
      std::memcpy(at, value, e.type->size);
    } else {
      memset_of(w, u.node).value = memset_bits(value, e.type->size);
    }
  }
  for (const NestedUse& n : e.nested) {
    const GraphImpl& in = nested_plan(g, n);
    write_param(in, param_entry(in, n.entry), value);
  }
}

/// Patches the node of site s from its plan (the recorded plan, or the nested plan it is in): the
/// node kind's PatchOps::patch_param.
Applied patch_site(ExecImpl& x, const ParamSite& s) {
  return patch_ops(node_kind(*s.g, s.i)).patch_param(x, *s.g, s.i, s.nested);
}

/// Throws the CudaError of site s, naming its node (and, nested, where it is).
[[noreturn]] void throw_site(const ExecImpl& x, const ParamSite& s, const Applied& applied, const char* doing) {
  std::string where = s.nested == ConditionRef::unresolved ? std::string() : x.native.nested[s.nested].where;
  if (doing != nullptr) where = where.empty() ? doing : fmt::format("{} {}", doing, where);
  throw_cuda(applied.rc, applied.api, s.g->info(s.i), std::move(where));
}

}  // namespace
}  // namespace detail

std::vector<std::uint32_t> ParameterSet::nodes() const {
  std::vector<std::uint32_t> out;
  for (const detail::ParamUse* u = first; u != last; ++u) {
    if (out.empty() || out.back() != u->node) out.push_back(u->node);
  }
  return out;
}

ParameterSet Executable::set_parameter(const detail::SharedRef<detail::PlanToken>& plan, std::uint64_t uid,
                                       const detail::ParamType& type, const void* value) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t k = detail::exec_param(x, plan, uid);
  detail::ParamData& d = detail::param_entry(a, k);
  if (value == nullptr || *type.info != *d.type->info) {
    throw UsageError(
        fmt::format("Executable::set: parameter {} of graph {} is of type {}, the value given is of type "
                    "{}; a parameter's value is never converted: pass a {}",
                    a.param_ref(k), detail::quoted(detail::plan_name(a)), d.type->name, type.name, d.type->name));
  }
  detail::check_endpoints(x, k, value);
  const std::array<unsigned char, detail::max_parameter_bytes> old = d.value;
  std::array<unsigned char, detail::max_parameter_bytes> now{};
  std::memcpy(now.data(), value, d.type->size);
  detail::write_param(a, d, now.data());
  // One driver call per node, after its last use was written.
  ParameterSet result;
  std::optional<detail::ParamSite> failed;
  detail::Applied applied;
  std::exception_ptr thrown;  // a site whose parameters could not be built (std::bad_alloc): rolled back too
  detail::visit_sites(x, a, d, detail::ConditionRef::unresolved, [&](const detail::ParamSite& s) {
    try {
      applied = detail::patch_site(x, s);
    } catch (...) {
      thrown = std::current_exception();
      return false;
    }
    if (applied.rc == cudaSuccess) ++result.patched;
    if (applied.rc != cudaSuccess) failed = s;
    return applied.rc == cudaSuccess;
  });
  if (failed || thrown) {
    // Put the old value back in the recorded plan and in the nodes already patched.
    detail::write_param(a, d, old.data());
    std::size_t left = result.patched;
    detail::visit_sites(x, a, d, detail::ConditionRef::unresolved, [&](const detail::ParamSite& s) {
      if (left-- == 0) return false;
      const detail::Applied back = detail::patch_site(x, s);
      if (back.rc != cudaSuccess) detail::throw_site(x, s, back, "rolling back Executable::set");
      return true;
    });
    if (thrown) std::rethrow_exception(thrown);
    detail::throw_site(x, *failed, applied, nullptr);
  }
  result.first = d.uses.data();
  result.last = d.uses.data() + d.uses.size();
  return result;
}

}  // namespace graphdsl
