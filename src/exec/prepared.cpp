// src/exec/prepared.cpp — Executable::prepare_update and update(PreparedUpdate): a template diffed,
// checked and materialized once, then applied with one cudaGraphExecUpdate and a bulk copy of its
// parameters into the recorded plan (plan/recorded_update.hpp), as often as the user likes.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "exec/update_steps.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/prepared_update.hpp"
#include "native/native.hpp"
#include "plan/diff.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"
#include "plan/rules.hpp"

namespace graphdsl {
namespace detail {

/// A prepared template: the refusal, or the materialized template and the recorded plan an update
/// from it leaves (a copy of the executable's plan holding the template's parameters).
struct PreparedImpl {
  const ExecImpl* exec = nullptr;  ///< the executable that made it (compared, never read)
  std::weak_ptr<const int> alive;  ///< ExecImpl::alive of that executable
  std::string exec_plan;           ///< that executable's plan name, for messages
  std::string template_name;
  std::uint64_t template_id = 0;       ///< the template's plan id (its node handles work with setters afterwards)
  std::uint64_t function_changes = 0;  ///< ExecImpl::function_changes of that executable when prepared
  UpdateResult result;                 ///< what preparing found
  std::unique_ptr<GraphImpl> image;
  std::shared_ptr<const Materialized> native;
  bool has_conditions = false;  ///< the template graph has condition handles the executable takes over
};

void PreparedImplDelete::destroy(PreparedImpl* p) noexcept { delete p; }

namespace {

/// The diff, the whole-graph strategy's refusals, the template's validation and materialization:
/// a refusal, or success (with the changed nodes) and `q` holding the template.
UpdateResult prepare(PreparedImpl& q, const ExecImpl& x, const GraphImpl& t) {
  const GraphImpl& a = recorded_plan(x);
  std::vector<std::uint32_t> renamed;
  bool conditions_changed = false;
  UpdateResult d = plan_diff(a, t, &renamed, &conditions_changed);
  if (!d) return d;
  UpdateNeeds needs;
  needs.nested_change = conditions_changed;
  if (auto r = update_needs(a, t, d.changed, needs)) return std::move(*r);
  // A shape never changes between updates: what these checks find now holds for every later update.
  if (auto r = check_strategy(a, true, needs)) return std::move(*r);
  std::shared_ptr<Materialized> m;
  try {
    m = std::make_shared<Materialized>(materialize(t, check_plan(t), x.sink));
  } catch (const CudaError& e) {
    return materialize_refusal(e);
  } catch (const UsageError& e) {
    return refusal(UpdateStatus::invalid_template, std::nullopt, without_prefix(e));
  }
  q.has_conditions = !m->handles.empty() || has_nested_conditions(t);
  q.native = std::move(m);
  q.image = updated_copy(a, t, d.changed, renamed);
  d.patched = 0;
  return d;
}

/// The state of `p`, checked to be a prepared update of `x`. @throws UsageError naming the rule.
const PreparedImpl& prepared_for(const ExecImpl& x, const PreparedUpdate& p) {
  const PreparedImpl* q = p.impl();
  if (q == nullptr) {
    throw UsageError(
        "update(PreparedUpdate): the prepared update is empty (default-constructed or moved-from); make one "
        "with Executable::prepare_update(plan)");
  }
  if (q->alive.expired()) {
    throw UsageError(fmt::format(
        "update(PreparedUpdate): the prepared update of template {} was made by an executable of graph {} that has "
        "been destroyed, not by this one (of graph {}); a prepared update applies only to the executable that made it",
        quoted(q->template_name), quoted(q->exec_plan), quoted(plan_name(x.plan.impl()))));
  }
  if (q->exec != &x) {
    throw UsageError(fmt::format(
        "update(PreparedUpdate): the prepared update of template {} was made by another executable (of graph {}), "
        "not by this one (of graph {}); a prepared update applies only to the executable that made it",
        quoted(q->template_name), quoted(q->exec_plan), quoted(plan_name(x.plan.impl()))));
  }
  return *q;
}

}  // namespace
}  // namespace detail

PreparedUpdate::PreparedUpdate() noexcept = default;
PreparedUpdate::PreparedUpdate(detail::PreparedImpl* impl) noexcept : impl_(impl) {}
PreparedUpdate::PreparedUpdate(PreparedUpdate&&) noexcept = default;
PreparedUpdate& PreparedUpdate::operator=(PreparedUpdate&&) noexcept = default;
PreparedUpdate::~PreparedUpdate() = default;

const UpdateResult& PreparedUpdate::result() const {
  if (!impl_)
    throw UsageError("PreparedUpdate::result(): the prepared update is empty (default-constructed or moved-from)");
  return impl_.get()->result;
}

PreparedUpdate Executable::prepare_update(const Graph& templ) const {
  const detail::ExecImpl& x = impl();
  const detail::GraphImpl& t = templ.impl();
  auto q = std::make_unique<detail::PreparedImpl>();
  q->exec = &x;
  q->alive = detail::alive_token(x);
  q->exec_plan = detail::plan_name(x.plan.impl());
  q->template_name = detail::plan_name(t);
  q->template_id = detail::plan_id(t);
  q->function_changes = x.function_changes;
  q->result = detail::prepare(*q, x, t);
  return PreparedUpdate(q.release());
}

UpdateResult Executable::update(const PreparedUpdate& prepared) {
  detail::ExecImpl& x = impl();
  const detail::PreparedImpl& q = detail::prepared_for(x, prepared);
  if (!q.result) return q.result;  // refused when prepared: no CUDA call
  detail::GraphImpl& a = x.plan.impl();
  if (q.function_changes != x.function_changes) {  // as update(template) would now refuse it
    const NodeInfo node = a.info(x.function_changed_node);
    return detail::refusal(UpdateStatus::function_changed, node,
                           fmt::format("{} launches another kernel function since the update from template {} "
                                       "was prepared (set_kernel); prepare it again",
                                       node.describe(), detail::quoted(q.template_name)));
  }
  if (!detail::same_storage(a, *q.image)) {  // cannot happen: a recorded plan's storage keeps its sizes
    throw UsageError(
        fmt::format("update(PreparedUpdate): the recorded plan of graph {} no longer lines up with the "
                    "prepared template {}; prepare it again",
                    detail::quoted(detail::plan_name(a)), detail::quoted(q.template_name)));
  }
  if (auto r = detail::exec_update_native(x, *q.image, q.native, q.has_conditions)) return std::move(*r);
  detail::take_updated(a, *q.image);
  // The executable now runs the template graph's host slots: a setter or update since the last
  // update from this template may have swapped their callables; they get the template's back.
  for (std::size_t k = 0; k < detail::host_count(*q.image); ++k) {
    if (q.native->host_slots[k] == nullptr) continue;  // a removed host node's (Graph::remove_node): no slot
    std::atomic_store(&q.native->host_slots[k]->fn, detail::host_closure(*q.image, k));
  }
  x.last_template_id = q.template_id;
  UpdateResult r;
  r.strategy = UpdateStrategy::whole_graph;
  r.patched = detail::live_node_count(a);
  return r;
}

}  // namespace graphdsl
