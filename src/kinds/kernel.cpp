// src/kinds/kernel.cpp — the kernel node kind (Graph::add_kernel): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

#include "graphdsl/graph.hpp"

namespace graphdsl {

unsigned char* Graph::add_argument_block(std::size_t bytes, std::size_t& offset) {
  auto& g = impl();
  offset = g.args.size();
  g.args.resize(offset + bytes);
  return g.args.data() + offset;
}

detail::NodeRef Graph::add_kernel_node(const void* func, const Launch& launch, const detail::ArgLayout* layout,
                                       std::size_t args_offset, const detail::PlaceholderArg* placeholders,
                                       std::size_t count) {
  auto& g = impl();
  const auto first = static_cast<std::uint32_t>(g.placeholders.size());
  for (std::size_t k = 0; k < count; ++k) {
    const detail::PlaceholderArg& p = placeholders[k];
    detail::ConditionRef ref;
    if (p.kind == detail::PlaceholderKind::condition) {
      ref = g.resolve(Condition(p.uid));
    } else {
      ref = g.resolve_buffer(p.uid);  // this plan's buffer, or one of the plan a body is built in
    }
    g.placeholders.push_back(detail::KernelPlaceholder{p.offset, p.kind, ref, p.uid, p.bytes});
  }
  g.kernel_links.resize(g.kernels.size());  // one index for both again, should a call have failed between the two
  // The records are written in place, field by field: a record built on the stack and copied in
  // was read back before its stores had landed (a store-forwarding stall, most of the add's time).
  detail::KernelData& k = g.kernels.emplace_back();
  k.func = func;
  k.args = args_offset;
  detail::KernelLinks& links = g.kernel_links.emplace_back();
  links.layout = layout;
  links.ph_first = first;
  links.ph_count = static_cast<std::uint32_t>(count);
  detail::store_launch(g, static_cast<std::uint32_t>(g.kernels.size() - 1), launch);
  return g.push(NodeKind::kernel, g.kernels.size() - 1);
}

}  // namespace graphdsl

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include "graphdsl/detail/condition_kernels.hpp"
#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

/// CUDA's per-dimension limits of grid and block (the same on every device graphdsl supports);
/// threads per block and dynamic shared memory are checked elsewhere.
void check_launch_limits(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const LaunchShape& l) {
  // Every launch within the limits (the common case, once per kernel node of every validation)
  // skips building the table below, which cost a third of the kernel rules' time.
  if (launch_shape_allowed(l.grid, l.block)) return;
  struct Limit {
    const char* what;
    char axis;
    unsigned value;
    unsigned most;
  };
  const Limit limits[] = {{"grid", 'x', l.grid.x, 2147483647u}, {"grid", 'y', l.grid.y, 65535u},
                          {"grid", 'z', l.grid.z, 65535u},      {"block", 'x', l.block.x, 1024u},
                          {"block", 'y', l.block.y, 1024u},     {"block", 'z', l.block.z, 64u}};
  for (const Limit& m : limits) {
    if (m.value > m.most) {
      fail(g, i, ctx,
           fmt::format("{} {} has {} = {}; CUDA allows at most {} in {}.{}", m.what,
                       dims(m.what[0] == 'g' ? l.grid : l.block), m.axis, m.value, m.most, m.what, m.axis));
    }
  }
}

/// The launch attributes' rules that need no CUDA call (the device's own limits are checked when
/// the plan is compiled: kinds/kernel_build.cpp, check_attributes_on_device).
void check_launch_attributes(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const Launch& l) {
  const dim3& c = l.cluster;
  if (c.x != 0 || c.y != 0 || c.z != 0) {
    if (c.x == 0 || c.y == 0 || c.z == 0) {
      fail(g, i, ctx,
           fmt::format("cluster {} has a zero dimension; every dimension must be at least 1 (or all 0 for "
                       "no cluster)",
                       dims(c)));
    }
    const std::pair<char, std::pair<unsigned, unsigned>> axes[] = {{'x', {l.grid.x, c.x}},
                                                                   {'y', {l.grid.y, c.y}},
                                                                   {'z', {l.grid.z, c.z}}};
    for (const auto& [axis, gc] : axes) {
      if (gc.first % gc.second != 0) {
        fail(g, i, ctx,
             fmt::format("grid {} is not a whole number of clusters {}: {} blocks in {} do not divide into "
                         "clusters of {}",
                         dims(l.grid), dims(c), gc.first, axis, gc.second));
      }
    }
    const Count blocks = Count{c.x}.times(c.y).times(c.z);
    if (blocks.above(16)) {
      fail(g, i, ctx,
           fmt::format("cluster {} has {} blocks; CUDA allows at most 8 blocks per cluster (16 with "
                       "cudaFuncAttributeNonPortableClusterSizeAllowed)",
                       dims(c), blocks.text()));
    }
  }
  if (l.l2.bytes != 0) {
    if (l.l2.base == nullptr)
      fail(g, i, ctx, fmt::format("its L2 window of {} bytes starts at a null pointer", l.l2.bytes));
    if (!(l.l2.hit_ratio >= 0.0f && l.l2.hit_ratio <= 1.0f)) {
      fail(g, i, ctx, fmt::format("its L2 window's hit ratio is {}; it must be in [0, 1]", l.l2.hit_ratio));
    }
  }
  const auto domain = static_cast<unsigned>(l.sync_domain);
  if (domain > 1)
    fail(g, i, ctx, fmt::format("memory sync domain {} is not a MemSyncDomain (default or remote)", domain));
  for (auto [which, a] : {std::pair<const char*, L2Access>{"hit", l.l2.hit}, {"miss", l.l2.miss}}) {
    if (static_cast<unsigned>(a) > 2) {
      fail(g, i, ctx,
           fmt::format("its L2 window's {} property {} is not an L2Access (normal, streaming or "
                       "persisting)",
                       which, static_cast<unsigned>(a)));
    }
  }
}

/// A kernel made by add_set_condition (or given its kernel through a setter): the comparison
/// argument must be one of the six the kernel knows (any other sets the condition to 0).
void check_set_condition(const GraphImpl& g, std::uint32_t i, const std::string& ctx, const KernelData& k,
                         const KernelLinks& links) {
  const void* kinds[] = {reinterpret_cast<const void*>(set_condition_kernel<int>()),
                         reinterpret_cast<const void*>(set_condition_kernel<unsigned int>()),
                         reinterpret_cast<const void*>(set_condition_kernel<float>()),
                         reinterpret_cast<const void*>(set_condition_kernel<double>())};
  if (std::find(std::begin(kinds), std::end(kinds), k.func) == std::end(kinds)) return;
  int op = 0;
  std::memcpy(&op, g.args.data() + k.args + links.layout->offsets[2], sizeof op);
  if (op < 0 || op > static_cast<int>(Compare::greater_equal)) {
    fail(g, i, ctx,
         fmt::format("sets its condition with comparison {}, which is not a Compare value (equal, "
                     "not_equal, less, less_equal, greater or greater_equal)",
                     op));
  }
}

void check_kernel(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const KernelData& k = g.kernels[g.nodes[i].payload];
  const KernelLinks& links = g.kernel_links[g.nodes[i].payload];
  if (k.func == nullptr) fail(g, i, ctx, "the kernel function is null");
  const LaunchShape& l = k.launch;
  for (auto [what, d] : {std::pair<const char*, dim3>{"grid", l.grid}, {"block", l.block}}) {
    if (d.x == 0 || d.y == 0 || d.z == 0) {
      fail(g, i, ctx, fmt::format("{} {} has a zero dimension; every dimension must be at least 1", what, dims(d)));
    }
  }
  for (std::uint32_t c = 0; c < links.ph_count; ++c) {
    const KernelPlaceholder& ph = kernel_placeholder(g, links, c);
    if (ph.ref.levels != ConditionRef::unresolved) continue;
    if (ph.kind == PlaceholderKind::condition) {
      fail(g, i, ctx,
           fmt::format("a Condition argument is not declared in graph {} or a plan enclosing it (an "
                       "empty Condition, or one declared by another plan)",
                       quoted(g.name)));
    }
    fail(g, i, ctx,
         fmt::format("a GraphBuffer argument is not allocated by graph {} or a plan enclosing it {}", quoted(g.name),
                     buffer_scope_hint));
  }
  check_kernel_slices(g, i, ctx);
  // The total first: "2048 threads" says more than "x = 2048" when both rules are broken.
  const Count threads = Count{l.block.x}.times(l.block.y).times(l.block.z);
  if (threads.above(1024)) {
    fail(g, i, ctx,
         fmt::format("block {} has {} threads; CUDA allows at most 1024 threads per block", dims(l.block),
                     threads.text()));
  }
  check_launch_limits(g, i, ctx, l);
  if (attributes_of(g, g.nodes[i].payload) != nullptr) {
    check_launch_attributes(g, i, ctx, launch_of(g, g.nodes[i].payload));
  }
  check_set_condition(g, i, ctx, k, links);
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::kernel {
// In order: check, not_placeable, in_body, check_scoped, kinded_edges, check_replacement.
const RuleOps rules{/*check=*/&rule::check_kernel,
                    /*not_placeable=*/nullptr,
                    /*in_body=*/true,
                    /*check_scoped=*/&rule::check_kernel_scoped,
                    /*kinded_edges=*/true,
                    /*check_replacement=*/&rule::check_kernel_replacement};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// The region of graph buffer argument `ph` of kernel `k` (of the innermost plan of `scope`), whose
/// allocation is in that plan or one enclosing it; nullopt when no plan in scope allocates it there.
std::optional<Region> placeholder_region(const Scope* scope, const KernelData& k, const KernelPlaceholder& ph) {
  if (ph.ref.levels == ConditionRef::unresolved) return std::nullopt;
  const GraphImpl& g = *scope->plan;
  for (std::uint32_t n = 0; scope != nullptr && n < ph.ref.levels; ++n) scope = scope->outer;
  if (scope == nullptr || scope->plan->alloc_node(ph.uid) != ph.ref.index) return std::nullopt;
  return buffer_region(*scope->plan, ph.ref.index, placeholder_offset(g, k, ph), ph.bytes);
}

/// The accesses of kernel node i's parameters and placeholders (not its declared ranges).
void kernel_accesses(const GraphImpl& g, std::uint32_t i, const Scope* scope, const std::vector<bool>& declared,
                     Level& level) {
  const KernelData& k = g.kernels[g.nodes[i].payload];
  const KernelLinks& links = g.kernel_links[g.nodes[i].payload];
  const ArgLayout* layout = links.layout;
  if (layout == nullptr || layout->access == nullptr) return;
  Access a;
  a.node = i;
  std::vector<bool> placeholder(layout->count, false);
  for (std::uint32_t c = 0; c < links.ph_count; ++c) {
    const KernelPlaceholder& ph = kernel_placeholder(g, links, c);
    const auto* at = std::find(layout->offsets, layout->offsets + layout->count, ph.offset);
    const auto param = static_cast<std::uint32_t>(at - layout->offsets);
    if (param >= layout->count) continue;
    placeholder[param] = true;
    a.param = static_cast<std::int32_t>(param);
    if (ph.kind == PlaceholderKind::condition) {
      const std::uint64_t uid = condition_uid(scope, ph.ref);
      if (uid == 0) continue;
      a.r = make_region(Space::condition, uid, 0, 1, 0, 1);
      a.mode = AccessMode::write;
      a.origin = Origin::kernel_condition;
    } else {
      if (declared[param]) continue;
      const std::optional<Region> r = placeholder_region(scope, k, ph);  // also a buffer of an enclosing plan
      if (!r) continue;
      a.r = *r;
      a.mode = layout->access[param] == 1 ? AccessMode::read : AccessMode::write;
      a.origin = Origin::kernel_buffer;
    }
    level.accesses.push_back(a);
  }
  for (std::uint32_t param = 0; param < layout->count; ++param) {
    if (layout->access[param] == 0 || placeholder[param] || declared[param]) continue;
    void* ptr = nullptr;
    std::memcpy(&ptr, g.args.data() + k.args + layout->offsets[param], sizeof ptr);
    if (ptr == nullptr) continue;
    a.param = static_cast<std::int32_t>(param);
    a.r = make_region(Space::address, 0, reinterpret_cast<std::uintptr_t>(ptr), 1, 0, 1);
    a.mode = layout->access[param] == 1 ? AccessMode::read : AccessMode::write;
    a.origin = Origin::kernel_pointer;
    level.accesses.push_back(a);
    ++level.unknown_extents;
  }
}

/// The accesses of a kernel node: its parameters and placeholders.
void kernel_node_accesses(const NodeContext& c) { kernel_accesses(c.g, c.i, &c.here, c.params, c.level); }

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::kernel {
const RaceOps races{&race::kernel_node_accesses, &kernel_parameter_count};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "plan/diff.hpp"

namespace graphdsl::detail::kinds::kernel {
namespace compare_fns {  // this section's functions (a namespace of their own: sections share the file)

/// A kernel's cluster shape and cooperative launch are shape, not parameters: cudaGraphExecUpdate
/// accepts a new cluster shape, but the node then faults when launched (cudaErrorLaunchFailure,
/// H200, driver 580), so update() refuses the change under every policy, and diff() with it.
std::optional<UpdateResult> compare_fixed_launch(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                                 const std::string& ctx) {
  if (a.kernel_attributes.empty() && b.kernel_attributes.empty()) return std::nullopt;
  const Launch la = launch_of(a, a.nodes[i].payload);
  const Launch lb = launch_of(b, b.nodes[i].payload);
  if (same_dims(la.cluster, lb.cluster) && la.cooperative == lb.cooperative) return std::nullopt;
  return refusal(UpdateStatus::attributes_changed, b.info(i),
                 fmt::format("{}{}: its cluster or cooperative launch changed ({} to {}), which CUDA "
                             "cannot patch in an executable; compile the new plan instead",
                             ctx, b.info(i).describe(), launch_attributes_text(la), launch_attributes_text(lb)));
}

/// Same function, the same Condition or GraphBuffer arguments, cluster shape and cooperative launch
/// (the rest of the launch and the argument bytes are parameters: same_kernel).
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                          const std::string& ctx) {
  const KernelData& kx = a.kernels[a.nodes[i].payload];
  const KernelData& ky = b.kernels[b.nodes[i].payload];
  if (kx.func != ky.func) {
    return refusal(UpdateStatus::function_changed, b.info(i),
                   fmt::format("{}{} launches a different kernel function in the template", ctx, b.info(i).describe()));
  }
  const KernelLinks& lx = a.kernel_links[a.nodes[i].payload];
  const KernelLinks& ly = b.kernel_links[b.nodes[i].payload];
  bool same_conditions = lx.ph_count == ly.ph_count;
  for (std::uint32_t c = 0; same_conditions && c < lx.ph_count; ++c) {
    const KernelPlaceholder& cx = kernel_placeholder(a, lx, c);
    const KernelPlaceholder& cy = kernel_placeholder(b, ly, c);
    same_conditions = cx.offset == cy.offset && cx.kind == cy.kind && same_ref(cx.ref, cy.ref);
  }
  if (!same_conditions) {
    return refusal(UpdateStatus::topology_changed, b.info(i),
                   fmt::format("{}{} takes other Condition or GraphBuffer arguments in the template", ctx,
                               b.info(i).describe()));
  }
  if (auto r = compare_fixed_launch(a, b, i, ctx)) return r;
  const bool mine = device_updatable(a, a.nodes[i].payload);
  if (mine != device_updatable(b, b.nodes[i].payload)) {
    return refusal(UpdateStatus::attributes_changed, b.info(i),
                   fmt::format("{}{} is {} in the executable but {} in the template; CUDA cannot "
                               "change that in an executable (a node cannot opt out, and a graph with "
                               "device-updatable nodes cannot be given to cudaGraphExecUpdate); compile the new "
                               "plan instead",
                               ctx, b.info(i).describe(), mine ? "device-updatable" : "not device-updatable",
                               mine ? "not" : "device-updatable"));
  }
  return std::nullopt;
}

void save(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool /*own*/) {
  s.kernel = g.kernels[payload];
  s.layout = g.kernel_links[payload].layout;
  s.launch = launch_of(g, payload);
  s.args.assign(g.args.begin() + s.kernel.args, g.args.begin() + s.kernel.args + s.layout->total);
}

void restore(const SavedParams& s, GraphImpl& g, std::uint32_t payload) {
  KernelData& k = g.kernels[payload];
  const std::uint64_t mine = k.args;  // where this plan keeps the arguments (its links: its placeholders)
  k = s.kernel;
  k.args = mine;
  g.kernel_links[payload].layout = s.layout;
  store_launch(g, payload, s.launch);
  const std::size_t offset = k.args;
  std::copy(s.args.begin(), s.args.end(), g.args.begin() + offset);
}

/// The function, the Condition or GraphBuffer arguments, the cluster shape, cooperative launch and
/// whether the node is device-updatable (an executable cannot change those: part of the
/// update-compatible shape).
void fingerprint(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& /*memo*/) {
  const std::uint32_t payload = g.nodes[i].payload;
  const auto& k = g.kernels[payload];
  const auto& links = g.kernel_links[payload];
  f.add(k.func);
  if (device_updatable(g, payload)) f.add(std::uint8_t{0xdu});
  if (attributes_of(g, payload) != nullptr) {  // cluster shape and cooperative launch: shape (compare_fixed_launch)
    const Launch l = launch_of(g, payload);
    if (l.cluster.x != 0 || l.cluster.y != 0 || l.cluster.z != 0 || l.cooperative) {
      f.add(l.cluster.x);
      f.add(l.cluster.y);
      f.add(l.cluster.z);
      f.add(l.cooperative);
    }
  }
  for (std::uint32_t c = 0; c < links.ph_count; ++c) {
    const auto& kc = kernel_placeholder(g, links, c);
    f.add(kc.offset);
    f.add(kc.kind);
    f.add(kc.ref.levels);
    f.add(kc.ref.index);
  }
}

}  // namespace compare_fns

const CompareOps compare{/*same_params=*/detail::same_kernel,
                         /*compare_shape=*/compare_fns::compare_shape,
                         /*fingerprint=*/compare_fns::fingerprint,
                         /*after_edges=*/false,
                         /*save=*/compare_fns::save,
                         /*restore=*/compare_fns::restore,
                         /*nested=*/false,
                         /*needs_whole_update=*/&kernel_needs_whole_update};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

#include <string>

#include <fmt/format.h>

#include "plan/print_parts.hpp"
#include "plan/rules.hpp"

namespace graphdsl::detail::kinds::kernel {
namespace describing {
namespace {

std::string dims(const dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

/// A kernel's placeholder argument: ", sets condition #0" or ", argument 2: buffer of 'tmp'" (the
/// mem_alloc node that allocates it; arguments count from 1).
std::string placeholder_arg(const detail::GraphImpl& g, const detail::KernelData& kd, const detail::KernelLinks& k,
                            const detail::KernelPlaceholder& p) {
  if (p.kind == detail::PlaceholderKind::condition) return fmt::format(", sets condition {}", condition_ref(p.ref));
  const std::uint32_t arg = detail::argument_at(*k.layout, p.offset);
  if (p.ref.levels == detail::ConditionRef::unresolved) {
    return fmt::format(", argument {}: a graph buffer of another plan", arg + 1);
  }
  return fmt::format(", argument {}: buffer of {}", arg + 1,
                     detail::buffer_text(g, p.ref, detail::placeholder_offset(g, kd, p), p.bytes));
}

/// A kernel's launch attributes for dumps and DOT labels: ", cluster (2,1,1), cooperative, ...";
/// empty when it has none.
std::string attributes_text(const Launch& l) {
  std::string s;
  if (l.cluster.x != 0) s += fmt::format(", cluster {}", dims(l.cluster));
  if (l.cooperative) s += ", cooperative";
  if (l.sync_domain != MemSyncDomain::default_domain) s += fmt::format(", sync domain {}", to_string(l.sync_domain));
  if (l.l2.bytes != 0) {
    s += fmt::format(", L2 window {} B hit {:g} {}/{}", l.l2.bytes, l.l2.hit_ratio, to_string(l.l2.hit),
                     to_string(l.l2.miss));
  }
  if (l.device_updatable) s += ", device-updatable";
  return s;
}

std::string summary(const detail::GraphImpl& g, std::uint32_t i, const NodeParams& params) {
  const detail::NodeData& n = g.nodes[i];
  const auto& k = g.kernels[n.payload];
  const auto& links = g.kernel_links[n.payload];
  std::string s = fmt::format("grid {} block {} shared {} B, {} args ({} B)", dims(k.launch.grid), dims(k.launch.block),
                              k.launch.shared_bytes, links.layout->count, links.layout->total);
  for (std::uint32_t c = 0; c < links.ph_count; ++c) {
    s += placeholder_arg(g, k, links, kernel_placeholder(g, links, c));
  }
  for (const auto& [p, u] : params) {
    s += fmt::format(", argument {}: {}", u.position, detail::escaped(param_use_text(g, p, u)));
  }
  if (k.launch.priority != 0) s += fmt::format(", priority {}", k.launch.priority);
  return detail::attributes_of(g, n.payload) != nullptr ? s + attributes_text(detail::launch_of(g, n.payload)) : s;
}

void dot_label(std::string& label, const detail::GraphImpl& g, std::uint32_t i) {
  const detail::NodeData& n = g.nodes[i];
  if (detail::attributes_of(g, n.payload) != nullptr) {
    label += "\\n" + dot_escape(attributes_text(detail::launch_of(g, n.payload)).substr(2));
  }
}

}  // namespace
}  // namespace describing

const DescribeOps describe{&describing::summary, &describing::dot_label, "box", nullptr, nullptr, &kernel_change};

}  // namespace graphdsl::detail::kinds::kernel

// ==== end describe ====
