// src/exec/shape_family_switch.cpp — ShapeFamily's executables: compiling one per topology, preparing
// every variant, measuring the two switch costs, switching on launch, and the variants' executables
// of their own under a byte budget (least recently used out first).
#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "exec/exec_access.hpp"
#include "exec/shape_family_core.hpp"
#include "exec/update_steps.hpp"
#include "graphdsl/error.hpp"
#include "native/cuda_call.hpp"
#include "plan/diff.hpp"

namespace graphdsl::detail {

namespace {

using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

/// An executable compiled from `plan` and uploaded on `stream`, with the device bytes (cudaMemGetInfo
/// delta, after the upload has finished) and the malloc'd host bytes that took.
struct Compiled {
  Executable exec;
  std::size_t device = 0, host = 0;
};
Compiled compile_plan(const FamilyVariant& v, const InstantiateOptions& options, cudaStream_t stream) {
  Compiled c;
  const std::size_t free0 = device_free_bytes(), host0 = host_malloc_bytes();
  try {
    c.exec = v.plan.instantiate(options);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("shape family: variant '{}': {}", v.label, e.what() + 10));  // 10: "graphdsl: "
  }
  c.exec.upload(stream);
  GRAPHDSL_CHECK(cudaStreamSynchronize, stream);
  c.host = grew(host0, host_malloc_bytes());
  c.device = grew(device_free_bytes(), free0);
  return c;
}

/// The best of `reps` runs of `fn` (host wall time, µs).
template <class F>
double best_of(int reps, F&& fn) {
  double best = std::numeric_limits<double>::max();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    fn();
    best = std::min(best, us_since(t0));
  }
  return best;
}

[[noreturn]] void refused(const FamilyCore& c, const FamilyTopology& t, std::size_t to, const UpdateResult& r) {
  throw UsageError(
      fmt::format("shape family: switching topology {} from variant '{}' to variant '{}' was refused "
                  "(the executable keeps variant '{}'): {}",
                  c.variants[to].topology, c.variants[t.current].label, c.variants[to].label,
                  c.variants[t.current].label, r.to_string()));
}

}  // namespace

void FamilyCore::compile_topology(FamilyTopology& t, cudaStream_t stream) {
  const std::size_t rep = t.variants.front();
  Compiled c = compile_plan(variants[rep], options.instantiate, stream);
  t.exec = std::move(c.exec);
  t.device_bytes = c.device;
  t.host_bytes = c.host;
  t.current = rep;
  ++stats.compiled;
}

void FamilyCore::prepare(FamilyVariant& v) {
  FamilyTopology& t = topologies[v.topology];
  const std::size_t host0 = host_malloc_bytes();
  v.prepared = t.exec.prepare_update(v.plan);
  v.prepared_host = grew(host0, host_malloc_bytes());
}

/// One switch each way by each strategy between the first two variants (best of two), and the diff
/// alone: the per-node switch costs the diff plus one setter per changed node, the prepared one what
/// it measured. The executable ends on the first variant.
void FamilyCore::calibrate(FamilyTopology& t) {
  if (t.variants.size() < 2 || !options.calibrate) return;
  const std::size_t a = t.variants[0], b = t.variants[1];
  if (t.current != a) switch_to(t, a);
  const Graph& pa = variants[a].plan;
  const Graph& pb = variants[b].plan;
  const double n = static_cast<double>(pa.node_count());
  const double k = static_cast<double>(std::max<std::size_t>(changed_between(a, b), 1));
  const double diff_us = best_of(3, [&] { (void)diff(pa, pb); });
  bool per_node_ok = true;
  const double per_node = best_of(2,
                                  [&] {
                                    per_node_ok = per_node_ok && t.exec.update(pb, UpdatePolicy::per_node) &&
                                                  t.exec.update(pa, UpdatePolicy::per_node);
                                  }) /
                          2;
  if (!per_node_ok) (void)t.exec.update(pa);  // back to a, whatever it takes
  t.costs.diff_us_per_node = diff_us / n;
  if (per_node_ok) t.costs.setter_us = std::max(0.05, (per_node - diff_us) / k);
  auto ready = [&](std::size_t v) { return variants[v].prepared && variants[v].prepared.ok(); };
  if (ready(a) && ready(b)) {  // without prepared templates (FamilyOptions::prepare_templates) both are empty
    bool ok = true;
    t.costs.prepared_us =
        best_of(2, [&] { ok = ok && t.exec.update(variants[b].prepared) && t.exec.update(variants[a].prepared); }) / 2;
    if (!ok) (void)t.exec.update(pa);
  }
  t.current = a;
  t.costs.calibrated = true;
}

void FamilyCore::compile(cudaStream_t stream) {
  for (FamilyTopology& t : topologies) {
    if (!t.exec) compile_topology(t, stream);
  }
  for (FamilyVariant& v : variants) {
    if (!v.prepared && options.prepare_templates && options.prepare_eagerly) prepare(v);
  }
  for (FamilyTopology& t : topologies) {
    if (!t.costs.calibrated) calibrate(t);
  }
  compiled = true;
}

/// A variant added after compile(): its topology is compiled, or the variant prepared, on first use.
void FamilyCore::ensure_ready(FamilyVariant& v, cudaStream_t stream) {
  FamilyTopology& t = topologies[v.topology];
  if (!t.exec) {
    compile_topology(t, stream);
    report.chosen = SwitchStrategy::compiled;
  }
  if (!v.prepared && options.prepare_templates && options.prepare_eagerly) prepare(v);
}

void FamilyCore::switch_to(FamilyTopology& t, std::size_t v) {
  const FamilyVariant& to = variants[v];
  SwitchReport r;
  r.from = t.current == no_variant ? std::string() : variants[t.current].label;
  r.to = to.label;
  r.topology = to.topology;
  r.node_count = to.plan.node_count();
  if (t.current == v) {
    report = std::move(r);
    ++stats.unchanged;
    return;
  }
  const PairDiff& pair = pair_diff(t.current, v);
  r.changed_nodes = pair.differing.size();
  const double n = static_cast<double>(r.node_count);
  // With the pair's diff at hand, a per-node switch is its setters alone.
  r.per_node_us = (pair.setters_suffice ? 0.0 : t.costs.diff_us_per_node * n) +
                  t.costs.setter_us * static_cast<double>(r.changed_nodes);
  // Not prepared yet (on demand): it may be, should this switch take the prepared update, unless the
  // plan is one prepare_update refuses (graph allocations, device-updatable nodes).
  r.prepared_available = to.prepared ? to.prepared.ok()
                                     : options.prepare_templates && !whole_graph_refusal(to.plan.impl());
  r.prepared_us = !r.prepared_available ? 0.0 : t.costs.prepared_us >= 0 ? t.costs.prepared_us : 5.0 + 0.1 * n;
  bool use_prepared = r.prepared_available &&
                      (options.policy == SwitchPolicy::prepared ||
                       (options.policy == SwitchPolicy::automatic && r.prepared_us < r.per_node_us));
  auto prepare_now = [&] {  // on demand; refused (graph allocations): the switch goes per node
    if (to.prepared) return;
    const auto p0 = Clock::now();
    prepare(variants[v]);
    r.prepare_us = us_since(p0);
    r.prepared_available = to.prepared.ok();
  };
  if (use_prepared) {
    prepare_now();
    use_prepared = r.prepared_available;
  }
  const auto t0 = Clock::now();
  double prepared_update_us = -1;  // the prepared update alone: what the cost model learns
  auto update_prepared = [&] {
    const auto p0 = Clock::now();
    UpdateResult res = t.exec.update(to.prepared);
    prepared_update_us = us_since(p0);
    return res;
  };
  UpdateResult u = use_prepared           ? update_prepared()
                   : pair.setters_suffice ? update_known_nodes(ExecAccess::of(t.exec), to.plan.impl(), pair.differing)
                                          : t.exec.update(to.plan, UpdatePolicy::per_node);
  r.chosen = use_prepared ? SwitchStrategy::prepared : SwitchStrategy::per_node;
  double prepared_inside = 0;  // preparing inside the switch: reported in prepare_us, not in took_us
  if (!u && !use_prepared && r.prepared_available) {  // a change setters cannot make
    const double before = r.prepare_us;
    prepare_now();
    prepared_inside = r.prepare_us - before;
    if (r.prepared_available) {
      u = update_prepared();
      r.chosen = SwitchStrategy::prepared;
    }
  }
  if (!u) {  // last: update(plan) as it chooses (counted per_node)
    u = t.exec.update(to.plan, UpdatePolicy::automatic);
    r.chosen = SwitchStrategy::per_node;
  }
  if (!u) refused(*this, t, v, u);
  r.took_us = us_since(t0) - prepared_inside;
  if (r.chosen == SwitchStrategy::prepared && t.costs.prepared_us < 0 && options.calibrate) {
    t.costs.prepared_us = prepared_update_us;  // the model learns the prepared update's cost from its first use
  }
  ++(r.chosen == SwitchStrategy::prepared ? stats.prepared : stats.per_node);
  t.current = v;
  report = std::move(r);
}

// ---- executables of their own -------------------------------------------------------------------

void FamilyCore::evict_until(std::size_t bytes, std::size_t keep) {
  while (dedicated_bytes > bytes) {
    std::size_t victim = no_variant;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      if (i == keep || !variants[i].own) continue;
      if (victim == no_variant || variants[i].last_use < variants[victim].last_use) victim = i;
    }
    if (victim == no_variant) return;
    FamilyVariant& v = variants[victim];
    v.own = Executable();
    dedicated_bytes -= std::min(dedicated_bytes, v.own_device);
    v.own_device = 0;
    v.uses = 0;
    ++stats.evictions;
  }
}

/// Gives variant v an executable of its own when the budget can hold one, evicting the least recently
/// used ones to make room. Each is charged the device bytes its topology's executable measured when
/// compiled (the same plan shape), so that the accounting does not follow cudaMemGetInfo's noise.
bool FamilyCore::promote(std::size_t v, cudaStream_t stream) {
  FamilyVariant& var = variants[v];
  const std::size_t cost = std::max<std::size_t>(topologies[var.topology].device_bytes, 1);
  if (options.dedicated_budget_bytes == 0 || cost > options.dedicated_budget_bytes) return false;
  if (var.uses < std::max(1u, options.promote_after)) return false;
  evict_until(options.dedicated_budget_bytes - cost, v);
  const auto t0 = Clock::now();
  Compiled c = compile_plan(var, options.instantiate, stream);
  var.own = std::move(c.exec);
  var.own_device = cost;  // charged what its topology's executable measured: one noisy reading less
  dedicated_bytes += var.own_device;
  ++stats.promotions;
  ++stats.compiled;
  report.took_us = us_since(t0);
  return true;
}

void FamilyCore::set_budget(std::size_t bytes) {
  options.dedicated_budget_bytes = bytes;
  evict_until(bytes, no_variant);
}

void FamilyCore::launch(std::size_t v, cudaStream_t stream) {
  if (!compiled) compile(stream);
  FamilyVariant& var = variants[v];
  report = SwitchReport{};
  ensure_ready(var, stream);
  var.last_use = ++clock;
  ++var.uses;
  FamilyTopology& t = topologies[var.topology];
  if (var.own || promote(v, stream)) {
    const double took = report.took_us;
    report = SwitchReport{};
    report.from = report.to = var.label;
    report.topology = var.topology;
    report.node_count = var.plan.node_count();
    report.chosen = SwitchStrategy::dedicated;
    report.took_us = took;
    var.own.launch(stream);
    ++stats.dedicated_launches;
    ++stats.launches;
    return;
  }
  const bool fresh = report.chosen == SwitchStrategy::compiled;
  switch_to(t, v);
  if (fresh) report.chosen = SwitchStrategy::compiled;
  t.exec.launch(stream);
  ++stats.launches;
}

}  // namespace graphdsl::detail
