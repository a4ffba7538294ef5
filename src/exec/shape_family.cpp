// src/exec/shape_family.cpp — ShapeFamily's variants: adding and grouping them by topology (no CUDA
// call), the pair diffs, the memory report, and the public wrappers (graphdsl/shape_family.hpp).
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "exec/shape_family_core.hpp"
#include "graphdsl/error.hpp"
#include "native/cuda_call.hpp"
#include "plan/diff.hpp"

namespace graphdsl {

const char* to_string(SwitchStrategy s) noexcept {
  switch (s) {
    case SwitchStrategy::none: return "none";
    case SwitchStrategy::compiled: return "compiled";
    case SwitchStrategy::dedicated: return "dedicated";
    case SwitchStrategy::per_node: return "per_node";
    case SwitchStrategy::prepared: return "prepared";
  }
  return "unknown";
}

std::string SwitchReport::to_string() const {
  std::string s = fmt::format("switch '{}' -> '{}' (topology {}, {} of {} nodes differ): {}", from.empty() ? "-" : from,
                              to, topology, changed_nodes, node_count, graphdsl::to_string(chosen));
  if (chosen == SwitchStrategy::per_node || chosen == SwitchStrategy::prepared) {
    s += fmt::format(" (est. per_node {:.1f} us, prepared ", per_node_us);
    s += prepared_available ? fmt::format("{:.1f} us)", prepared_us) : std::string("not available)");
  }
  if (took_us > 0) s += fmt::format(", took {:.1f} us", took_us);
  if (prepare_us > 0) s += fmt::format(" (after preparing it: {:.1f} us)", prepare_us);
  return s;
}

namespace {
std::string mib(std::size_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }
double share(std::size_t a, std::size_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }
}  // namespace

std::string FamilyMemory::to_string() const {
  return fmt::format(
      "{} variants, {} topolog{}, {} dedicated: device {} (separate {}, {:.3f}), host {} (separate {}, {:.3f})",
      variants, topologies, topologies == 1 ? "y" : "ies", dedicated, mib(device_bytes), mib(separate_device_bytes),
      share(device_bytes, separate_device_bytes), mib(host_bytes), mib(separate_host_bytes),
      share(host_bytes, separate_host_bytes));
}

namespace detail {

void family_duplicate_key(const std::string& label) {
  throw UsageError(fmt::format("shape family: variant '{}' was added before (one plan per key)", label));
}
void family_unknown_key() { throw UsageError("shape family: no variant was added for this key"); }

std::size_t device_free_bytes() {
  std::size_t free = 0, total = 0;
  GRAPHDSL_CHECK(cudaMemGetInfo, &free, &total);
  return free;
}

std::size_t host_malloc_bytes() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#else
  return 0;
#endif
}

void FamilyCoreDelete::destroy(FamilyCore* c) noexcept { delete c; }

// ---- adding variants --------------------------------------------------------------------------

/// A variant whose plan differs from a variant of the family only in a graph allocation's size
/// (diff() refuses it at a mem_alloc node) is refused: the family would otherwise give it an
/// executable of its own (its fingerprint differs), without the user knowing why.
void FamilyCore::check_allocations(const FamilyVariant& v) const {
  for (const FamilyTopology& t : topologies) {
    const FamilyVariant& rep = variants[t.variants.front()];
    if (rep.plan.node_count() != v.plan.node_count()) continue;
    const UpdateResult d = diff(rep.plan, v.plan);
    if (d || !d.node || d.node->kind != NodeKind::mem_alloc) continue;
    throw UsageError(fmt::format(
        "shape family: variant '{}' has the topology of variant '{}' but for a graph allocation: {}; CUDA cannot "
        "change a mem_alloc node's size in an update, so allocate the largest variant's size in every variant",
        v.label, rep.label, d.reason));
  }
}

std::size_t FamilyCore::add(std::string label, Graph plan) {
  if (plan.node_count() == 0) {
    throw UsageError(fmt::format("shape family: variant '{}': plan '{}' has no node", label, plan.name()));
  }
  try {
    plan.validate();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("shape family: variant '{}': {}", label, e.what() + 10));  // 10: "graphdsl: "
  }
  FamilyVariant v;
  v.label = std::move(label);
  v.fingerprint = plan.fingerprint();
  v.plan = std::move(plan);
  const auto found = std::find_if(topologies.begin(), topologies.end(), [&](const FamilyTopology& t) {
    return variants[t.variants.front()].fingerprint == v.fingerprint;
  });
  const std::size_t same = static_cast<std::size_t>(found - topologies.begin());
  if (same == topologies.size()) check_allocations(v);
  // Everything that can throw before the family changes: room in both vectors and the list.
  variants.reserve(variants.size() + 1);
  topologies.reserve(topologies.size() + 1);
  const std::size_t index = variants.size();
  if (same == topologies.size()) {
    FamilyTopology t;
    t.variants.push_back(index);
    v.topology = same;
    variants.push_back(std::move(v));
    topologies.push_back(std::move(t));
  } else {
    topologies[same].variants.reserve(topologies[same].variants.size() + 1);
    v.topology = same;
    variants.push_back(std::move(v));
    topologies[same].variants.push_back(index);
  }
  return index;
}

std::size_t FamilyCore::changed_between(std::size_t a, std::size_t b) const {
  if (variants[a].topology != variants[b].topology) {
    throw UsageError(fmt::format("shape family: variants '{}' and '{}' have different topologies ({} and {})",
                                 variants[a].label, variants[b].label, variants[a].topology, variants[b].topology));
  }
  if (a == b) return 0;
  return pair_diff(a, b).differing.size();
}

const PairDiff& FamilyCore::pair_diff(std::size_t a, std::size_t b) const {
  const auto key = std::minmax(a, b);
  auto it = changed.find(key);
  if (it != changed.end()) return it->second;
  std::vector<std::uint32_t> renamed;
  bool conditions_changed = false;
  UpdateResult d = plan_diff(variants[key.first].plan.impl(), variants[key.second].plan.impl(), &renamed,
                             &conditions_changed);
  PairDiff p;
  if (d) {
    p.differing = std::move(d.changed);
    p.setters_suffice = renamed.empty() && !conditions_changed;
  } else {  // no update between them: counted as every node differing
    p.differing.resize(variants[a].plan.node_count());
    for (std::uint32_t i = 0; i < p.differing.size(); ++i) p.differing[i] = i;
  }
  return changed.emplace(key, std::move(p)).first->second;
}

FamilyMemory FamilyCore::memory() const {
  FamilyMemory m;
  m.variants = variants.size();
  m.topologies = topologies.size();
  for (const FamilyTopology& t : topologies) {
    if (!t.exec) continue;
    m.device_bytes += t.device_bytes;
    m.host_bytes += t.host_bytes;
    m.separate_device_bytes += t.device_bytes * t.variants.size();
    m.separate_host_bytes += t.host_bytes * t.variants.size();
  }
  for (const FamilyVariant& v : variants) {
    m.host_bytes += v.prepared_host + v.plan.storage_bytes();
    if (v.prepared) ++m.prepared;
    if (v.own) {
      ++m.dedicated;
      m.device_bytes += v.own_device;
    }
  }
  return m;
}

}  // namespace detail

// ---- the public wrapper -----------------------------------------------------------------------

namespace detail {

FamilyBase::FamilyBase(const FamilyOptions& options) : core_(new FamilyCore(options)) {}
FamilyBase::FamilyBase(FamilyBase&&) noexcept = default;
FamilyBase& FamilyBase::operator=(FamilyBase&&) noexcept = default;
FamilyBase::~FamilyBase() = default;

namespace {
FamilyCore& live(const UniqueHandle<FamilyCore*, FamilyCoreDelete>& c) {
  if (!c) throw UsageError("shape family: the family was moved from");
  return *c.get();
}
void check_index(const FamilyCore& c, std::size_t v) {
  if (v >= c.variants.size()) throw UsageError(fmt::format("shape family: no variant #{}", v));
}
}  // namespace

std::size_t FamilyBase::add_variant(std::string label, Graph plan) {
  return live(core_).add(std::move(label), std::move(plan));
}

void FamilyBase::remove_last_variant() noexcept {
  if (!core_ || core_.get()->variants.empty()) return;
  FamilyCore& c = *core_.get();
  const std::size_t v = c.variants.size() - 1;
  FamilyTopology& t = c.topologies[c.variants[v].topology];
  t.variants.pop_back();
  if (t.variants.empty()) c.topologies.pop_back();  // it made the topology (the last one)
  c.variants.pop_back();
}

void FamilyBase::compile(cudaStream_t stream) { live(core_).compile(stream); }
void FamilyBase::launch_variant(std::size_t v, cudaStream_t stream) {
  FamilyCore& c = live(core_);
  check_index(c, v);
  c.launch(v, stream);
}
std::size_t FamilyBase::variant_count() const noexcept { return core_ ? core_.get()->variants.size() : 0; }
std::size_t FamilyBase::topology_count() const noexcept { return core_ ? core_.get()->topologies.size() : 0; }
std::size_t FamilyBase::topology_of(std::size_t v) const {
  check_index(live(core_), v);
  return core_.get()->variants[v].topology;
}
const std::string& FamilyBase::label(std::size_t v) const {
  check_index(live(core_), v);
  return core_.get()->variants[v].label;
}
const Graph& FamilyBase::plan(std::size_t v) const {
  check_index(live(core_), v);
  return core_.get()->variants[v].plan;
}
std::size_t FamilyBase::changed_between(std::size_t a, std::size_t b) const {
  const FamilyCore& c = live(core_);
  check_index(c, a);
  check_index(c, b);
  return c.changed_between(a, b);
}
const Executable* FamilyBase::executable_of(std::size_t v) const noexcept {
  if (!core_ || v >= core_.get()->variants.size()) return nullptr;
  const FamilyVariant& var = core_.get()->variants[v];
  if (var.own) return &var.own;
  const Executable& e = core_.get()->topologies[var.topology].exec;
  return e ? &e : nullptr;
}
bool FamilyBase::has_dedicated(std::size_t v) const {
  check_index(live(core_), v);
  return static_cast<bool>(core_.get()->variants[v].own);
}
const SwitchReport& FamilyBase::last_switch() const noexcept {
  static const SwitchReport none{};
  return core_ ? core_.get()->report : none;
}
const FamilyStats& FamilyBase::stats() const noexcept {
  static const FamilyStats none{};
  return core_ ? core_.get()->stats : none;
}
FamilyMemory FamilyBase::memory() const { return live(core_).memory(); }
const FamilyOptions& FamilyBase::options() const noexcept {
  static const FamilyOptions none{};
  return core_ ? core_.get()->options : none;
}
void FamilyBase::set_dedicated_budget(std::size_t bytes) { live(core_).set_budget(bytes); }

}  // namespace detail
}  // namespace graphdsl
