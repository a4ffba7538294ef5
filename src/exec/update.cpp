// src/exec/update.cpp — Executable::update: the diff against the recorded plan (plan/diff.cpp), the
// choice of strategy, then one cudaGraphExecUpdate of the whole template or per-node setters
// (exec/setters.cpp), rolled back on failure.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "exec/kind_patch.hpp"
#include "exec/patch.hpp"
#include "exec/update_steps.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/update.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/native.hpp"
#include "plan/diff.hpp"
#include "plan/nested_buffers.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"
#include "plan/rules.hpp"

namespace graphdsl {
namespace detail {
namespace {

/// UpdateStatus of each cudaGraphExecUpdateResult, indexed by its value.
constexpr std::array<UpdateStatus, 9> status_of_cuda{
    UpdateStatus::success,                      // cudaGraphExecUpdateSuccess
    UpdateStatus::error,                        // cudaGraphExecUpdateError
    UpdateStatus::topology_changed,             // cudaGraphExecUpdateErrorTopologyChanged
    UpdateStatus::node_type_changed,            // cudaGraphExecUpdateErrorNodeTypeChanged
    UpdateStatus::function_changed,             // cudaGraphExecUpdateErrorFunctionChanged
    UpdateStatus::parameters_changed,           // cudaGraphExecUpdateErrorParametersChanged
    UpdateStatus::not_supported,                // cudaGraphExecUpdateErrorNotSupported
    UpdateStatus::unsupported_function_change,  // cudaGraphExecUpdateErrorUnsupportedFunctionChange
    UpdateStatus::attributes_changed,           // cudaGraphExecUpdateErrorAttributesChanged
};
static_assert(cudaGraphExecUpdateSuccess == 0 && cudaGraphExecUpdateError == 1 &&
              cudaGraphExecUpdateErrorTopologyChanged == 2 && cudaGraphExecUpdateErrorNodeTypeChanged == 3 &&
              cudaGraphExecUpdateErrorFunctionChanged == 4 && cudaGraphExecUpdateErrorParametersChanged == 5 &&
              cudaGraphExecUpdateErrorNotSupported == 6 && cudaGraphExecUpdateErrorUnsupportedFunctionChange == 7 &&
              cudaGraphExecUpdateErrorAttributesChanged == 8);

UpdateStatus from_cuda(cudaGraphExecUpdateResult r) {
  const auto k = static_cast<std::size_t>(r);
  return k < status_of_cuda.size() ? status_of_cuda[k] : UpdateStatus::error;
}

std::optional<NodeInfo> find_native(const GraphImpl& g, const std::vector<cudaGraphNode_t>& nodes, cudaGraphNode_t n) {
  if (n == nullptr) return std::nullopt;
  const auto it = std::find(nodes.begin(), nodes.end(), n);
  if (it == nodes.end()) return std::nullopt;
  return g.info(static_cast<std::uint32_t>(it - nodes.begin()));
}

}  // namespace

std::optional<UpdateResult> update_needs(const GraphImpl& a, const GraphImpl& t,
                                         const std::vector<std::uint32_t>& changed, UpdateNeeds& needs) {
  if (auto r = child_rebuild_refusal(a, t, changed)) return r;  // the rule diff() applies too
  for (std::uint32_t i : changed) {
    const PatchOps& ops = patch_ops(node_kind(a, i));
    if (ops.update_needs == nullptr) continue;
    if (auto r = ops.update_needs(a, t, i, needs)) return r;
  }
  return std::nullopt;
}

std::optional<UpdateResult> check_strategy(const GraphImpl& a, bool whole, const UpdateNeeds& needs) {
  if (whole) {
    if (auto r = whole_graph_refusal(a)) return r;  // the rule diff() applies too (plan/update_rules.cpp)
  }
  if (!whole && needs.nested_change) {
    return refusal(UpdateStatus::not_supported, std::nullopt,
                   "a condition's default, a conditional node's body or a captured node changed, which "
                   "per-node setters cannot patch; use UpdatePolicy::whole_graph or automatic");
  }
  if (!whole && needs.priority_changed) {
    return refusal(UpdateStatus::attributes_changed, std::nullopt,
                   "a kernel node's priority or launch attributes changed, which per-node setters cannot "
                   "patch; use UpdatePolicy::whole_graph or automatic");
  }
  return std::nullopt;
}

UpdateResult materialize_refusal(const CudaError& e) {
  UpdateResult r = refusal(UpdateStatus::error, e.node(), without_prefix(e));
  r.cuda_error = e.code();
  return r;
}

namespace {

/// One cudaGraphExecUpdate of x from `graph`, whose top-level nodes are `nodes` (plan `t`'s, for
/// messages): CUDA's refusal (the executable unchanged), or nullopt.
std::optional<UpdateResult> exec_update_from(ExecImpl& x, const GraphImpl& t, cudaGraph_t graph,
                                             const std::vector<cudaGraphNode_t>& nodes) {
  cudaGraphExecUpdateResultInfo info{};
  mark_changed(x);  // device launch needs a new upload (conservatively, after a refusal too)
  const cudaError_t rc = cuda_try(cudaGraphExecUpdate, x.exec.get(), graph, &info);
  if (rc == cudaSuccess) return std::nullopt;
  UpdateResult r;
  r.status = info.result == cudaGraphExecUpdateSuccess ? UpdateStatus::error : from_cuda(info.result);
  r.cuda_error = rc;
  r.node = find_native(t, nodes, info.errorNode);
  r.from_node = find_native(t, nodes, info.errorFromNode);
  r.reason = fmt::format("cudaGraphExecUpdate refused the template: {} ({})", cudaGetErrorName(rc),
                         to_string(r.status));
  if (r.node) r.reason += " at " + r.node->describe();
  return r;
}

}  // namespace

std::optional<UpdateResult> exec_update_native(ExecImpl& x, const GraphImpl& t,
                                               const std::shared_ptr<const Materialized>& owned, bool conditions) {
  const Materialized& m = *owned;
  if (auto r = exec_update_from(x, t, m.graph.get(), m.nodes)) return r;
  // Every node of the executable now has the template graph's parameters, which its own graph
  // (native.graph) may not have: an update from that graph patches them all there first.
  mark_graph_behind(x);
  // The copies below cannot fail: the template has the executable's shape, so each vector is
  // assigned one of its own size, which reuses its storage (no allocation after CUDA's update).
  x.native.host_slots = m.host_slots;  // the executable now holds the template's slots
  // ... and the references of the template graph's user object (cudaGraphExecUpdate replaces
  // the executable's with them): events given to setters from now on go to that one.
  x.native.keep = m.keep;
  if (conditions) {
    // The executable now uses the template's condition handles: keep their graph alive.
    x.native.handles = m.handles;
    for (std::size_t e = 0; e < x.native.nested.size() && e < m.nested.size(); ++e) {
      x.native.nested[e].handles = m.nested[e].handles;  // same plans, built in the same order
    }
    x.handle_owner = owned;
  }
  return std::nullopt;
}

namespace {

/// The template's parameters of the changed nodes, saved (allocations) before the executable
/// changes, so that the recorded plan takes them afterwards without allocating: a failure between
/// the two would leave the recorded plan behind what the executable runs.
std::vector<SavedParams> saved_changes(const GraphImpl& t, const std::vector<std::uint32_t>& changed) {
  std::vector<SavedParams> saved;
  saved.reserve(changed.size());
  for (std::uint32_t i : changed) saved.push_back(SavedParams::save(t, i, true));
  return saved;
}

void take_changes(GraphImpl& a, const std::vector<SavedParams>& saved, const std::vector<std::uint32_t>& changed) {
  for (std::size_t k = 0; k < changed.size(); ++k) saved[k].restore(a, changed[k]);
}

/// Materializes the template and applies it with one cudaGraphExecUpdate (exec_update_native); on
/// success the recorded plan takes the template's parameters.
std::optional<UpdateResult> update_whole_graph(ExecImpl& x, const GraphImpl& t,
                                               const std::vector<std::uint32_t>& changed) {
  GraphImpl& a = x.plan.impl();
  std::shared_ptr<Materialized> m;
  try {
    m = std::make_shared<Materialized>(materialize(t, check_plan(t), x.sink));
  } catch (const CudaError& e) {
    return materialize_refusal(e);
  } catch (const UsageError& e) {  // a rule of the whole template, or of the device (a refusal is a value)
    return refusal(UpdateStatus::invalid_template, std::nullopt, without_prefix(e));
  }
  const std::vector<SavedParams> saved = saved_changes(t, changed);
  if (auto r = exec_update_native(x, t, m, !m->handles.empty() || has_nested_conditions(t))) return r;
  take_changes(a, saved, changed);
  take_condition_defaults(a, t);
  return std::nullopt;
}

/// The refusal of a setter (`applied`) that CUDA refused for node i of template `t`.
UpdateResult setter_refusal(const GraphImpl& t, std::uint32_t i, const Applied& applied) {
  UpdateResult r = refusal(UpdateStatus::parameters_changed, t.info(i),
                           fmt::format("{} refused the new parameters of {}: {} ({})", applied.api,
                                       t.info(i).describe(), cudaGetErrorName(applied.rc),
                                       cudaGetErrorString(applied.rc)));
  r.cuda_error = applied.rc;
  return r;
}

/// The automatic policy's update in place: at least this many changed nodes (and half of the
/// plan's); below, per-node setters cost about as much and leave the executable's graph as it is.
constexpr std::size_t in_place_min_changed = 32;

}  // namespace

bool graph_patchable(const ExecImpl& x, const GraphImpl& a) {
  if (x.device_updatable || condition_count(a) != 0 || has_placeholders(a) || !has_graph_behind(x)) return false;
  for (std::uint32_t bits = held_kinds(a); bits != 0; bits &= bits - 1) {
    const auto kind = static_cast<NodeKind>(__builtin_ctz(bits));
    if (patch_ops(kind).patch_graph == nullptr) return false;
  }
  return true;
}

std::optional<GraphRefusal> write_graph_behind(ExecImpl& x, const GraphImpl& from) {
  for (std::size_t w = 0; w < x.graph_behind.size(); ++w) {
    for (std::uint64_t bits = x.graph_behind[w]; bits != 0; bits &= bits - 1) {
      const auto i = static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
      const DeviceScope device(node_device(from, i, -1));
      const Applied applied = patch_ops(node_kind(from, i)).patch_graph(x, from, i);
      if (applied.rc != cudaSuccess) return GraphRefusal{i, applied};
    }
  }
  return std::nullopt;
}

void sync_native_graph(ExecImpl& x) {
  const GraphImpl& a = recorded_plan(x);
  if (!graph_patchable(x, a)) return;
  if (std::all_of(x.graph_behind.begin(), x.graph_behind.end(), [](std::uint64_t w) { return w == 0; })) return;
  if (const auto r = write_graph_behind(x, a)) {
    throw_cuda(r->applied.rc, r->applied.api, a.info(r->node), "bringing the executable's cudaGraph_t in step");
  }
  clear_graph_behind(x);
}

namespace {

/// Whether whole-graph updates of x from plan `t` can go through the executable's own cudaGraph_t
/// (update_in_place): the graph can be patched node by node (graph_patchable: kernel, memset, memcpy
/// and empty nodes only, no condition or placeholder), `t` has no Condition or GraphBuffer argument
/// either, and no change of priority or launch attributes (which patch_graph does not write).
bool in_place_possible(const ExecImpl& x, const GraphImpl& a, const GraphImpl& t, const UpdateNeeds& needs) {
  return !needs.priority_changed && !needs.nested_change && !has_placeholders(t) && graph_patchable(x, a);
}

/// The whole-graph update from the executable's own cudaGraph_t: the changed nodes, and those where
/// that graph is behind the executable, get the template's parameters there (write_graph_behind; the
/// template agrees with the recorded plan everywhere but the changed nodes), then one
/// cudaGraphExecUpdate from it. No template is materialized. On a refusal the executable is
/// unchanged and the nodes patched stay marked behind; on success the recorded plan takes the
/// template's parameters and the graph is behind nowhere.
std::optional<UpdateResult> update_in_place(ExecImpl& x, const GraphImpl& t,
                                            const std::vector<std::uint32_t>& changed) {
  GraphImpl& a = x.plan.impl();
  const std::vector<SavedParams> saved = saved_changes(t, changed);
  for (std::uint32_t i : changed) mark_node_behind(x, i);
  if (const auto r = write_graph_behind(x, t)) return setter_refusal(t, r->node, r->applied);
  if (auto r = exec_update_from(x, t, x.native.graph.get(), x.native.nodes)) return r;
  clear_graph_behind(x);
  take_changes(a, saved, changed);
  return std::nullopt;
}

/// One per-node setter per changed node; on a refusal, the recorded plan and the nodes already
/// patched return to the old parameters.
std::optional<UpdateResult> update_per_node(ExecImpl& x, const GraphImpl& t,
                                            const std::vector<std::uint32_t>& changed) {
  GraphImpl& a = x.plan.impl();
  std::vector<SavedParams> old;
  old.reserve(changed.size());
  // Roll back: the recorded plan returns to the old parameters of the nodes saved in `old`, and
  // nodes changed[0..k) (already patched) to them too.
  auto roll_back = [&](std::size_t k) {
    for (std::size_t j = 0; j < old.size(); ++j) {
      old[j].restore(a, changed[j]);
      if (j < k) {
        const Applied back = apply_node(x, changed[j]);
        if (back.rc != cudaSuccess) throw_cuda(back.rc, back.api, a.info(changed[j]), "rolling back an update");
      }
    }
  };
  for (std::size_t k = 0; k < changed.size(); ++k) {
    const std::uint32_t i = changed[k];
    Applied applied;
    try {  // the saves allocate (std::bad_alloc), a child plan's captured function may throw
      SavedParams next = SavedParams::save(t, i, true);
      old.push_back(SavedParams::save(a, i));
      next.restore(a, i);
      applied = apply_node(x, i);
    } catch (...) {
      roll_back(k);
      throw;
    }
    if (applied.rc == cudaSuccess) continue;
    roll_back(k);
    return setter_refusal(t, i, applied);
  }
  return std::nullopt;
}

}  // namespace

UpdateResult update_known_nodes(ExecImpl& x, const GraphImpl& t, const std::vector<std::uint32_t>& changed) {
  GraphImpl& a = x.plan.impl();
  UpdateResult result;
  UpdateNeeds needs;
  if (auto r = update_needs(a, t, changed, needs)) return std::move(*r);
  if (auto r = check_strategy(a, false, needs)) return std::move(*r);
  if (auto r = update_per_node(x, t, changed)) return std::move(*r);
  result.strategy = changed.empty() ? UpdateStrategy::none : UpdateStrategy::per_node;
  result.patched = changed.size();
  result.changed = changed;
  x.last_template_id = plan_id(t);
  return result;
}

}  // namespace detail

UpdateResult Executable::update(const Graph& templ, UpdatePolicy policy) {
  detail::ExecImpl& x = impl();
  (void)detail::checked_enum(policy, UpdatePolicy::whole_graph, "Executable::update", "UpdatePolicy",
                             "an update policy (automatic, per_node or whole_graph)");
  detail::GraphImpl& a = x.plan.impl();
  const detail::GraphImpl& t = templ.impl();

  std::vector<std::uint32_t> renamed;
  bool conditions_changed = false;
  UpdateResult result = detail::plan_diff(a, t, &renamed, &conditions_changed);
  if (!result) return result;
  const std::vector<std::uint32_t>& changed = result.changed;
  // Changes per-node setters cannot make: a kernel's priority and launch attributes, and
  // multi-dimensional copies (cudaGraphExecMemcpyNodeSetParams takes 1-D operands only).
  detail::UpdateNeeds needs;
  needs.nested_change = conditions_changed;  // condition defaults and conditional bodies: cudaGraphExecUpdate only
  if (auto r = detail::update_needs(a, t, changed, needs)) return std::move(*r);

  if (!changed.empty() || conditions_changed) {
    // The automatic policy goes whole-graph for changes per-node setters cannot make and, when the
    // executable's own graph can be patched (in place), for half of the plan's nodes or more (and
    // 32 or more). Measured on an H200 (docs/performance.md, the per_node / whole_graph crossover):
    // the update in place was cheaper than per-node setters from k/N = 0.13-0.18 at N = 100,
    // 0.24-0.37 at N = 1,000 and 0.42-0.77 at N = 10,000; materializing a template never was.
    const bool in_place = policy != UpdatePolicy::per_node && detail::in_place_possible(x, a, t, needs);
    const bool whole =
        policy == UpdatePolicy::whole_graph ||
        (policy == UpdatePolicy::automatic &&
         (needs.priority_changed || needs.multi_dim_copy || needs.nested_change ||
          (in_place && changed.size() >= detail::in_place_min_changed && 2 * changed.size() >= detail::node_count(a))));
    if (auto r = detail::check_strategy(a, whole, needs)) return std::move(*r);
    if (auto r = !whole     ? detail::update_per_node(x, t, changed)
                 : in_place ? detail::update_in_place(x, t, changed)
                            : detail::update_whole_graph(x, t, changed)) {
      return std::move(*r);
    }
    result.strategy = whole ? UpdateStrategy::whole_graph : UpdateStrategy::per_node;
  }
  detail::take_template_names(a, t, renamed);
  detail::take_buffer_bytes(a, t);
  result.patched = changed.size();
  x.last_template_id = detail::plan_id(t);
  return result;
}

}  // namespace graphdsl
