// src/exec/executable.cpp — compiling a plan and running the executable.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "exec/device_update.hpp"
#include "exec/patch.hpp"
#include "exec/update_steps.hpp"
#include "graphdsl/detail/config.hpp"
#include "graphdsl/executable.hpp"
#include "native/cuda_call.hpp"
#include "native/driver_params.hpp"
#include "native/kind_build.hpp"
#include "native/native.hpp"
#include "plan/counters.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"
#include "plan/thread_scratch.hpp"

namespace graphdsl {

namespace {

const char* instantiate_result_name(cudaGraphInstantiateResult r) {
  switch (r) {
    case cudaGraphInstantiateSuccess: return "cudaGraphInstantiateSuccess";
    case cudaGraphInstantiateError: return "cudaGraphInstantiateError";
    case cudaGraphInstantiateInvalidStructure: return "cudaGraphInstantiateInvalidStructure";
    case cudaGraphInstantiateNodeOperationNotSupported: return "cudaGraphInstantiateNodeOperationNotSupported";
    case cudaGraphInstantiateMultipleDevicesNotSupported: return "cudaGraphInstantiateMultipleDevicesNotSupported";
    case cudaGraphInstantiateConditionalHandleUnused: return "cudaGraphInstantiateConditionalHandleUnused";
  }
  return "unknown cudaGraphInstantiateResult";
}

/// Device-launchable executables may hold only kernel, memcpy, memset and child nodes (recursively):
/// the kinds whose BuildOps::device_launch is set, and the plans nested in them.
void check_device_launch(const detail::GraphImpl& g, const std::string& context) {
  for (std::uint32_t i = 0; i < detail::node_count(g); ++i) {
    if (!detail::build_ops(detail::node_kind(g, i)).device_launch) {
      throw UsageError(
          fmt::format("{}{} cannot be part of a device-launchable executable (device_launch allows only "
                      "kernel, memcpy, memset and child nodes)",
                      context, g.info(i).describe()));
    }
    for (const auto& nested : detail::nested_slots(g, i)) {
      check_device_launch(*nested, fmt::format("{}in {} of graph {}: ", context, g.info(i).describe(),
                                               detail::quoted(detail::plan_name(g))));
    }
  }
}

/// The newest CUDA feature a plan's conditional nodes need (12030 for IF and WHILE, 12080 for
/// IF-ELSE and SWITCH), and the first node that needs it.
void needed_cuda(const detail::GraphImpl& g, int& version, std::optional<NodeInfo>& node) {
  for (std::uint32_t i = 0; i < detail::node_count(g); ++i) {
    if (const std::optional<ConditionalType> type = detail::conditional_type(g, i)) {
      const int v = *type == ConditionalType::if_else || *type == ConditionalType::switch_case ? 12080 : 12030;
      if (v > version) {
        version = v;
        node = g.info(i);
      }
    }
    for (const auto& p : detail::nested_slots(g, i)) needed_cuda(*p, version, node);
  }
}

std::string cuda_version(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

/// Conditional nodes need a recent driver and runtime: say which feature, which node and which versions.
void check_versions(const detail::GraphImpl& g) {
  int needed = 0;
  std::optional<NodeInfo> node;
  needed_cuda(g, needed, node);
  if (needed == 0) return;
  int driver = 0, runtime = 0;
  GRAPHDSL_CHECK(cudaDriverGetVersion, &driver);
  GRAPHDSL_CHECK(cudaRuntimeGetVersion, &runtime);
  const int have = std::min(driver, runtime);
  if (have < needed) {
    throw UsageError(
        fmt::format("{} needs CUDA {} ({} conditional nodes); this driver supports CUDA {} and the runtime "
                    "is CUDA {}",
                    node->describe(), cuda_version(needed), needed == 12080 ? "IF-ELSE and SWITCH" : "IF and WHILE",
                    cuda_version(driver), cuda_version(runtime)));
  }
}

void check_options(const detail::GraphImpl& g, const InstantiateOptions& options) {
  const unsigned long long f = options.flags();
  if ((f & cudaGraphInstantiateFlagDeviceLaunch) && (f & cudaGraphInstantiateFlagAutoFreeOnLaunch)) {
    throw UsageError(
        fmt::format("instantiating graph {}: device_launch and auto_free_on_launch cannot be combined "
                    "(CUDA refuses the pair)",
                    detail::quoted(detail::plan_name(g))));
  }
  if (f & cudaGraphInstantiateFlagDeviceLaunch) {
    if (detail::node_count(g) == 0) {
      throw UsageError(
          fmt::format("instantiating graph {} for device launch: the graph is empty; a "
                      "device-launchable executable needs at least one node",
                      detail::quoted(detail::plan_name(g))));
    }
    check_device_launch(g, {});
  }
}

// ---- placing a node CUDA reports in the plan (cold paths: failed instantiate and launch) -------

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t g) {
  std::size_t n = 0;
  if (detail::cuda_try(cudaGraphGetNodes, g, static_cast<cudaGraphNode_t*>(nullptr), &n) != cudaSuccess) return {};
  std::vector<cudaGraphNode_t> v(n);
  if (n != 0 && detail::cuda_try(cudaGraphGetNodes, g, v.data(), &n) != cudaSuccess) return {};
  v.resize(n);
  return v;
}

cudaGraphNodeType type_of(cudaGraphNode_t n) {
  cudaGraphNodeType t = cudaGraphNodeTypeCount;
  (void)detail::cuda_try(cudaGraphNodeGetType, n, &t);
  return t;
}

std::vector<cudaGraphNode_t> dependents_of(cudaGraphNode_t n) {
  std::size_t count = 0;
#if GRAPHDSL_CUDA_13
  auto get = [&](cudaGraphNode_t* out) {
    return detail::cuda_try(cudaGraphNodeGetDependentNodes, n, out, static_cast<cudaGraphEdgeData*>(nullptr), &count);
  };
#else
  auto get = [&](cudaGraphNode_t* out) { return detail::cuda_try(cudaGraphNodeGetDependentNodes, n, out, &count); };
#endif
  if (get(nullptr) != cudaSuccess) return {};
  std::vector<cudaGraphNode_t> v(count);
  if (count != 0 && get(v.data()) != cudaSuccess) return {};
  v.resize(count);
  return v;
}

/// True if `node` is a node of `g` or of a child graph nested in it.
bool holds(cudaGraph_t g, cudaGraphNode_t node) {
  for (cudaGraphNode_t n : nodes_of(g)) {
    if (n == node) return true;
    cudaGraph_t inner = nullptr;
    if (type_of(n) == cudaGraphNodeTypeGraph &&
        detail::cuda_try(cudaGraphChildGraphNodeGetGraph, n, &inner) == cudaSuccess && holds(inner, node)) {
      return true;
    }
  }
  return false;
}

/// Visits the nodes that run after `from` (its dependents, theirs, ...), nearest first, until
/// `stop` returns true for one; returns whether it did.
template <class Stop>
bool any_after(cudaGraphNode_t from, Stop stop) {
  std::vector<cudaGraphNode_t> level{from}, next;
  std::unordered_set<cudaGraphNode_t> seen{from};
  while (!level.empty()) {
    next.clear();
    for (cudaGraphNode_t n : level) {
      for (cudaGraphNode_t d : dependents_of(n)) {
        if (!seen.insert(d).second) continue;
        if (stop(d)) return true;
        next.push_back(d);
      }
    }
    level.swap(next);
  }
  return false;
}

/// The top-level plan node a native node belongs to, and how when it is not the node's own.
struct Owner {
  std::uint32_t index;
  std::string how;  ///< empty when `node` is the plan node's own native node
};

/// Places a native node of the executable's graph (one CUDA reported) in the plan: a top-level
/// node's own node; a node a captured function created (every path from it leaves the capture
/// through that captured node's own node, the first mapped node after it); a node inside a child
/// node's graph; otherwise a node of a conditional body, which names the conditional node when the
/// plan has only one.
std::optional<Owner> owner_of(const detail::ExecImpl& x, cudaGraphNode_t node) {
  const std::vector<cudaGraphNode_t>& mapped = x.native.nodes;
  const detail::GraphImpl& plan = detail::recorded_plan(x);
  auto mapped_index = [&](cudaGraphNode_t n) -> std::optional<std::uint32_t> {
    const auto it = std::find(mapped.begin(), mapped.end(), n);
    if (it == mapped.end()) return std::nullopt;
    return static_cast<std::uint32_t>(it - mapped.begin());
  };
  if (auto i = mapped_index(node)) return Owner{*i, {}};
  const std::vector<cudaGraphNode_t> top = nodes_of(x.native.graph.get());
  if (std::find(top.begin(), top.end(), node) != top.end()) {
    std::optional<Owner> owner;
    any_after(node, [&](cudaGraphNode_t d) {
      const std::optional<std::uint32_t> i = mapped_index(d);
      if (i && detail::build_ops(detail::node_kind(plan, *i)).foreign_nodes)
        owner = Owner{*i, "a node its captured function created"};
      return i.has_value();
    });
    return owner;
  }
  std::vector<std::uint32_t> conditionals;
  for (std::uint32_t i = 0; i < detail::node_count(plan); ++i) {
    // Only a node holding nested plans or a captured function's nodes holds other native nodes:
    // in bodies (a conditional node) or in a child graph (a child node, or a captured node captured
    // into a graph of its own: NCCL collectives, captures inside conditional bodies).
    if (detail::nested_slots(plan, i).size() == 0 && !detail::build_ops(detail::node_kind(plan, i)).foreign_nodes) {
      continue;
    }
    cudaGraph_t inner = nullptr;
    const cudaGraphNodeType type = type_of(mapped[i]);
    if (type == cudaGraphNodeTypeConditional) conditionals.push_back(i);
    const bool embeds = type == cudaGraphNodeTypeGraph;
    if (embeds && detail::cuda_try(cudaGraphChildGraphNodeGetGraph, mapped[i], &inner) == cudaSuccess &&
        holds(inner, node)) {
      return Owner{i, "a node inside its child graph"};
    }
  }
  if (conditionals.size() == 1) return Owner{conditionals[0], "a node inside one of its bodies"};
  return std::nullopt;
}

/// The captured node whose captured function allocates (cudaMallocAsync) memory that no later free
/// node releases, if any. (Graph allocations whose lifetimes do not overlap may share an address,
/// so a free counts only for the allocation it runs after.)
/// The allocation nodes of the executable's graph that no later free node releases, with their
/// addresses: mem_alloc nodes the plan never frees and cudaMallocAsync calls of captured functions.
std::vector<std::pair<cudaGraphNode_t, void*>> unfreed_allocations(const detail::ExecImpl& x) {
  auto frees = [](cudaGraphNode_t n, void* dptr) {
    void* p = nullptr;
    return type_of(n) == cudaGraphNodeTypeMemFree &&
           detail::cuda_try(cudaGraphMemFreeNodeGetParams, n, static_cast<void*>(&p)) == cudaSuccess && p == dptr;
  };
  std::vector<std::pair<cudaGraphNode_t, void*>> out;
  for (cudaGraphNode_t a : nodes_of(x.native.graph.get())) {
    cudaMemAllocNodeParams p{};
    if (type_of(a) != cudaGraphNodeTypeMemAlloc ||
        detail::cuda_try(cudaGraphMemAllocNodeGetParams, a, &p) != cudaSuccess) {
      continue;
    }
    if (!any_after(a, [&](cudaGraphNode_t n) { return frees(n, p.dptr); })) out.emplace_back(a, p.dptr);
  }
  return out;
}

std::optional<Owner> unfreed_captured_allocation(const detail::ExecImpl& x) {
  for (const auto& [a, dptr] : unfreed_allocations(x)) {
    std::optional<Owner> o = owner_of(x, a);
    if (o && detail::build_ops(detail::node_kind(x.plan.impl(), o->index)).foreign_nodes) return o;
  }
  return std::nullopt;
}

/// Throws the CudaError of a failed cudaGraphLaunch or cudaGraphUpload of `x` on `stream`: names the
/// graph, and the captured node when a captured allocation still live makes the relaunch fail.
[[noreturn]] void throw_run_failure(const detail::ExecImpl& x, cudaError_t rc, const char* api, const char* verb,
                                    cudaStream_t stream) {
  std::optional<NodeInfo> where;
  std::string detail = fmt::format("{} graph {}", verb, detail::quoted(detail::plan_name(x.plan.impl())));
  if (rc == cudaErrorInvalidValue && x.launched && (x.flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) == 0) {
    if (const std::optional<Owner> o = unfreed_captured_allocation(x)) {
      where = x.plan.impl().info(o->index);
      detail +=
          "; its captured function allocates memory (cudaMallocAsync) that it never frees, so the previous "
          "launch's allocation is still live: free it in the captured function (cudaFreeAsync), free it before "
          "the relaunch with Executable::free_graph_memory(stream), or compile with "
          "InstantiateOptions::auto_free_on_launch()";
    }
  }
#if GRAPHDSL_HAS_SWITCH
  int stream_device = -1, current = -1;
  if (detail::cuda_try(cudaStreamGetDevice, stream, &stream_device) == cudaSuccess &&
      detail::cuda_try(cudaGetDevice, &current) == cudaSuccess && stream_device != current) {
    detail += fmt::format("; the stream belongs to device {} but the current device is {}", stream_device, current);
  }
#endif
  detail::throw_cuda(rc, api, std::move(where), std::move(detail));
}

}  // namespace

namespace detail {
std::uint32_t exec_index_checked(const ExecImpl& x, const Node& node, NodeKind kind) {
  const GraphImpl& plan = recorded_plan(x);
  const NodeRef ref = node.ref();
  if (ref.plan == 0) throw UsageError("empty node handle (a default-constructed Node was used)");
  // The handle's plan may be gone (the origin Graph destroyed after instantiate, a template after
  // update): its id still says which plan it was, and nothing of it is read.
  if (ref.plan != x.origin_id && ref.plan != plan_id(plan) && ref.plan != x.last_template_id) {
    const GraphImpl& owner = handle_plan(node);  // throws for a handle used after its plan was destroyed
    throw UsageError(
        fmt::format("{} belongs to graph {} (plan id {}); this executable was compiled from graph {} "
                    "(plan id {})",
                    owner.info(node.index()).describe(), quoted(plan_name(owner)), plan_id(owner),
                    quoted(plan_name(plan)), x.origin_id));
  }
  if (node.index() < node_count(plan) && removed(plan, node.index())) throw_removed_node(plan, node.index());
  if (node.index() >= node_count(plan) || node_kind(plan, node.index()) != kind) {
    const GraphImpl* owner = live_plan(ref);
    const std::string what = owner != nullptr && node.index() < node_count(*owner)
                                 ? owner->info(node.index()).describe()
                                 : fmt::format("node #{} of {}", node.index(), plan_ref_of(ref));
    throw UsageError(fmt::format("{} is not a {} node of this executable's plan", what, to_string(kind)));
  }
  return node.index();
}

}  // namespace detail

Executable Graph::instantiate(const InstantiateOptions& options) const& { return compile(Graph(*this), options, id()); }

Executable Graph::instantiate(const InstantiateOptions& options) && {
  const std::uint64_t origin = id();  // a moved-from Graph is a UsageError here, not after the move
  return compile(std::move(*this), options, origin);
}

Executable Graph::compile(Graph plan, const InstantiateOptions& options, std::uint64_t origin) {
  const detail::GraphImpl& g = plan.impl();
  check_options(g, options);
  struct OrderTag;
  detail::ThreadScratch<std::uint32_t, OrderTag> kept_order;  // no allocation for it once the thread has compiled
  const std::vector<std::uint32_t>& order = kept_order.get();
  detail::check_plan_into(g, kept_order.get());
  check_versions(g);
  const bool device_updatable = detail::check_device_updatable(g);

  detail::GraphImpl& own = plan.impl();   // the same plan as g, which the executable takes below
  detail::seal_as_recorded(own, origin);  // handles of a moved-in plan must not change it behind the executable
  std::shared_ptr<detail::HostErrorSink> sink;
  detail::Materialized native = detail::materialize(own, order, sink);
  // The plan and its graph are moved in (the plan's storage stays where it is: g and own stay valid).
  auto x = std::make_unique<detail::ExecImpl>(std::move(plan), std::move(native), std::move(sink));
  x->flags = options.flags();
  x->origin_id = origin;
  if (const std::uint32_t a = detail::first_unfreed_alloc(g); a != detail::ConditionRef::unresolved) {
    x->unfreed = g.info(a);
  }
  x->graph_behind.assign(detail::graph_behind_words(x->native.nodes.size()), 0);
  if (!detail::uses_devices(own)) x->context = detail::current_context();  // the nodes' context (setters)
  if (options.copies_checked() || detail::copies_checked_by_environment()) detail::record_copy_ends(*x);

  cudaGraphInstantiateParams params{};
  params.flags = options.flags();
  params.uploadStream = options.upload_stream();
  cudaGraphExec_t exec = nullptr;
  const cudaError_t rc = [&] {
    const detail::RelaxedCaptureCalls relaxed;  // do not invalidate a global-mode capture elsewhere
    return detail::cuda_try(cudaGraphInstantiateWithParams, &exec, x->native.graph.get(), &params);
  }();
  if (rc != cudaSuccess || params.result_out != cudaGraphInstantiateSuccess) {
    if (rc == cudaSuccess && exec != nullptr) (void)detail::cuda_try(cudaGraphExecDestroy, exec);
    std::optional<NodeInfo> where;
    std::string detail = fmt::format("instantiate result {}", instantiate_result_name(params.result_out));
    if (params.errNode_out != nullptr) {
      if (const std::optional<Owner> o = owner_of(*x, params.errNode_out)) {
        where = own.info(o->index);
        if (!o->how.empty()) detail += fmt::format(" at {}", o->how);
      } else {
        detail += " at a node inside a conditional body or a child graph";
      }
    }
    if (!where) detail = fmt::format("instantiating graph {}: {}", detail::quoted(detail::plan_name(own)), detail);
    detail::throw_cuda(rc == cudaSuccess ? cudaErrorUnknown : rc, "cudaGraphInstantiateWithParams", std::move(where),
                       std::move(detail));
  }
  detail::counters().executables.fetch_add(1);
  x->exec = detail::NativeExec(exec);
  if (options.flags() & cudaGraphInstantiateFlagUpload) x->upload = detail::ExecImpl::Upload::done;
  // Device-updatable nodes: CUDA wants the graph uploaded before its first launch (done by
  // instantiation with upload_on(stream), else by the first launch, on its stream).
  x->device_updatable = device_updatable;
  if (own.holds(NodeKind::captured)) {  // only then: finding them walks the native graph
    if (const std::optional<Owner> o = unfreed_captured_allocation(*x)) x->unfreed_captured = own.info(o->index);
  }
  return Executable(x.release());
}

Executable::Executable() noexcept = default;
Executable::Executable(detail::ExecImpl* impl) noexcept : impl_(impl) {}
Executable::Executable(Executable&&) noexcept = default;
Executable& Executable::operator=(Executable&&) noexcept = default;
Executable::~Executable() = default;

detail::ExecImpl& Executable::impl() const {
  if (!impl_) throw UsageError("use of an empty or moved-from Executable");
  return *impl_.get();
}

namespace {
/// Whether a host node of `x` has thrown since the error was last taken (no sink: no host node).
bool host_error_pending(const detail::ExecImpl& x) noexcept {
  return x.sink != nullptr && x.sink->pending.load(std::memory_order_acquire);
}
}  // namespace

void Executable::rethrow_host_error() {
  auto& x = impl();
  if (host_error_pending(x)) {
    if (std::exception_ptr e = x.sink->take()) std::rethrow_exception(e);
  }
}

bool Executable::has_host_error() const { return host_error_pending(impl()); }

void Executable::launch(cudaStream_t stream) {
  rethrow_host_error();
  detail::ExecImpl& x = *impl_.get();
  const bool relaunch_keeps = x.launched && (x.flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) == 0;
  if (relaunch_keeps) {
    // An allocation the plan never frees is not refused here: the user may have freed it outside the
    // graph (cudaFreeAsync), which CUDA allows; CUDA's refusal of the launch is translated below.
    if (x.unfreed_captured) {
      throw UsageError(
          fmt::format("graph {}: the function of {} allocates memory (cudaMallocAsync) that it never "
                      "frees, and the graph was compiled without auto_free_on_launch: launching it again "
                      "while the previous launch's allocation is live fails (cudaErrorInvalidValue); free "
                      "it in the captured function (cudaFreeAsync), free the last launch's allocations "
                      "with Executable::free_graph_memory(stream), or compile with "
                      "InstantiateOptions::auto_free_on_launch()",
                      detail::quoted(detail::plan_name(x.plan.impl())), x.unfreed_captured->describe()));
    }
  }
  if (x.device_updatable && x.upload != detail::ExecImpl::Upload::done) upload(stream);  // CUDA's rule for them
  // The state is written before the launch and restored if it fails: once cudaGraphLaunch has
  // returned, a host node of this launch may already have destroyed this executable (a callback
  // that deletes its own executable is allowed: tests/gpu/reliability_test.cpp); its deletion waits
  // for `in_launch` to end, the last access to x (detail::Launching).
  const bool launched = x.launched;
  const detail::ExecImpl::Upload upload_state = x.upload;
  x.launched = true;
  x.upload = detail::ExecImpl::Upload::done;  // a host launch uploads the executable (device_graph())
  const detail::Launching in_launch(x.launching);
  const cudaError_t rc = detail::cuda_try(cudaGraphLaunch, x.exec.get(), stream);
  if (rc != cudaSuccess) {
    x.launched = launched;
    x.upload = upload_state;
    if (rc == cudaErrorInvalidValue && relaunch_keeps && x.unfreed) {
      throw UsageError(
          fmt::format("graph {} allocates memory in {} and never frees it, and was compiled without "
                      "auto_free_on_launch: launching it again while the previous launch's allocation is "
                      "live fails (cudaErrorInvalidValue); free the buffer in the plan with add_mem_free, "
                      "free the last launch's allocations with Executable::free_graph_memory(stream) (or "
                      "cudaFreeAsync), or compile with InstantiateOptions::auto_free_on_launch()",
                      detail::quoted(detail::plan_name(x.plan.impl())), x.unfreed->describe()));
    }
    throw_run_failure(x, rc, "cudaGraphLaunch", "launching", stream);
  }
}

void Executable::free_graph_memory(cudaStream_t stream) {
  detail::ExecImpl& x = impl();
  if (!x.launched) return;  // no launch yet (or freed already): nothing is live
  for (const auto& [node, dptr] : unfreed_allocations(x)) {
    const cudaError_t rc = detail::cuda_try(cudaFreeAsync, dptr, stream);
    if (rc != cudaSuccess) {
      const std::optional<Owner> o = owner_of(x, node);
      detail::throw_cuda(rc, "cudaFreeAsync", o ? std::optional<NodeInfo>(x.plan.impl().info(o->index)) : std::nullopt,
                         fmt::format("freeing the graph memory the last launch of graph '{}' left allocated (was it "
                                     "freed already, with cudaFreeAsync or cudaFree?)",
                                     detail::plan_name(x.plan.impl())));
    }
  }
  x.launched = false;
}

void Executable::upload(cudaStream_t stream) {
  rethrow_host_error();
  detail::ExecImpl& x = *impl_.get();
  const cudaError_t rc = detail::cuda_try(cudaGraphUpload, x.exec.get(), stream);
  if (rc != cudaSuccess) throw_run_failure(x, rc, "cudaGraphUpload", "uploading", stream);
  x.upload = detail::ExecImpl::Upload::done;
}

void Executable::synchronize(cudaStream_t stream) {
  impl();
  GRAPHDSL_CHECK(cudaStreamSynchronize, stream);
  rethrow_host_error();
}

const Graph& Executable::plan() const { return impl().plan; }
unsigned long long Executable::flags() const { return impl().flags; }
cudaGraphExec_t Executable::native_handle() const { return impl().exec.get(); }
cudaGraph_t Executable::native_graph() const {
  detail::ExecImpl& x = impl();
  detail::sync_native_graph(x);  // setters and per-node updates patched the executable alone
  return x.native.graph.get();
}

cudaGraphNode_t Executable::native_node(const Node& node) const {
  const detail::ExecImpl& x = impl();
  // node.kind() refuses an empty handle and one whose plan is gone, each with its own message
  // (valid() is false for both, and a check of it here called a destroyed plan's handle "empty").
  return x.native.nodes[detail::exec_index(x, node, node.kind())];
}

namespace {

/// A name as a DOT record field: escaped() (control characters, quotes), then the characters
/// records and DOT strings give a meaning (backslash, braces, bar, angle brackets, double quote)
/// escaped with a backslash.
std::string record_text(const std::string& raw) {
  std::string out;
  for (char c : detail::escaped(raw)) {
    if (c != '\0' && std::strchr("\\\"{}|<>", c) != nullptr) out += '\\';
    out += c;
  }
  return out;
}

/// Adds each node's plan name to the label of its statement in the driver's DOT (matched by the
/// node handle the statement prints, as 0x followed by 16 upper-case hex digits).
std::string name_native_nodes(std::string dot, const detail::GraphImpl& g, const std::vector<cudaGraphNode_t>& nodes) {
  std::unordered_map<std::string, std::uint32_t> by_handle;
  for (std::uint32_t i = 0; i < nodes.size() && i < detail::node_count(g); ++i) {
    by_handle.emplace(fmt::format("0x{:016X}", reinterpret_cast<std::uintptr_t>(nodes[i])), i);
  }
  const std::string key = "label=\"";
  for (std::size_t at = dot.find(key); at != std::string::npos; at = dot.find(key, at + 1)) {
    const std::size_t begin = at + key.size();
    const std::size_t end = dot.find("\"];", begin);
    if (end == std::string::npos) break;
    std::uint32_t node = 0;
    bool found = false;
    for (std::size_t h = dot.find("0x", begin); h != std::string::npos && h + 18 <= end; h = dot.find("0x", h + 2)) {
      const auto it = by_handle.find(dot.substr(h, 18));
      if (it != by_handle.end()) {
        node = it->second;
        found = true;
        break;
      }
    }
    if (!found) continue;
    const std::string& raw = g.node_name(node);
    const std::string name = raw.empty() ? fmt::format("#{}", node) : fmt::format("'{}' (#{})", record_text(raw), node);
    const bool record = begin < dot.size() && dot[begin] == '{';
    dot.insert(record ? begin + 1 : begin, record ? name + "|" : name + "\n");
  }
  return dot;
}

}  // namespace

std::string Executable::native_dot(unsigned int flags) const {
  detail::ExecImpl& x = impl();
  detail::sync_native_graph(x);  // the parameters the executable launches with, where they can be written
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/graphdsl-dot-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    throw Error(fmt::format("graphdsl: native_dot: cannot make a temporary file {} ({})", path, std::strerror(errno)));
  }
  (void)close(fd);
  struct Remove {
    std::string path;
    ~Remove() { (void)std::remove(path.c_str()); }
  } remove{path};
  GRAPHDSL_CHECK(cudaGraphDebugDotPrint, x.native.graph.get(), path.c_str(),
                 flags | static_cast<unsigned int>(cudaGraphDebugDotFlagsHandles));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return name_native_nodes(text.str(), x.plan.impl(), x.native.nodes);
}

void* Executable::buffer_address(std::uint64_t uid) const {
  const detail::ExecImpl& x = impl();
  const detail::GraphImpl& g = detail::recorded_plan(x);
  const std::uint32_t a = g.alloc_node(uid);
  if (a == detail::ConditionRef::unresolved) {
    throw UsageError(fmt::format("the GraphBuffer is not allocated by graph {}, the plan of this executable",
                                 detail::quoted(detail::plan_name(g))));
  }
  return x.native.dptrs[a];
}

}  // namespace graphdsl
