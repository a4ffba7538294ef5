// src/exec/update.cpp — the host-side diff, in-place update of executables, per-node setters, fingerprints.
#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

#include <cuda.h>
#include <fmt/format.h>

#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "graphdsl/graph.hpp"
#include "graphdsl/update.hpp"
#include "native/native.hpp"
#include "plan/node_params.hpp"
#include "plan/rules.hpp"

namespace graphdsl {

std::string UpdateResult::to_string() const {
  if (status == UpdateStatus::success && strategy == UpdateStrategy::none) {  // nothing sent to CUDA
    return changed.empty() ? "nothing to update: the parameters are the same"
                           : fmt::format("update possible: {} node{} differ{}", changed.size(),
                                         changed.size() == 1 ? "" : "s", changed.size() == 1 ? "s" : "");
  }
  if (status == UpdateStatus::success) {
    return fmt::format("update applied ({}): {} node{} patched", graphdsl::to_string(strategy), patched,
                       patched == 1 ? "" : "s");
  }
  return fmt::format("update refused ({}): {}", graphdsl::to_string(status), reason);
}

namespace detail {
namespace {

/// Automatic policy: above this fraction of changed nodes, one cudaGraphExecUpdate of the whole
/// template is used instead of per-node setters. Measured on an H200 (docs/updating.md): per-node setters were cheaper than materializing the
/// template plus cudaGraphExecUpdate at every k <= N for N = 100, 1000 and 10000, so the automatic
/// policy goes whole-graph only for changes per-node setters cannot make.
constexpr double whole_graph_fraction = 1.0;

// ---- shape -------------------------------------------------------------------------------------

bool contains(const SmallVec& v, std::uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// An error's message without the "graphdsl: " prefix, for UpdateResult::reason.
std::string without_prefix(const Error& e) {
  const std::string what = e.what();
  const std::string prefix = "graphdsl: ";
  return what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what;
}

UpdateResult refusal(UpdateStatus status, std::optional<NodeInfo> node, std::string reason) {
  UpdateResult r;
  r.status = status;
  r.node = std::move(node);
  r.reason = std::move(reason);
  return r;
}

/// The first edge into node i that plan `has` holds and plan `lacks` does not, as a refusal whose
/// nodes are those of the template `templ`.
std::optional<UpdateResult> missing_edge(const GraphImpl& has, const char* has_name, const GraphImpl& lacks,
                                         const char* lacks_name, const GraphImpl& templ, std::uint32_t i,
                                         const std::string& ctx) {
  // Long lists (the same edges added in another order) are searched sorted: O(d log d), not O(d^2).
  const SmallVec& other = lacks.nodes[i].preds;
  std::vector<std::uint32_t> sorted;
  if (other.size() > 32) {
    sorted.assign(other.begin(), other.end());
    std::sort(sorted.begin(), sorted.end());
  }
  for (std::uint32_t p : has.nodes[i].preds) {
    if (sorted.empty() ? contains(other, p) : std::binary_search(sorted.begin(), sorted.end(), p)) continue;
    UpdateResult r = refusal(UpdateStatus::topology_changed, templ.info(i),
                             fmt::format("{}edge {} -> {} exists in the {} but not in the {}", ctx, has.info(p).ref(),
                                         has.info(i).ref(), has_name, lacks_name));
    r.from_node = templ.info(p);
    return r;
  }
  return std::nullopt;
}

bool same_params(const GraphImpl& a, const GraphImpl& b, std::uint32_t i);
bool same_kernel(const GraphImpl& a, std::uint32_t ka, const GraphImpl& b, std::uint32_t kb);

/// What a diff finds besides refusals: nodes whose parameters or names differ.
struct DiffOut {
  std::vector<std::uint32_t>* changed;
  std::vector<std::uint32_t>* renamed;
  bool* conditions_changed;  ///< a declared condition's default or assign flag differs
};

bool same_ref(const ConditionRef& x, const ConditionRef& y) { return x.levels == y.levels && x.index == y.index; }

/// What parameter use `u` of plan `g` is, in words: "argument 2 of kernel node 'k' (#1)".
std::string param_use(const GraphImpl& g, const ParamUse& u) {
  return u.position == 0 ? fmt::format("the value of {}", g.info(u.node).describe())
                         : fmt::format("argument {} of {}", u.position, g.info(u.node).describe());
}

/// Parameters are structure: the same parameters (by position and type) used at the same places.
/// Their values are compared as the nodes' parameters (the argument bytes and memset values).
std::optional<UpdateResult> compare_parameters(const GraphImpl& a, const GraphImpl& b, const std::string& ctx) {
  if (a.params.size() != b.params.size()) {
    return refusal(UpdateStatus::topology_changed, std::nullopt,
                   fmt::format("{}graph {} declares {} parameters in the template, {} in the executable", ctx,
                               quoted(b.name), b.params.size(), a.params.size()));
  }
  for (std::uint32_t k = 0; k < a.params.size(); ++k) {
    const ParamData& x = a.params[k];
    const ParamData& y = b.params[k];
    if (*x.type->info != *y.type->info) {
      return refusal(UpdateStatus::topology_changed, std::nullopt,
                     fmt::format("{}parameter {} is of type {} in the executable but parameter {} is of type {} in the "
                                 "template",
                                 ctx, a.param_ref(k), x.type->name, b.param_ref(k), y.type->name));
    }
    const std::size_t n = std::min(x.uses.size(), y.uses.size());
    for (std::size_t u = 0; u <= n; ++u) {
      const bool ex = u < x.uses.size(), ey = u < y.uses.size();
      if (!ex && !ey) break;
      if (ex && ey && x.uses[u].node == y.uses[u].node && x.uses[u].offset == y.uses[u].offset &&
          x.uses[u].position == y.uses[u].position) {
        continue;
      }
      // The first use one plan has and the other lacks.
      const bool in_executable = ex && (!ey || x.uses[u].node <= y.uses[u].node);
      const ParamUse& use = in_executable ? x.uses[u] : y.uses[u];
      const GraphImpl& g = in_executable ? a : b;
      UpdateResult r = refusal(UpdateStatus::topology_changed, b.info(use.node),
                               fmt::format("{}{} is parameter {} in the {} but not in the {}", ctx, param_use(g, use),
                                           g.param_ref(k), in_executable ? "executable" : "template",
                                           in_executable ? "template" : "executable"));
      return r;
    }
  }
  return std::nullopt;
}

/// Compares the structure of `a` (the executable's plan) and `b` (the template). With `out`, the
/// same pass also lists the nodes whose parameters or names differ (one pass over both plans).
std::optional<UpdateResult> compare_shape(const GraphImpl& a, const GraphImpl& b, const std::string& ctx,
                                          const DiffOut* out = nullptr) {
  const std::size_t na = a.nodes.size(), nb = b.nodes.size();
  if (na != nb) {
    const bool more = nb > na;
    const NodeInfo extra = more ? b.info(static_cast<std::uint32_t>(na)) : a.info(static_cast<std::uint32_t>(nb));
    return refusal(UpdateStatus::topology_changed, extra,
                   fmt::format("{}the template has {} nodes, the executable {}: {} is not in the {}", ctx, nb, na,
                               extra.describe(), more ? "executable" : "template"));
  }
  const bool same_uses = std::equal(a.buffer_uses.begin(), a.buffer_uses.end(), b.buffer_uses.begin(),
                                    b.buffer_uses.end(), [](const BufferUse& u, const BufferUse& v) {
                                      return u.node == v.node && u.field == v.field && u.alloc_node == v.alloc_node;
                                    });
  if (!same_uses) {
    return refusal(UpdateStatus::topology_changed, std::nullopt,
                   fmt::format("{}memset or memcpy nodes of graph {} use other graph buffers in the template", ctx,
                               quoted(b.name)));
  }
  const bool same_peers = std::equal(a.peer_copies.begin(), a.peer_copies.end(), b.peer_copies.begin(),
                                     b.peer_copies.end(), [](const PeerCopy& u, const PeerCopy& v) {
                                       return u.node == v.node && u.src_device == v.src_device &&
                                              u.dst_device == v.dst_device;
                                     });
  if (!same_peers) {
    return refusal(UpdateStatus::not_supported, std::nullopt,
                   fmt::format("{}the peer copies of graph {} (add_memcpy_peer) copy between other devices in the "
                               "template; CUDA cannot move a copy to other devices",
                               ctx, quoted(b.name)));
  }
  if (auto r = compare_parameters(a, b, ctx)) return r;
  if (a.conditions.size() != b.conditions.size()) {
    return refusal(UpdateStatus::topology_changed, std::nullopt,
                   fmt::format("{}graph {} declares {} conditions in the template, {} in the executable", ctx, quoted(b.name),
                               b.conditions.size(), a.conditions.size()));
  }
  for (std::size_t k = 0; out != nullptr && k < a.conditions.size(); ++k) {
    if (a.conditions[k].default_value != b.conditions[k].default_value ||
        a.conditions[k].assign_default != b.conditions[k].assign_default) {
      *out->conditions_changed = true;
    }
  }
  for (std::uint32_t i = 0; i < na; ++i) {
    const NodeData& x = a.nodes[i];
    const NodeData& y = b.nodes[i];
    if (x.kind != y.kind) {
      return refusal(UpdateStatus::node_type_changed, b.info(i),
                     fmt::format("{}node #{} is a {} node in the executable but a {} node in the template", ctx, i,
                                 to_string(x.kind), to_string(y.kind)));
    }
    if (x.device != y.device) {
      return refusal(UpdateStatus::not_supported, b.info(i),
                     fmt::format("{}{} is placed on device {} in the executable but on device {} in the template; CUDA "
                                 "cannot move a node to another device",
                                 ctx, b.info(i).describe(), x.device, y.device));
    }
    if (x.kind == NodeKind::kernel && out != nullptr && x.preds == y.preds) {
      // The common case, kept tight (the diff reads every node of both plans on every update): a
      // kernel with the same function, edges and no Condition arguments.
      const KernelData& kx = a.kernels[x.payload];
      const KernelData& ky = b.kernels[y.payload];
      if (kx.func == ky.func && (kx.ph_count | ky.ph_count) == 0) {
        if (!same_kernel(a, x.payload, b, y.payload)) out->changed->push_back(i);
        if (x.name != y.name) out->renamed->push_back(i);
        continue;
      }
    }
    if (x.kind == NodeKind::kernel) {
      const KernelData& kx = a.kernels[x.payload];
      const KernelData& ky = b.kernels[y.payload];
      if (kx.func != ky.func) {
        return refusal(UpdateStatus::function_changed, b.info(i),
                       fmt::format("{}{} launches a different kernel function in the template", ctx, b.info(i).describe()));
      }
      bool same_conditions = kx.ph_count == ky.ph_count;
      for (std::uint32_t c = 0; same_conditions && c < kx.ph_count; ++c) {
        const KernelPlaceholder& cx = a.placeholders[kx.ph_first + c];
        const KernelPlaceholder& cy = b.placeholders[ky.ph_first + c];
        same_conditions = cx.offset == cy.offset && cx.kind == cy.kind && same_ref(cx.ref, cy.ref);
      }
      if (!same_conditions) {
        return refusal(UpdateStatus::topology_changed, b.info(i),
                       fmt::format("{}{} takes other Condition or GraphBuffer arguments in the template", ctx,
                                   b.info(i).describe()));
      }
    }
    if (x.kind == NodeKind::mem_alloc) {
      const AllocData& ax = a.allocs[x.payload];
      const AllocData& ay = b.allocs[y.payload];
      if (ax.bytes != ay.bytes || ax.device != ay.device || ax.peers != ay.peers) {
        return refusal(UpdateStatus::not_supported, b.info(i),
                       fmt::format("{}{} allocates {} bytes in the executable but {} in the template (or on another "
                                   "device); CUDA cannot change a graph allocation",
                                   ctx, b.info(i).describe(), ax.bytes, ay.bytes));
      }
    }
    if (x.kind == NodeKind::mem_free && a.frees[x.payload] != b.frees[y.payload]) {
      return refusal(UpdateStatus::topology_changed, b.info(i),
                     fmt::format("{}{} frees another buffer in the template", ctx, b.info(i).describe()));
    }
    if (x.kind == NodeKind::conditional) {
      const ConditionalData& cx = a.conditionals[x.payload];
      const ConditionalData& cy = b.conditionals[y.payload];
      if (cx.type != cy.type || cx.bodies.size() != cy.bodies.size() || !same_ref(cx.condition, cy.condition)) {
        auto shape = [](const ConditionalData& c) {
          return fmt::format("{} ({} bod{})", to_string(c.type), c.bodies.size(), c.bodies.size() == 1 ? "y" : "ies");
        };
        return refusal(UpdateStatus::not_supported, b.info(i),
                       fmt::format("{}{} is {} in the executable but {} in the template (or uses another condition); "
                                   "CUDA cannot change a conditional node's shape",
                                   ctx, b.info(i).describe(), shape(cx), shape(cy)));
      }
      for (std::size_t k = 0; k < cx.bodies.size(); ++k) {
        if (cx.bodies[k] == cy.bodies[k]) continue;
        const std::string inner = fmt::format("{}in body {} of {}: ", ctx, k, b.info(i).describe());
        if (auto r = compare_shape(*cx.bodies[k], *cy.bodies[k], inner)) {
          r->node = b.info(i);
          r->from_node.reset();
          if (r->status == UpdateStatus::node_type_changed) r->status = UpdateStatus::topology_changed;
          return r;
        }
      }
    }
    if (x.preds != y.preds) {
      if (auto r = missing_edge(a, "executable", b, "template", b, i, ctx)) return r;
      if (auto r = missing_edge(b, "template", a, "executable", b, i, ctx)) return r;
    }
    if (x.kind == NodeKind::child && a.children[x.payload] != b.children[y.payload]) {
      const std::string inner = fmt::format("{}in {}: ", ctx, b.info(i).describe());
      if (auto r = compare_shape(*a.children[x.payload], *b.children[y.payload], inner)) {
        r->node = b.info(i);  // the top-level node; the reason names the inner one
        r->from_node.reset();
        if (r->status == UpdateStatus::node_type_changed) r->status = UpdateStatus::topology_changed;
        return r;
      }
    }
    if (out != nullptr) {
      if (!same_params(a, b, i)) out->changed->push_back(i);
      if (x.name != y.name) out->renamed->push_back(i);
    }
  }
  // The same edges (checked above); now the same kinds of edge (programmatic, launch completion).
  if (a.edge_kinds.size() != b.edge_kinds.size() ||
      !std::equal(a.edge_kinds.begin(), a.edge_kinds.end(), b.edge_kinds.begin(),
                  [](const EdgeKindData& p, const EdgeKindData& q) {
                    return p.from == q.from && p.to == q.to && p.kind == q.kind;
                  })) {
    for (const GraphImpl* g : {&a, &b}) {
      for (const EdgeKindData& e : g->edge_kinds) {
        const EdgeKind in_a = edge_kind(a, e.from, e.to), in_b = edge_kind(b, e.from, e.to);
        if (in_a == in_b) continue;
        return refusal(UpdateStatus::topology_changed, b.info(e.to),
                       fmt::format("{}edge {} -> {} is {} in the executable but {} in the template; CUDA cannot "
                                   "change the kind of an edge in place",
                                   ctx, b.info(e.from).ref(), b.info(e.to).ref(), to_string(in_a), to_string(in_b)));
      }
    }
  }
  return std::nullopt;
}

// ---- parameters --------------------------------------------------------------------------------

bool same_dims(const dim3& x, const dim3& y) { return x.x == y.x && x.y == y.y && x.z == y.z; }

/// Priority and launch attributes: what per-node setters cannot patch.
bool same_attributes(const Launch& x, const Launch& y) {
  return x.priority == y.priority && same_dims(x.cluster, y.cluster) && x.cooperative == y.cooperative &&
         x.sync_domain == y.sync_domain && x.l2.bytes == y.l2.bytes &&
         (x.l2.bytes == 0 || (x.l2.base == y.l2.base && x.l2.hit_ratio == y.l2.hit_ratio && x.l2.hit == y.l2.hit &&
                              x.l2.miss == y.l2.miss));
}

/// A setter's launch keeps the node's launch attributes: CUDA patches a kernel node's grid, block,
/// shared memory and arguments, not its attributes. @throws UsageError naming the node.
void check_setter_attributes(const GraphImpl& a, std::uint32_t i, const Launch& recorded, const Launch& given) {
  Launch with_priority = given;
  with_priority.priority = recorded.priority;  // a setter's priority is ignored (documented)
  if (!same_attributes(recorded, with_priority)) {
    throw UsageError(fmt::format("{}: a setter's launch has other launch attributes (cluster, cooperative, sync "
                                 "domain, L2 window) than the node's; CUDA cannot patch them on one node: give the "
                                 "node's own attributes, or update the executable from a plan (whole graph)",
                                 a.info(i).describe()));
  }
}

/// "cluster (2,1,1), cooperative" / "no cluster, not cooperative" (update refusals).
std::string launch_attributes_text(const Launch& l) {
  return fmt::format("{}, {}",
                     l.cluster.x != 0 ? fmt::format("cluster ({},{},{})", l.cluster.x, l.cluster.y, l.cluster.z)
                                      : std::string("no cluster"),
                     l.cooperative ? "cooperative" : "not cooperative");
}

/// Same shape and attributes (the attributes looked up only when a plan has any).
bool same_launch(const GraphImpl& a, std::uint32_t ka, const GraphImpl& b, std::uint32_t kb) {
  const LaunchShape& x = a.kernels[ka].launch;
  const LaunchShape& y = b.kernels[kb].launch;
  if (!(same_dims(x.grid, y.grid) && same_dims(x.block, y.block) && x.shared_bytes == y.shared_bytes &&
        x.priority == y.priority)) {
    return false;
  }
  if (a.kernel_attributes.empty() && b.kernel_attributes.empty()) return true;
  return same_attributes(launch_of(a, ka), launch_of(b, kb));
}

/// Same launch shape and argument bytes (the function is compared as structure). A kernel without
/// parameters compares no bytes: its plan's argument block may be empty (data() null, which
/// memcmp must not be given even for 0 bytes).
bool same_kernel(const GraphImpl& a, std::uint32_t ka, const GraphImpl& b, std::uint32_t kb) {
  const KernelData& x = a.kernels[ka];
  const KernelData& y = b.kernels[kb];
  const std::size_t bytes = x.layout->total;
  return same_launch(a, ka, b, kb) &&
         (bytes == 0 || std::memcmp(a.args.data() + x.args, b.args.data() + y.args, bytes) == 0);
}

bool same_memset(const cudaMemsetParams& x, const cudaMemsetParams& y) {
  return x.dst == y.dst && x.pitch == y.pitch && x.value == y.value && x.elementSize == y.elementSize &&
         x.width == y.width && x.height == y.height;
}

bool same_pos(const cudaPos& x, const cudaPos& y) { return x.x == y.x && x.y == y.y && x.z == y.z; }
bool same_ptr(const cudaPitchedPtr& x, const cudaPitchedPtr& y) {
  return x.ptr == y.ptr && x.pitch == y.pitch && x.xsize == y.xsize && x.ysize == y.ysize;
}

bool same_memcpy(const cudaMemcpy3DParms& x, const cudaMemcpy3DParms& y) {
  return x.srcArray == y.srcArray && same_pos(x.srcPos, y.srcPos) && same_ptr(x.srcPtr, y.srcPtr) &&
         x.dstArray == y.dstArray && same_pos(x.dstPos, y.dstPos) && same_ptr(x.dstPtr, y.dstPtr) &&
         x.extent.width == y.extent.width && x.extent.height == y.extent.height && x.extent.depth == y.extent.depth &&
         x.kind == y.kind;
}

bool same_params(const GraphImpl& a, const GraphImpl& b, std::uint32_t i) {
  const std::uint32_t pa = a.nodes[i].payload, pb = b.nodes[i].payload;
  switch (a.nodes[i].kind) {
    case NodeKind::kernel: return same_kernel(a, pa, b, pb);
    case NodeKind::memset: return same_memset(a.memsets[pa], b.memsets[pb]);
    case NodeKind::memcpy: return same_memcpy(a.memcpys[pa], b.memcpys[pb]);
    case NodeKind::host: return a.hosts[pa] == b.hosts[pb];
    case NodeKind::event_record:
    case NodeKind::event_wait: return a.events[pa].state() == b.events[pb].state();
    case NodeKind::child: {
      const GraphImpl& ca = *a.children[pa];
      const GraphImpl& cb = *b.children[pb];
      if (&ca == &cb) return true;
      for (std::uint32_t k = 0; k < ca.nodes.size(); ++k) {
        if (!same_params(ca, cb, k)) return false;
      }
      return true;
    }
    case NodeKind::conditional: {
      const ConditionalData& x = a.conditionals[pa];
      const ConditionalData& y = b.conditionals[pb];
      for (std::size_t k = 0; k < x.bodies.size(); ++k) {
        const GraphImpl& bx = *x.bodies[k];
        const GraphImpl& by = *y.bodies[k];
        if (&bx == &by) continue;
        for (std::size_t c = 0; c < bx.conditions.size(); ++c) {
          if (bx.conditions[c].default_value != by.conditions[c].default_value ||
              bx.conditions[c].assign_default != by.conditions[c].assign_default) {
            return false;
          }
        }
        for (std::uint32_t n = 0; n < bx.nodes.size(); ++n) {
          if (!same_params(bx, by, n)) return false;
        }
      }
      return true;
    }
    case NodeKind::captured:
      return a.captures[pa].fn->same_work(*b.captures[pb].fn) && a.captures[pa].mode == b.captures[pb].mode;
    case NodeKind::mem_alloc:  // compared as structure
    case NodeKind::mem_free: return true;
    case NodeKind::empty: return true;
  }
  return true;
}

/// A deep copy of plan `g`: its child plans and conditional bodies are copied too, not shared.
std::shared_ptr<const GraphImpl> own_copy(const GraphImpl& g) {
  auto c = std::make_shared<GraphImpl>(g);
  for (auto& child : c->children) child = own_copy(*child);
  for (auto& cond : c->conditionals) {
    for (auto& body : cond.bodies) body = own_copy(*body);
  }
  return c;
}

/// True when two plans of the same shape have the same graph and node names, nested plans included.
bool same_names(const GraphImpl& a, const GraphImpl& b) {
  if (&a == &b) return true;
  if (a.name != b.name) return false;
  for (std::uint32_t i = 0; i < a.nodes.size(); ++i) {
    const NodeData& x = a.nodes[i];
    if (x.name != b.nodes[i].name) return false;
    if (x.kind == NodeKind::child && !same_names(*a.children[x.payload], *b.children[b.nodes[i].payload])) return false;
    if (x.kind != NodeKind::conditional) continue;
    const auto& ba = a.conditionals[x.payload].bodies;
    const auto& bb = b.conditionals[b.nodes[i].payload].bodies;
    for (std::size_t k = 0; k < ba.size(); ++k) {
      if (!same_names(*ba[k], *bb[k])) return false;
    }
  }
  return true;
}

/// Gives node i of the recorded plan `a` the names inside the template's child plan or bodies
/// (node i's parameters are the same in both: only names differ).
void take_nested_names(GraphImpl& a, const GraphImpl& t, std::uint32_t i) {
  const NodeData& n = a.nodes[i];
  if (n.kind == NodeKind::child) {
    const GraphImpl& tc = *t.children[t.nodes[i].payload];
    if (!same_names(*a.children[n.payload], tc)) a.children[n.payload] = own_copy(tc);
  } else if (n.kind == NodeKind::conditional) {
    auto& bodies = a.conditionals[n.payload].bodies;
    const auto& tb = t.conditionals[t.nodes[i].payload].bodies;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
      if (!same_names(*bodies[k], *tb[k])) bodies[k] = own_copy(*tb[k]);
    }
  }
}

/// A copy of one node's parameters, to move them between plans or roll a change back.
struct SavedParams {
  NodeKind kind = NodeKind::empty;
  KernelData kernel;
  Launch launch;  ///< the kernel's whole launch (its attributes are not in the record)
  std::vector<unsigned char> args;
  cudaMemsetParams memset{};
  ScalarType memset_type = ScalarType::raw;
  cudaMemcpy3DParms memcpy{};
  std::shared_ptr<HostClosure> host;
  std::shared_ptr<const GraphImpl> child;
  Event event;
  std::vector<std::shared_ptr<const GraphImpl>> bodies;
  CaptureData capture{};

  /// With `own`, child plans and bodies are deep copies, so that the recorded plan the parameters
  /// go to never shares storage with a template (whose handles may still edit it).
  static SavedParams save(const GraphImpl& g, std::uint32_t i, bool own = false) {
    SavedParams s;
    const NodeData& n = g.nodes[i];
    s.kind = n.kind;
    switch (n.kind) {
      case NodeKind::kernel:
        s.kernel = g.kernels[n.payload];
        s.launch = launch_of(g, n.payload);
        s.args.assign(g.args.begin() + s.kernel.args, g.args.begin() + s.kernel.args + s.kernel.layout->total);
        break;
      case NodeKind::memset:
        s.memset = g.memsets[n.payload];
        s.memset_type = g.memset_types[n.payload];
        break;
      case NodeKind::memcpy: s.memcpy = g.memcpys[n.payload]; break;
      case NodeKind::host: s.host = g.hosts[n.payload]; break;
      case NodeKind::child: s.child = own ? own_copy(*g.children[n.payload]) : g.children[n.payload]; break;
      case NodeKind::event_record:
      case NodeKind::event_wait: s.event = g.events[n.payload]; break;
      case NodeKind::conditional:
        s.bodies = g.conditionals[n.payload].bodies;
        for (auto& b : s.bodies) b = own ? own_copy(*b) : b;
        break;
      case NodeKind::captured: s.capture = g.captures[n.payload]; break;
      case NodeKind::mem_alloc:
      case NodeKind::mem_free:
      case NodeKind::empty: break;
    }
    return s;
  }

  /// Writes these parameters into node i of g (same kind; for kernels, same signature).
  void restore(GraphImpl& g, std::uint32_t i) const {
    const NodeData& n = g.nodes[i];
    switch (n.kind) {
      case NodeKind::kernel: {
        KernelData& k = g.kernels[n.payload];
        const KernelData mine = k;  // where this plan keeps the arguments and Condition references
        k = kernel;
        k.args = mine.args;
        k.ph_first = mine.ph_first;
        k.ph_count = mine.ph_count;
        store_launch(g, n.payload, launch);
        const std::size_t offset = k.args;
        std::copy(args.begin(), args.end(), g.args.begin() + offset);
        break;
      }
      case NodeKind::memset:
        g.memsets[n.payload] = memset;
        g.memset_types[n.payload] = memset_type;
        break;
      case NodeKind::memcpy: g.memcpys[n.payload] = memcpy; break;
      case NodeKind::host: g.hosts[n.payload] = host; break;
      case NodeKind::child: g.children[n.payload] = child; break;
      case NodeKind::event_record:
      case NodeKind::event_wait: g.events[n.payload] = event; break;
      case NodeKind::conditional: g.conditionals[n.payload].bodies = bodies; break;
      case NodeKind::captured: g.captures[n.payload] = capture; break;
      case NodeKind::mem_alloc:
      case NodeKind::mem_free:
      case NodeKind::empty: break;
    }
  }
};

struct Applied {
  cudaError_t rc = cudaSuccess;
  const char* api = "";
};

/// cudaGraphExecKernelNodeSetParams for the kernel setters and per-node updates. First the driver's
/// entry point with the kernel's CUfunction, looked up once per executable and kernel (the
/// runtime's own call looks it up and converts the parameters on every call), then, on any failure
/// or without that entry point, the runtime call, whose error is the one reported (cuda_call.hpp,
/// driver_entry). A failed driver attempt also forgets the function: it may be another context's
/// (looked up while another device was current), and the next call looks it up again.
cudaError_t exec_kernel_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaKernelNodeParams& p) {
  using SetParams = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*);
  static const auto driver = reinterpret_cast<SetParams>(driver_entry("cuGraphExecKernelNodeSetParams", 12000));
  if (driver != nullptr && x.setter_func != p.func) {
    cudaFunction_t function = nullptr;
    if (cuda_try(cudaGetFuncBySymbol, &function, static_cast<const void*>(p.func)) == cudaSuccess) {
      x.setter_func = p.func;
      x.setter_function = function;
    }
  }
  if (driver != nullptr && x.setter_func == p.func) {
    CUDA_KERNEL_NODE_PARAMS d{};
    d.func = x.setter_function;
    d.gridDimX = p.gridDim.x;
    d.gridDimY = p.gridDim.y;
    d.gridDimZ = p.gridDim.z;
    d.blockDimX = p.blockDim.x;
    d.blockDimY = p.blockDim.y;
    d.blockDimZ = p.blockDim.z;
    d.sharedMemBytes = p.sharedMemBytes;
    d.kernelParams = p.kernelParams;
    count_cuda_call();
    if (driver(x.exec.get(), node, &d) == CUDA_SUCCESS) return cudaSuccess;
    x.setter_func = nullptr;
  }
  return cuda_try(cudaGraphExecKernelNodeSetParams, x.exec.get(), node, &p);
}

/// Whether `layout` (the setter's) packs exactly like `recorded`.
bool same_layout(const ArgLayout& layout, const ArgLayout& recorded) {
  if (&layout == &recorded) return true;
  if (layout.count != recorded.count || layout.total != recorded.total) return false;
  for (std::uint32_t a = 0; a < layout.count; ++a) {
    if (layout.offsets[a] != recorded.offsets[a] || layout.sizes[a] != recorded.sizes[a]) return false;
  }
  return true;
}

/// Whether kernel `k` can be patched from a plain argument block (kernel_direct): no Condition or
/// GraphBuffer argument to resolve, and few enough arguments for the argument array on the stack.
bool direct_kernel(const KernelData& k) { return k.ph_count == 0 && k.layout->count <= max_setter_args; }

/// Patches kernel node i (direct_kernel(k)) with k's launch and the argument block `block`: the
/// setters' direct path, with no plan built and no heap allocation.
cudaError_t kernel_direct(ExecImpl& x, std::uint32_t i, const KernelData& k, const unsigned char* block) {
  std::array<void*, max_setter_args> argv{};
  const cudaKernelNodeParams p = kernel_node_params(k, block, argv.data());
  const DeviceScope device(node_device(x.plan.impl(), i, -1));
  return exec_kernel_set_params(x, x.native.nodes[i], p);
}

/// Pushes the recorded parameters of plan node i to the executable with one per-node setter.
Applied apply_node(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& g = x.plan.impl();
  const NodeData& n = g.nodes[i];
  const cudaGraphExec_t exec = x.exec.get();
  const cudaGraphNode_t node = x.native.nodes[i];
  const DeviceScope device(node_device(g, i, -1));  // setters act in the node's context (-1: no switch)
  switch (n.kind) {
    case NodeKind::kernel: {
      std::vector<void*> argv;
      std::vector<unsigned char> block;
      const cudaKernelNodeParams p =
          kernel_params(g, g.kernels[n.payload], HandleScopes{x.native.handles}, x.native.dptrs, block, argv);
      return {exec_kernel_set_params(x, node, p), "cudaGraphExecKernelNodeSetParams"};
    }
    case NodeKind::memset: {
      const cudaMemsetParams p = memset_params(g, i, x.native.dptrs);
      return {cuda_try(cudaGraphExecMemsetNodeSetParams, exec, node, &p), "cudaGraphExecMemsetNodeSetParams"};
    }
    case NodeKind::memcpy: {
      const cudaMemcpy3DParms p = memcpy_params(g, i, x.native.dptrs);
      return {cuda_try(cudaGraphExecMemcpyNodeSetParams, exec, node, &p), "cudaGraphExecMemcpyNodeSetParams"};
    }
    case NodeKind::host:
      std::atomic_store(&x.native.host_slots[n.payload]->fn, g.hosts[n.payload]);
      return {};
    case NodeKind::child: {
      const GraphImpl& c = *g.children[n.payload];
      Materialized m;
      try {
        m = materialize(c, check_plan(c), x.sink);
      } catch (const CudaError& e) {
        return {e.code(), "cudaGraphAdd*Node (child plan)"};
      }
      return {cuda_try(cudaGraphExecChildGraphNodeSetParams, exec, node, m.graph.get()),
              "cudaGraphExecChildGraphNodeSetParams"};
    }
    case NodeKind::event_record:
    case NodeKind::event_wait: {
      const Event& ev = g.events[n.payload];
      cudaEvent_t e = nullptr;  // created here if the template brought a new Event
      if (const cudaError_t rc = native_event(ev, e); rc != cudaSuccess) {
        return {rc, "cudaEventCreateWithFlags"};
      }
      const bool record = n.kind == NodeKind::event_record;
      const Applied applied =
          record ? Applied{cuda_try(cudaGraphExecEventRecordNodeSetEvent, exec, node, e),
                           "cudaGraphExecEventRecordNodeSetEvent"}
                 : Applied{cuda_try(cudaGraphExecEventWaitNodeSetEvent, exec, node, e),
                           "cudaGraphExecEventWaitNodeSetEvent"};
      // The event must outlive the launches that use it, also after the executable is destroyed
      // (the recorded plan alone dies with the executable): the executable's user object keeps it.
      if (applied.rc == cudaSuccess && x.native.keep != nullptr) x.native.keep->add_given(ev.state());
      return applied;
    }
    case NodeKind::conditional:  // bodies are not mapped node by node: update() goes whole-graph
      return {cudaErrorNotSupported, "a per-node update of a conditional node"};
    case NodeKind::captured:  // the captured nodes are not mapped: update() goes whole-graph
      return {cudaErrorNotSupported, "a per-node update of a captured node"};
    case NodeKind::mem_alloc:
    case NodeKind::mem_free: return {};
    case NodeKind::empty: return {};
  }
  return {};
}

UpdateStatus from_cuda(cudaGraphExecUpdateResult r) {
  switch (r) {
    case cudaGraphExecUpdateSuccess: return UpdateStatus::success;
    case cudaGraphExecUpdateError: return UpdateStatus::error;
    case cudaGraphExecUpdateErrorTopologyChanged: return UpdateStatus::topology_changed;
    case cudaGraphExecUpdateErrorNodeTypeChanged: return UpdateStatus::node_type_changed;
    case cudaGraphExecUpdateErrorFunctionChanged: return UpdateStatus::function_changed;
    case cudaGraphExecUpdateErrorParametersChanged: return UpdateStatus::parameters_changed;
    case cudaGraphExecUpdateErrorNotSupported: return UpdateStatus::not_supported;
    case cudaGraphExecUpdateErrorUnsupportedFunctionChange: return UpdateStatus::unsupported_function_change;
    case cudaGraphExecUpdateErrorAttributesChanged: return UpdateStatus::attributes_changed;
  }
  return UpdateStatus::error;
}

std::optional<NodeInfo> find_native(const GraphImpl& g, const std::vector<cudaGraphNode_t>& nodes, cudaGraphNode_t n) {
  if (n == nullptr) return std::nullopt;
  const auto it = std::find(nodes.begin(), nodes.end(), n);
  if (it == nodes.end()) return std::nullopt;
  return g.info(static_cast<std::uint32_t>(it - nodes.begin()));
}

}  // namespace
}  // namespace detail

namespace detail {
namespace {
/// The shape check and the lists of changed and renamed nodes, in one pass. Unchanged nodes equal
/// nodes of the recorded plan, which was validated when compiled, and an equal shape is acyclic, so
/// only the changed nodes' parameters are checked again.
UpdateResult plan_diff(const GraphImpl& a, const GraphImpl& t, std::vector<std::uint32_t>* renamed,
                       bool* conditions_changed) {
  UpdateResult result;
  const DiffOut out{&result.changed, renamed, conditions_changed};
  if (auto r = compare_shape(a, t, {}, &out)) return std::move(*r);
  try {
    const bool nested = std::any_of(result.changed.begin(), result.changed.end(), [&](std::uint32_t i) {
      return t.nodes[i].kind == NodeKind::child || t.nodes[i].kind == NodeKind::conditional;
    });
    if (nested) {
      (void)check_plan(t);  // changed nested plans are checked with their scopes
    } else {
      for (std::uint32_t i : result.changed) check_node(t, i);
    }
  } catch (const UsageError& e) {
    return refusal(UpdateStatus::invalid_template, std::nullopt, without_prefix(e));
  }
  return result;
}
}  // namespace
}  // namespace detail

UpdateResult diff(const Graph& current, const Graph& templ) {
  std::vector<std::uint32_t> renamed;
  bool conditions_changed = false;
  UpdateResult r = detail::plan_diff(current.impl(), templ.impl(), &renamed, &conditions_changed);
  r.patched = 0;
  return r;
}

// ---- Graph::fingerprint ------------------------------------------------------------------------

namespace {
struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void add(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  template <class T>
  void add(const T& v) {
    add(&v, sizeof v);
  }
};

/// Fingerprints of nested plans already hashed in one fingerprint() call: copies of a plan share
/// its nested plans, and a plan embedding copies of itself would otherwise be hashed 2^n times.
using FingerprintMemo = std::unordered_map<const detail::GraphImpl*, std::uint64_t>;

void fingerprint_into(Fnv& f, const detail::GraphImpl& g, FingerprintMemo& memo);

/// Adds the fingerprint of nested plan `g` to `f`.
void add_nested(Fnv& f, const detail::GraphImpl& g, FingerprintMemo& memo) {
  auto it = memo.find(&g);
  if (it == memo.end()) {
    Fnv inner;
    fingerprint_into(inner, g, memo);
    it = memo.emplace(&g, inner.h).first;
  }
  f.add(it->second);
}

/// Hashes everything compare_shape() compares, so that equal fingerprints mean update-compatible
/// plans (graph memory included: buffer uses, allocation sizes and devices, the buffer each free
/// frees).
void fingerprint_into(Fnv& f, const detail::GraphImpl& g, FingerprintMemo& memo) {
  f.add(g.nodes.size());
  f.add(g.conditions.size());
  for (const auto& u : g.buffer_uses) {
    f.add(u.node);
    f.add(u.field);
    f.add(u.alloc_node);
  }
  for (const auto& p : g.peer_copies) {
    f.add(p.node);
    f.add(p.src_device);
    f.add(p.dst_device);
  }
  for (const auto& e : g.edge_kinds) {
    f.add(e.from);
    f.add(e.to);
    f.add(e.kind);
  }
  f.add(g.params.size());
  for (const auto& p : g.params) {  // which places are parameters (structure), not values or names
    f.add(p.type->size);
    f.add(p.uses.size());
    for (const auto& u : p.uses) {
      f.add(u.node);
      f.add(u.offset);
      f.add(u.position);
    }
  }
  std::vector<std::uint32_t> preds;
  for (const auto& n : g.nodes) {
    f.add(n.kind);
    f.add(n.device);
    if (n.kind == NodeKind::kernel) {
      const auto& k = g.kernels[n.payload];
      f.add(k.func);
      for (std::uint32_t c = 0; c < k.ph_count; ++c) {
        const auto& kc = g.placeholders[k.ph_first + c];
        f.add(kc.offset);
        f.add(kc.kind);
        f.add(kc.ref.levels);
        f.add(kc.ref.index);
      }
    }
    if (n.kind == NodeKind::mem_alloc) {
      const auto& a = g.allocs[n.payload];
      f.add(a.bytes);
      f.add(a.device);
      f.add(a.peers.size());
      f.add(a.peers.data(), a.peers.size() * sizeof(int));
    }
    if (n.kind == NodeKind::mem_free) f.add(g.frees[n.payload]);
    if (n.kind == NodeKind::conditional) {
      const auto& c = g.conditionals[n.payload];
      f.add(c.type);
      f.add(c.condition.levels);
      f.add(c.condition.index);
      f.add(c.bodies.size());
      for (const auto& b : c.bodies) add_nested(f, *b, memo);
    }
    preds.assign(n.preds.begin(), n.preds.end());
    std::sort(preds.begin(), preds.end());
    f.add(preds.size());
    f.add(preds.data(), preds.size() * sizeof(std::uint32_t));
    if (n.kind == NodeKind::child) add_nested(f, *g.children[n.payload], memo);
  }
}
}  // namespace

std::uint64_t Graph::fingerprint() const {
  Fnv f;
  FingerprintMemo memo;
  fingerprint_into(f, impl(), memo);
  return f.h;
}

// ---- Executable::update ------------------------------------------------------------------------

namespace {
bool has_nested_conditions(const detail::GraphImpl& g) {
  if (!g.conditions.empty()) return true;
  for (const auto& c : g.children) {
    if (has_nested_conditions(*c)) return true;
  }
  for (const auto& c : g.conditionals) {
    for (const auto& b : c.bodies) {
      if (has_nested_conditions(*b)) return true;
    }
  }
  return false;
}
}  // namespace

UpdateResult Executable::update(const Graph& templ, UpdatePolicy policy) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const detail::GraphImpl& t = templ.impl();

  std::vector<std::uint32_t> renamed;
  bool conditions_changed = false;
  UpdateResult result = detail::plan_diff(a, t, &renamed, &conditions_changed);
  if (!result) return result;
  const std::vector<std::uint32_t>& changed = result.changed;
  // Changes per-node setters cannot make: a kernel's priority and launch attributes, and
  // multi-dimensional copies (cudaGraphExecMemcpyNodeSetParams takes 1-D operands only).
  bool priority_changed = false;
  bool multi_dim_copy = false;
  bool nested_change = conditions_changed;  // condition defaults and conditional bodies: cudaGraphExecUpdate only
  for (std::uint32_t i : changed) {
    const std::uint32_t pa = a.nodes[i].payload, pt = t.nodes[i].payload;
    nested_change |= a.nodes[i].kind == NodeKind::conditional || a.nodes[i].kind == NodeKind::captured;
    if (a.nodes[i].kind == NodeKind::kernel) {
      const Launch la = detail::launch_of(a, pa);
      const Launch lt = detail::launch_of(t, pt);
      // cudaGraphExecUpdate accepts a new cluster shape, but the node then faults when launched
      // (cudaErrorLaunchFailure, H200, driver 580): refused, as a change of cooperative launch.
      if (!detail::same_dims(la.cluster, lt.cluster) || la.cooperative != lt.cooperative) {
        return detail::refusal(UpdateStatus::attributes_changed, a.info(i),
                               fmt::format("{}: its cluster or cooperative launch changed ({} to {}), which CUDA "
                                           "cannot patch in an executable; compile the new plan instead",
                                           a.info(i).describe(), detail::launch_attributes_text(la),
                                           detail::launch_attributes_text(lt)));
      }
      priority_changed |= !detail::same_attributes(la, lt);
    } else if (a.nodes[i].kind == NodeKind::memcpy) {
      for (const cudaMemcpy3DParms* p : {&std::as_const(a.memcpys[pa]), &t.memcpys[pt]}) {
        multi_dim_copy |= p->extent.height > 1 || p->extent.depth > 1 || p->srcArray || p->dstArray;
      }
    }
  }

  if (!changed.empty() || conditions_changed) {
    // Host callbacks are swapped without a CUDA call; only the other changes cost a setter each.
    const auto driver_changes = std::count_if(changed.begin(), changed.end(),
                                              [&](std::uint32_t i) { return a.nodes[i].kind != NodeKind::host; });
    const bool many = static_cast<double>(driver_changes) > detail::whole_graph_fraction * a.nodes.size();
    const bool whole = policy == UpdatePolicy::whole_graph ||
                       (policy == UpdatePolicy::automatic && (many || priority_changed || multi_dim_copy || nested_change));
    if (whole && !a.allocs.empty()) {
      return detail::refusal(UpdateStatus::not_supported, std::nullopt,
                             "graph " + detail::quoted(a.name) + " allocates graph memory, and cudaGraphExecUpdate would leave "
                             "arguments pointing at the template's allocations; plans with graph allocations are "
                             "updated node by node (UpdatePolicy::per_node)");
    }
    if (!whole && nested_change) {
      return detail::refusal(UpdateStatus::not_supported, std::nullopt,
                             "a condition's default, a conditional node's body or a captured node changed, which "
                             "per-node setters cannot patch; use UpdatePolicy::whole_graph or automatic");
    }
    if (!whole && priority_changed) {
      return detail::refusal(UpdateStatus::attributes_changed, std::nullopt,
                             "a kernel node's priority or launch attributes changed, which per-node setters cannot "
                             "patch; use UpdatePolicy::whole_graph or automatic");
    }
    if (whole) {
      detail::Materialized m;
      try {
        m = detail::materialize(t, detail::check_plan(t), x.sink);
      } catch (const CudaError& e) {
        UpdateResult r = detail::refusal(UpdateStatus::error, e.node(), detail::without_prefix(e));
        r.cuda_error = e.code();
        return r;
      }
      cudaGraphExecUpdateResultInfo info{};
      const cudaError_t rc = detail::cuda_try(cudaGraphExecUpdate, x.exec.get(), m.graph.get(), &info);
      if (rc != cudaSuccess) {
        UpdateResult r;
        r.status = info.result == cudaGraphExecUpdateSuccess ? UpdateStatus::error : detail::from_cuda(info.result);
        r.cuda_error = rc;
        r.node = detail::find_native(t, m.nodes, info.errorNode);
        r.from_node = detail::find_native(t, m.nodes, info.errorFromNode);
        r.reason = fmt::format("cudaGraphExecUpdate refused the template: {} ({})", cudaGetErrorName(rc),
                               to_string(r.status));
        if (r.node) r.reason += " at " + r.node->describe();
        return r;
      }
      for (std::uint32_t i : changed) detail::SavedParams::save(t, i, true).restore(a, i);
      for (std::size_t k = 0; k < a.conditions.size(); ++k) {
        a.conditions[k].default_value = t.conditions[k].default_value;
        a.conditions[k].assign_default = t.conditions[k].assign_default;
      }
      x.native.host_slots = m.host_slots;  // the executable now holds the template's slots
      // ... and the references of the template graph's user object (cudaGraphExecUpdate replaces
      // the executable's with them): events given to setters from now on go to that one.
      x.native.keep = m.keep;
      if (!m.handles.empty() || has_nested_conditions(t)) {
        // The executable now uses the template's condition handles: keep their graph alive.
        x.native.handles = m.handles;
        x.handle_owner = std::move(m.graph);
      }
      result.strategy = UpdateStrategy::whole_graph;
    } else {
      std::vector<detail::SavedParams> old;
      old.reserve(changed.size());
      // Roll back nodes changed[0..k]: the recorded plan and the nodes already patched return to
      // the old parameters.
      auto roll_back = [&](std::size_t k) {
        for (std::size_t j = 0; j <= k; ++j) {
          old[j].restore(a, changed[j]);
          if (j < k) {
            const detail::Applied back = detail::apply_node(x, changed[j]);
            if (back.rc != cudaSuccess) detail::throw_cuda(back.rc, back.api, a.info(changed[j]), "rolling back an update");
          }
        }
      };
      for (std::size_t k = 0; k < changed.size(); ++k) {
        const std::uint32_t i = changed[k];
        old.push_back(detail::SavedParams::save(a, i));
        detail::SavedParams::save(t, i, true).restore(a, i);
        detail::Applied applied;
        try {
          applied = detail::apply_node(x, i);  // a child plan's captured function may throw
        } catch (...) {
          roll_back(k);
          throw;
        }
        if (applied.rc == cudaSuccess) continue;
        roll_back(k);
        UpdateResult r = detail::refusal(
            UpdateStatus::parameters_changed, t.info(i),
            fmt::format("{} refused the new parameters of {}: {} ({})", applied.api, t.info(i).describe(),
                        cudaGetErrorName(applied.rc), cudaGetErrorString(applied.rc)));
        r.cuda_error = applied.rc;
        return r;
      }
      result.strategy = UpdateStrategy::per_node;
    }
  }
  for (std::uint32_t i : renamed) a.nodes[i].name = t.nodes[i].name;
  for (std::size_t k = 0; k < a.params.size(); ++k) {  // the shapes matched: same count and types
    a.params[k].value = t.params[k].value;
    a.params[k].name = t.params[k].name;
  }
  for (std::uint32_t i = 0; i < a.nodes.size(); ++i) detail::take_nested_names(a, t, i);
  result.patched = changed.size();
  x.last_template_id = t.id;
  return result;
}

// ---- Executable: per-node setters --------------------------------------------------------------

namespace detail {
namespace {

/// What argument `arg` of kernel `k` of plan `g` stands for, in words. With `in`, a Condition or
/// GraphBuffer is looked up in that plan (the executable's) by its id; without, by g's own reference.
std::string kernel_arg_meaning(const GraphImpl& g, const KernelData& k, std::uint32_t arg, const GraphImpl* in) {
  const GraphImpl& where = in != nullptr ? *in : g;
  for (std::uint32_t c = 0; c < k.ph_count; ++c) {
    const KernelPlaceholder& ph = g.placeholders[k.ph_first + c];
    if (ph.offset != k.layout->offsets[arg]) continue;
    if (ph.kind == PlaceholderKind::condition) {
      const ConditionRef ref = in != nullptr ? in->resolve(Condition(ph.uid)) : ph.ref;
      if (ref.levels != 0) return fmt::format("a Condition that graph '{}' does not declare", where.name);
      return fmt::format("condition number {} of graph '{}'", ref.index, where.name);
    }
    const std::uint32_t alloc = in != nullptr ? in->alloc_node(ph.uid) : ph.ref.index;
    if (alloc == ConditionRef::unresolved) return fmt::format("a GraphBuffer that graph '{}' does not allocate", where.name);
    return fmt::format("the GraphBuffer of {}", where.info(alloc).describe());
  }
  return "a plain value";
}

/// What pointer `field` of memset or memcpy node i of plan `g` stands for, in words (`in`: as above).
std::string buffer_field_meaning(const GraphImpl& g, std::uint32_t i, BufferField field, const GraphImpl* in) {
  const GraphImpl& where = in != nullptr ? *in : g;
  for (const BufferUse& u : g.buffer_uses) {
    if (u.node != i || u.field != field) continue;
    const std::uint32_t alloc = in != nullptr ? in->alloc_node(u.uid) : u.alloc_node;
    if (alloc == ConditionRef::unresolved) return fmt::format("a GraphBuffer that graph '{}' does not allocate", where.name);
    return fmt::format("the GraphBuffer of {}", where.info(alloc).describe());
  }
  return "a plain pointer";
}

/// Refuses a setter whose Condition or GraphBuffer arguments (plan `s`, node #0) do not mean, in
/// the executable's plan `a`, what node i's recorded ones mean: a setter, like update(), patches
/// values; it cannot turn a graph buffer into a raw pointer (the buffer's address would be written
/// over it) or a raw pointer into a graph buffer (it would reach the kernel as null).
void check_placeholders(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) {
  const NodeData& n = a.nodes[i];
  auto refuse = [&](const std::string& what, const std::string& was, const std::string& now) {
    throw UsageError(fmt::format("{}: {} is {} in this executable's plan but {} in the setter; setters and update() "
                                 "patch values, not which arguments are Conditions or GraphBuffers (compile a new "
                                 "plan for that)",
                                 a.info(i).describe(), what, was, now));
  };
  if (n.kind == NodeKind::kernel) {
    const KernelData& k = a.kernels[n.payload];
    const KernelData& ks = s.kernels[s.nodes[0].payload];
    for (std::uint32_t arg = 0; arg < k.layout->count; ++arg) {
      const std::string was = kernel_arg_meaning(a, k, arg, nullptr), now = kernel_arg_meaning(s, ks, arg, &a);
      if (was != now) refuse(fmt::format("argument {}", arg), was, now);
    }
  } else if (n.kind == NodeKind::memset || n.kind == NodeKind::memcpy) {
    const bool set = n.kind == NodeKind::memset;
    for (const BufferField f : {BufferField::memset_dst, BufferField::memcpy_dst, BufferField::memcpy_src}) {
      if ((f == BufferField::memset_dst) != set) continue;
      const std::string was = buffer_field_meaning(a, i, f, nullptr), now = buffer_field_meaning(s, 0, f, &a);
      if (was != now) refuse(f == BufferField::memcpy_src ? "the source" : "the destination", was, now);
    }
  }
}

}  // namespace
}  // namespace detail

const detail::KernelData& Executable::recorded_kernel(const Node& node) const {
  const detail::ExecImpl& x = impl();
  const detail::GraphImpl& a = x.plan.impl();
  return a.kernels[a.nodes[detail::exec_index(x, node, NodeKind::kernel)].payload];
}

Launch Executable::recorded_launch(const Node& node) const {
  const detail::ExecImpl& x = impl();
  const detail::GraphImpl& a = x.plan.impl();
  return detail::launch_of(a, a.nodes[detail::exec_index(x, node, NodeKind::kernel)].payload);
}

void Executable::replace_node(const Node& target, const Graph& source) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const detail::GraphImpl& s = source.impl();
  const std::uint32_t i = detail::exec_index(x, target, s.nodes[0].kind);
  if (s.nodes[0].kind == NodeKind::child) {
    const auto& now = *a.children[a.nodes[i].payload];
    if (auto r = detail::compare_shape(now, *s.children[s.nodes[0].payload], {})) {
      throw UsageError(fmt::format("{}: the new child plan has another shape ({})", a.info(i).describe(), r->reason));
    }
  }
  if (s.nodes[0].kind == NodeKind::kernel) {
    // A KernelNode made from a NodeRef is not checked against the kernel it names (node_cast is):
    // an argument block of another layout would overrun the recorded one or leave the kernel
    // reading past the arguments given.
    const detail::ArgLayout& now = *a.kernels[a.nodes[i].payload].layout;
    const detail::ArgLayout& given = *s.kernels[s.nodes[0].payload].layout;
    if (!detail::same_layout(given, now)) {
      throw UsageError(fmt::format("{}: the setter's kernel arguments ({} parameters, {} bytes) do not match the kernel "
                                   "the node launches ({} parameters, {} bytes): a KernelNode handle of another "
                                   "signature (node_cast checks it; KernelNodeOf<decltype(kernel)> names it)",
                                   a.info(i).describe(), given.count, given.total, now.count, now.total));
    }
  }
  detail::check_placeholders(a, i, s);
  const detail::SavedParams old = detail::SavedParams::save(a, i);
  detail::SavedParams::save(s, 0, true).restore(a, i);
  try {
    detail::check_node(a, i);
  } catch (...) {
    old.restore(a, i);
    throw;
  }
  detail::Applied applied;
  try {
    applied = detail::apply_node(x, i);  // may throw: a child plan's captured function, for one
  } catch (...) {
    old.restore(a, i);
    throw;
  }
  if (applied.rc != cudaSuccess) {
    old.restore(a, i);
    detail::throw_cuda(applied.rc, applied.api, a.info(i));
  }
}


void Executable::set_kernel_params(const Node& node, const unsigned char* args, const detail::ArgLayout* layout,
                                   const Launch* launch) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::kernel);
  detail::KernelData& k = a.kernels[a.nodes[i].payload];
  const bool direct = detail::direct_kernel(k) && (args == nullptr || detail::same_layout(*layout, *k.layout));
  if (!direct) {  // Conditions or GraphBuffers to resolve and compare: the general path
    Graph one("setter");
    auto& o = one.impl();
    const unsigned char* from = args != nullptr ? args : a.args.data() + k.args;
    const detail::ArgLayout* l = args != nullptr ? layout : k.layout;
    o.args.assign(from, from + l->total);
    const Launch recorded = detail::launch_of(a, a.nodes[i].payload);
    if (launch != nullptr) detail::check_setter_attributes(a, i, recorded, *launch);
    Launch shape = launch != nullptr ? *launch : recorded;
    shape.priority = recorded.priority;  // CUDA cannot patch a priority per node
    // A new launch keeps the recorded arguments, Conditions and GraphBuffers included; new
    // arguments are plain values, which replace_node refuses where the recorded ones are not.
    std::vector<detail::PlaceholderArg> same;
    if (args == nullptr) {
      for (std::uint32_t c = 0; c < k.ph_count; ++c) {
        const detail::KernelPlaceholder& ph = a.placeholders[k.ph_first + c];
        same.push_back(detail::PlaceholderArg{ph.offset, ph.kind, ph.uid});
      }
    }
    one.add_kernel_node(k.func, shape, l, 0, same.data(), same.size());
    replace_node(node, one);
    return;
  }
  // The launch rules first (before any CUDA call), on the recorded kernel with the new shape; the
  // recorded launch is put back on any failure.
  // (The attributes are the recorded ones, so only the record's shape changes.)
  struct KeepLaunch {
    detail::KernelData& k;
    detail::LaunchShape old;
    bool done = false;
    ~KeepLaunch() {
      if (!done) k.launch = old;
    }
  } keep{k, k.launch};
  if (launch != nullptr) {
    if (!a.kernel_attributes.empty()) {
      detail::check_setter_attributes(a, i, detail::launch_of(a, a.nodes[i].payload), *launch);
    } else if (launch->has_attributes()) {
      detail::check_setter_attributes(a, i, Launch{}, *launch);
    }
    k.launch = detail::LaunchShape{launch->grid, launch->block, launch->shared_bytes, keep.old.priority};
    detail::check_node(a, i);
  }
  const cudaError_t rc = detail::kernel_direct(x, i, k, args != nullptr ? args : a.args.data() + k.args);
  if (rc != cudaSuccess) detail::throw_cuda(rc, "cudaGraphExecKernelNodeSetParams", a.info(i));
  if (args != nullptr) std::memcpy(a.args.data() + k.args, args, k.layout->total);
  keep.done = true;
}

namespace detail {
namespace {

/// The direct setters of memset and memcpy nodes: writes `now` into the recorded `slot` of node i,
/// checks the node's rules, and patches the node with `set(exec, node, &slot)` (`api` names it);
/// on any failure puts the old parameters back (`also_restore` restores what else was written)
/// and rethrows.
template <class Params, class Set, class Restore>
void patch_recorded(ExecImpl& x, std::uint32_t i, Params& slot, const Params& now, Set set, const char* api,
                    Restore also_restore) {
  GraphImpl& a = x.plan.impl();
  const Params old = slot;
  slot = now;
  try {
    check_node(a, i);
    const DeviceScope device(node_device(a, i, -1));
    const cudaError_t rc = cuda_try(set, x.exec.get(), x.native.nodes[i], static_cast<const Params*>(&slot));
    if (rc != cudaSuccess) throw_cuda(rc, api, a.info(i));
  } catch (...) {
    slot = old;
    also_restore();
    throw;
  }
}

}  // namespace
}  // namespace detail

void Executable::set_memset_raw(const Node& node, void* dst, unsigned int value, unsigned int element_size,
                                std::size_t count, detail::ScalarType type) {
  const std::size_t bytes = detail::checked_bytes(count, element_size, "add_memset");
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::memset);
  if (!detail::buffer_uses_of(a, i).empty()) {  // replace_node says why a raw pointer cannot stand for the buffer
    Graph one("setter");
    one.add_memset_raw(dst, value, element_size, count, 1, bytes);
    one.impl().memset_types.back() = type;
    replace_node(node, one);
    return;
  }
  const std::uint32_t slot = a.nodes[i].payload;
  const detail::ScalarType old_type = a.memset_types[slot];
  a.memset_types[slot] = type;
  detail::patch_recorded(x, i, a.memsets[slot], detail::memset_node_params(dst, value, element_size, count, 1, bytes),
                         cudaGraphExecMemsetNodeSetParams, "cudaGraphExecMemsetNodeSetParams",
                         [&] { a.memset_types[slot] = old_type; });
}

void Executable::set_memcpy_bytes(const Node& node, void* dst, const void* src, std::size_t bytes,
                                  cudaMemcpyKind kind) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::memcpy);
  if (!detail::buffer_uses_of(a, i).empty()) {
    Graph one("setter");
    one.add_memcpy_bytes(dst, src, bytes, kind);
    replace_node(node, one);
    return;
  }
  detail::patch_recorded(x, i, a.memcpys[a.nodes[i].payload],
                         detail::memcpy_node_params(dst, bytes, src, bytes, bytes, 1, kind),
                         cudaGraphExecMemcpyNodeSetParams, "cudaGraphExecMemcpyNodeSetParams", [] {});
}

// ---- Executable::set (parameters) --------------------------------------------------------------

namespace detail {
namespace {

/// The index, in the executable's plan, of the parameter a Parameter handle names: its own
/// (compiled from its plan or a copy: same id), or one of the last update template's, by position.
/// @throws UsageError naming the parameter and both plans.
std::uint32_t exec_param(const ExecImpl& x, const std::shared_ptr<PlanToken>& plan, std::uint64_t uid) {
  const GraphImpl& a = x.plan.impl();
  if (!plan || uid == 0) throw UsageError("Executable::set: an empty Parameter (default-constructed) was given");
  if (const std::uint32_t k = a.param_index(uid); k != ConditionRef::unresolved) return k;
  const GraphImpl* owner = plan->plan;
  const std::uint32_t t = owner != nullptr ? owner->param_index(uid) : ConditionRef::unresolved;
  if (plan->id == x.last_template_id && t != ConditionRef::unresolved && t < a.params.size()) return t;
  const std::string which =
      t != ConditionRef::unresolved
          ? fmt::format("parameter {} of graph {} (plan id {})", owner->param_ref(t), quoted(owner->name), owner->id)
          : fmt::format("parameter id {} of graph {} (plan id {}, destroyed)", uid, quoted(plan->name), plan->id);
  throw UsageError(fmt::format("Executable::set: {} is not a parameter of this executable, compiled from graph {} (plan "
                               "id {}); a parameter is set on executables compiled from the plan that declares it (or "
                               "a copy of that plan)",
                               which, quoted(a.name), x.origin_id));
}

/// Writes `value` (parameter d's bytes) into every place of the recorded plan `a` that uses d.
void write_param(GraphImpl& a, const ParamData& d, const unsigned char* value) {
  for (const ParamUse& u : d.uses) {
    const NodeData& n = a.nodes[u.node];
    if (u.position == 0) {
      a.memsets[n.payload].value = memset_bits(value, d.type->size);
    } else {
      std::memcpy(a.args.data() + a.kernels[n.payload].args + u.offset, value, d.type->size);
    }
  }
}

/// Patches node i from the recorded plan: the direct kernel path where it applies (no allocation),
/// else apply_node (a kernel with Condition or GraphBuffer arguments; memsets allocate nothing).
Applied patch_param_node(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& a = x.plan.impl();
  const NodeData& n = a.nodes[i];
  if (n.kind == NodeKind::kernel && direct_kernel(a.kernels[n.payload])) {
    const KernelData& k = a.kernels[n.payload];
    return {kernel_direct(x, i, k, a.args.data() + k.args), "cudaGraphExecKernelNodeSetParams"};
  }
  return apply_node(x, i);
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

ParameterSet Executable::set_parameter(const std::shared_ptr<detail::PlanToken>& plan, std::uint64_t uid,
                                       const detail::ParamType& type, const void* value) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t k = detail::exec_param(x, plan, uid);
  detail::ParamData& d = a.params[k];
  if (value == nullptr || *type.info != *d.type->info) {
    throw UsageError(fmt::format("Executable::set: parameter {} of graph {} is of type {}, the value given is of type "
                                 "{}; a parameter's value is never converted: pass a {}",
                                 a.param_ref(k), detail::quoted(a.name), d.type->name, type.name, d.type->name));
  }
  const std::array<unsigned char, detail::max_parameter_bytes> old = d.value;
  std::memcpy(d.value.data(), value, d.type->size);
  detail::write_param(a, d, d.value.data());
  // One driver call per node, after its last use was written (uses are in node order).
  auto last_use = [&](std::size_t u) { return u + 1 == d.uses.size() || d.uses[u + 1].node != d.uses[u].node; };
  ParameterSet result;
  for (std::size_t u = 0; u < d.uses.size(); ++u) {
    if (!last_use(u)) continue;
    const detail::Applied applied = detail::patch_param_node(x, d.uses[u].node);
    if (applied.rc == cudaSuccess) {
      ++result.patched;
      continue;
    }
    // Put the old value back in the recorded plan and in the nodes already patched.
    d.value = old;
    detail::write_param(a, d, d.value.data());
    for (std::size_t v = 0; v < u; ++v) {
      if (!last_use(v)) continue;
      const detail::Applied back = detail::patch_param_node(x, d.uses[v].node);
      if (back.rc != cudaSuccess) detail::throw_cuda(back.rc, back.api, a.info(d.uses[v].node), "rolling back Executable::set");
    }
    detail::throw_cuda(applied.rc, applied.api, a.info(d.uses[u].node));
  }
  result.first = d.uses.data();
  result.last = d.uses.data() + d.uses.size();
  return result;
}

void Executable::set_child(const ChildNode& node, const Graph& child) {
  Graph one("setter");
  one.add_child(child);
  replace_node(node, one);
}

void Executable::set_event(const EventRecordNode& node, const Event& event) {
  Graph one("setter");
  one.add_event_record(event);
  replace_node(node, one);
}

void Executable::set_event(const EventWaitNode& node, const Event& event) {
  Graph one("setter");
  one.add_event_wait(event);
  replace_node(node, one);
}

void Executable::set_enabled_node(const Node& node, bool on) {
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, node.kind());
  const cudaError_t rc =
      detail::cuda_try(cudaGraphNodeSetEnabled, x.exec.get(), x.native.nodes[i], on ? 1u : 0u);
  if (rc != cudaSuccess) detail::throw_cuda(rc, "cudaGraphNodeSetEnabled", x.plan.impl().info(i));
}

bool Executable::enabled_node(const Node& node) const {
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, node.kind());
  unsigned int on = 0;
  const cudaError_t rc = detail::cuda_try(cudaGraphNodeGetEnabled, x.exec.get(), x.native.nodes[i], &on);
  if (rc != cudaSuccess) detail::throw_cuda(rc, "cudaGraphNodeGetEnabled", x.plan.impl().info(i));
  return on != 0;
}

}  // namespace graphdsl
