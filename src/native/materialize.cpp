// src/native/materialize.cpp — plan -> cudaGraph_t: the one place that creates graph nodes.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "plan/counters.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/native.hpp"
#include "plan/node_params.hpp"
#include "plan/rules.hpp"
#include "native/reaper.hpp"

namespace graphdsl::detail {

// ---- native owners -----------------------------------------------------------------------------

RelaxedCaptureCalls::RelaxedCaptureCalls() noexcept {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  exchanged_ = cuda_try(cudaThreadExchangeStreamCaptureMode, &mode) == cudaSuccess;
  previous_ = mode;
}

RelaxedCaptureCalls::~RelaxedCaptureCalls() {
  if (exchanged_) (void)cuda_try(cudaThreadExchangeStreamCaptureMode, &previous_);
}

namespace {
/// Destroys a graph or an executable; the live counter drops unless CUDA refused the call because
/// it was made on one of its callback threads (the caller then hands the handle to the release thread).
template <class H>
cudaError_t destroy_counted(cudaError_t (*fn)(H), H handle, std::atomic<std::int64_t>& live) noexcept {
  const RelaxedCaptureCalls relaxed;
  const cudaError_t rc = cuda_try(fn, handle);
  if (rc != cudaErrorNotPermitted) live.fetch_sub(1);
  return rc;
}
void destroy_graph_now(cudaGraph_t g) noexcept { (void)destroy_counted(&cudaGraphDestroy, g, counters().native_graphs); }
void destroy_exec_now(cudaGraphExec_t e) noexcept {
  (void)destroy_counted(&cudaGraphExecDestroy, e, counters().executables);
}
}  // namespace

// On a CUDA callback thread (a host node whose callable destroys the Executable) the destroy call
// would be refused and leak the object with its graph memory: it is made on the release thread.
void GraphTraits::destroy(cudaGraph_t g) noexcept {
  if (on_callback_thread() || destroy_counted(&cudaGraphDestroy, g, counters().native_graphs) == cudaErrorNotPermitted) {
    destroy_later(g, &destroy_graph_now);
  }
}

void ExecTraits::destroy(cudaGraphExec_t e) noexcept {
  if (on_callback_thread() || destroy_counted(&cudaGraphExecDestroy, e, counters().executables) == cudaErrorNotPermitted) {
    destroy_later(e, &destroy_exec_now);
  }
}

void StreamTraits::destroy(cudaStream_t s) noexcept { (void)cuda_try(cudaStreamDestroy, s); }

NativeGraph create_native_graph() {
  cudaGraph_t g = nullptr;
  GRAPHDSL_CHECK(cudaGraphCreate, &g, 0u);
  counters().native_graphs.fetch_add(1);
  return NativeGraph(g);
}

void HostErrorSink::store(std::exception_ptr e) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!error_) error_ = std::move(e);
  pending.store(true, std::memory_order_release);
}

std::exception_ptr HostErrorSink::take() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  pending.store(false, std::memory_order_release);
  return std::exchange(error_, nullptr);
}

cudaKernelNodeParams kernel_params(const GraphImpl& g, const KernelData& k, const HandleScopes& scopes,
                                   const std::vector<void*>& dptrs, std::vector<unsigned char>& block,
                                   std::vector<void*>& argv) {
  const unsigned char* base = g.args.data() + k.args;
  if (k.ph_count != 0) {
    block.assign(base, base + k.layout->total);
    for (std::uint32_t c = 0; c < k.ph_count; ++c) {
      const KernelPlaceholder& kc = g.placeholders[k.ph_first + c];
      if (kc.kind == PlaceholderKind::condition) {
        const cudaGraphConditionalHandle h = scopes[scopes.size() - 1 - kc.ref.levels][kc.ref.index];
        std::memcpy(block.data() + kc.offset, &h, sizeof h);
      } else {
        const void* address = dptrs[kc.ref.index];
        std::memcpy(block.data() + kc.offset, &address, sizeof address);
      }
    }
    base = block.data();
  }
  argv.resize(k.layout->count);
  return kernel_node_params(k, base, argv.data());
}

cudaMemsetParams memset_params(const GraphImpl& g, std::uint32_t i, const std::vector<void*>& dptrs) {
  cudaMemsetParams p = g.memsets[g.nodes[i].payload];
  for (const BufferUse& u : g.buffer_uses) {
    if (u.node == i) p.dst = dptrs[u.alloc_node];
  }
  return p;
}

cudaMemcpy3DParms memcpy_params(const GraphImpl& g, std::uint32_t i, const std::vector<void*>& dptrs) {
  cudaMemcpy3DParms p = g.memcpys[g.nodes[i].payload];
  for (const BufferUse& u : g.buffer_uses) {
    if (u.node != i) continue;
    (u.field == BufferField::memcpy_src ? p.srcPtr : p.dstPtr).ptr = dptrs[u.alloc_node];
  }
  return p;
}

namespace {

// ---- keep-alives through CUDA user objects -----------------------------------------------------

}  // namespace

void KeepAlive::add_given(std::shared_ptr<const void> p) {
  if (p != nullptr && given.insert(p.get()).second) items.push_back(std::move(p));
}

namespace {

/// The user object's destructor: runs on a CUDA thread, so the last reference (whose destructor
/// may call CUDA, e.g. cudaEventDestroy) is handed to graphdsl's release thread.
void CUDART_CB release_keep_alive(void* p) {
  const OnCallbackThread callback;
  auto* heap = static_cast<std::shared_ptr<const void>*>(p);
  release_later(std::move(*heap));
  delete heap;
}

/// Makes `root` (and every executable instantiated from it) share ownership of `keep`.
void retain_on_graph(cudaGraph_t root, std::shared_ptr<const void> keep, const std::optional<NodeInfo>& where) {
  auto* heap = new std::shared_ptr<const void>(std::move(keep));
  cudaUserObject_t obj = nullptr;
  cudaError_t rc = cuda_try(cudaUserObjectCreate, &obj, static_cast<void*>(heap), &release_keep_alive, 1u,
                            static_cast<unsigned>(cudaUserObjectNoDestructorSync));
  if (rc != cudaSuccess) {
    delete heap;
    throw_cuda(rc, "cudaUserObjectCreate", where);
  }
  rc = cuda_try(cudaGraphRetainUserObject, root, obj, 1u, static_cast<unsigned>(cudaGraphUserObjectMove));
  if (rc != cudaSuccess) {
    (void)cuda_try(cudaUserObjectRelease, obj, 1u);  // runs release_keep_alive
    throw_cuda(rc, "cudaGraphRetainUserObject", where);
  }
}

void CUDART_CB host_trampoline(void* p) {
  const OnCallbackThread callback;  // CUDA calls are refused here: releases go to the release thread
  auto* slot = static_cast<HostSlot*>(p);
  const std::shared_ptr<HostClosure> fn = std::atomic_load(&slot->fn);  // a concurrent set_host may swap it
  try {
    fn->call();
  } catch (...) {
    slot->sink->store(std::current_exception());
  }
}

// ---- node creation -----------------------------------------------------------------------------

std::string kernel_hint(cudaError_t rc, const KernelData& k) {
  if (rc == cudaErrorInvalidDeviceFunction || rc == cudaErrorInvalidResourceHandle) {
    return "the function is not a __global__ kernel compiled for this device (check CMAKE_CUDA_ARCHITECTURES)";
  }
  if (rc == cudaErrorInvalidValue && k.launch.shared_bytes > 48u * 1024u) {
    return fmt::format("{} bytes of dynamic shared memory is above the default 48 KiB; raise the kernel's limit "
                       "with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, {})",
                       k.launch.shared_bytes, k.launch.shared_bytes);
  }
  return {};
}

class Builder {
 public:
  Builder(KeepAlive& keep, const std::shared_ptr<HostErrorSink>& sink, HostSlots* slots, DeviceScope* devices)
      : keep_(keep), sink_(sink), slots_(slots), devices_(devices) {}

  /// Adds the nodes of `g` to `graph` in `order`; out[i] receives plan node i's native node.
  void build(const GraphImpl& g, cudaGraph_t graph, const std::vector<std::uint32_t>& order,
             std::vector<cudaGraphNode_t>& out) {
    std::vector<cudaGraphConditionalHandle> handles(g.conditions.size());
    for (std::size_t k = 0; k < handles.size(); ++k) {
      const ConditionData& c = g.conditions[k];
      const cudaError_t rc = cuda_try(cudaGraphConditionalHandleCreate, &handles[k], graph, c.default_value,
                                      c.assign_default ? static_cast<unsigned>(cudaGraphCondAssignDefault) : 0u);
      if (rc != cudaSuccess) {
        throw_cuda(rc, "cudaGraphConditionalHandleCreate", std::nullopt,
                   fmt::format("creating condition number {} of graph {}{}", k, quoted(g.name), where_.empty() ? "" : " " + where_));
      }
    }
    if (scopes_.empty()) {
      root_handles_ = handles;
      dptrs_.assign(g.nodes.size(), nullptr);  // graph buffers live in the top-level plan
    }
    scopes_.push_back(std::move(handles));
    out.assign(g.nodes.size(), nullptr);
    std::vector<cudaGraphNode_t> deps;
    std::vector<std::uint32_t> kinded;  // predecessors over edges that are not full ones
    for (std::uint32_t i : order) {
      deps.clear();
      kinded.clear();
      for (std::uint32_t p : g.nodes[i].preds) {
        if (!g.edge_kinds.empty() && edge_kind(g, p, i) != EdgeKind::full) {
          kinded.push_back(p);
        } else {
          deps.push_back(out[p]);
        }
      }
      out[i] = add(g, i, graph, deps);
      for (std::uint32_t p : kinded) add_kinded_edge(g, p, i, graph, out[p], out[i]);
    }
    scopes_.pop_back();
  }

  /// Hands the top-level plan's condition handles and allocation addresses to `m`.
  void take_results(Materialized& m) {
    m.handles = std::move(root_handles_);
    m.dptrs = std::move(dptrs_);
  }

 private:
  cudaGraphNode_t add(const GraphImpl& g, std::uint32_t i, cudaGraph_t graph, const std::vector<cudaGraphNode_t>& deps) {
    const NodeData& n = g.nodes[i];
    if (devices_ != nullptr) devices_->use(node_device(g, i, -1));  // -1: the device current at compile time
    const cudaGraphNode_t* d = deps.data();
    const std::size_t nd = deps.size();
    cudaGraphNode_t node = nullptr;
    cudaError_t rc = cudaSuccess;
    const char* api = "";
    std::string hint;
    switch (n.kind) {
      case NodeKind::kernel: {
        const KernelData& k = g.kernels[n.payload];
        const cudaKernelNodeParams p = kernel_params(g, k, scopes_, dptrs_, block_, argv_);
        const KernelAttributes* attributes = attributes_of(g, n.payload);
        if (attributes != nullptr) check_attributes_on_device(g, i, k, launch_of(g, n.payload));
        api = "cudaGraphAddKernelNode";
        rc = cuda_try(cudaGraphAddKernelNode, &node, graph, d, nd, static_cast<const cudaKernelNodeParams*>(&p));
        if (rc == cudaSuccess) rc = set_attributes(node, k.launch.priority, attributes, api);
        if (rc != cudaSuccess) hint = kernel_hint(rc, k);
        break;
      }
      case NodeKind::memset: {
        api = "cudaGraphAddMemsetNode";
        const cudaMemsetParams p = memset_params(g, i, dptrs_);
        rc = cuda_try(cudaGraphAddMemsetNode, &node, graph, d, nd, &p);
        if (rc == cudaErrorInvalidValue) hint = "the destination must be device memory (not pageable host memory)";
        break;
      }
      case NodeKind::memcpy: {
        api = "cudaGraphAddMemcpyNode";
        const cudaMemcpy3DParms p = memcpy_params(g, i, dptrs_);
        rc = cuda_try(cudaGraphAddMemcpyNode, &node, graph, d, nd, &p);
        break;
      }
      case NodeKind::host: {
        auto slot = std::make_shared<HostSlot>();
        slot->fn = g.hosts[n.payload];
        slot->sink = sink_;
        cudaHostNodeParams p{};
        p.fn = &host_trampoline;
        p.userData = slot.get();
        if (slots_ != nullptr) (*slots_)[n.payload] = slot.get();
        keep_.add(std::move(slot));
        api = "cudaGraphAddHostNode";
        rc = cuda_try(cudaGraphAddHostNode, &node, graph, d, nd, static_cast<const cudaHostNodeParams*>(&p));
        break;
      }
      case NodeKind::child: {
        const GraphImpl& c = *g.children[n.payload];
        NativeGraph inner = create_native_graph();
        std::vector<cudaGraphNode_t> inner_nodes;
        HostSlots* const outer = std::exchange(slots_, nullptr);  // only top-level slots are recorded
        const std::string outer_where = where_;
        where_ = fmt::format("in {} of graph {}{}", g.info(i).describe(), quoted(g.name),
                             outer_where.empty() ? "" : " " + outer_where);
        build(c, inner.get(), creation_order(c), inner_nodes);
        where_ = outer_where;
        slots_ = outer;
        api = "cudaGraphAddChildGraphNode";
        rc = cuda_try(cudaGraphAddChildGraphNode, &node, graph, d, nd, inner.get());  // clones `inner`
        break;
      }
      case NodeKind::conditional: {
        const ConditionalData& c = g.conditionals[n.payload];
        cudaGraphNodeParams p{};
        p.type = cudaGraphNodeTypeConditional;
        p.conditional.handle = scopes_[scopes_.size() - 1 - c.condition.levels][c.condition.index];
#if CUDART_VERSION >= 12080
        p.conditional.type = c.type == ConditionalType::while_loop    ? cudaGraphCondTypeWhile
                             : c.type == ConditionalType::switch_case ? cudaGraphCondTypeSwitch
                                                                      : cudaGraphCondTypeIf;
#else  // SWITCH exists from CUDA 12.8 on; instantiate() refuses it earlier with older runtimes
        p.conditional.type = c.type == ConditionalType::while_loop ? cudaGraphCondTypeWhile : cudaGraphCondTypeIf;
#endif
        p.conditional.size = static_cast<unsigned>(c.bodies.size());
        api = "cudaGraphAddNode";
#if GRAPHDSL_CUDA_13
        rc = cuda_try(cudaGraphAddNode, &node, graph, d, static_cast<const cudaGraphEdgeData*>(nullptr), nd, &p);
#else
        rc = cuda_try(cudaGraphAddNode, &node, graph, d, nd, &p);
#endif
        if (rc != cudaSuccess) break;
        HostSlots* const outer = std::exchange(slots_, nullptr);
        const std::string outer_where = where_;
        ++body_depth_;
        for (std::size_t b = 0; b < c.bodies.size(); ++b) {
          where_ = fmt::format("in body {} ({}) of {} of graph {}{}", b, escaped(c.bodies[b]->name), g.info(i).describe(),
                               quoted(g.name), outer_where.empty() ? "" : " " + outer_where);
          std::vector<cudaGraphNode_t> body_nodes;
          build(*c.bodies[b], p.conditional.phGraph_out[b], creation_order(*c.bodies[b]), body_nodes);
        }
        --body_depth_;
        where_ = outer_where;
        slots_ = outer;
        break;
      }
      case NodeKind::captured: {
        if (body_depth_ > 0 || g.captures[n.payload].fn->own_graph()) {
          // Inside a conditional body the capture goes into a graph of its own, embedded as a child
          // node: a capture invalidated while capturing straight into a body crashes the driver
          // (seen on CUDA 13.0 / driver 580: cudaMalloc or a synchronization in the captured function).
          // Closures that ask for it (own_graph) are captured the same way everywhere.
          NativeGraph inner = create_native_graph();
          (void)capture(g, i, inner.get(), {}, api, rc, hint);
          if (rc != cudaSuccess) break;
          api = "cudaGraphAddChildGraphNode";
          rc = cuda_try(cudaGraphAddChildGraphNode, &node, graph, d, nd, inner.get());  // clones `inner`
          break;
        }
        const std::vector<cudaGraphNode_t> exits = capture(g, i, graph, deps, api, rc, hint);
        if (rc != cudaSuccess) break;
        api = "cudaGraphAddEmptyNode";  // the node successors wait for: after everything captured
        rc = cuda_try(cudaGraphAddEmptyNode, &node, graph, exits.data(), exits.size());
        break;
      }
      case NodeKind::mem_alloc: {
        const AllocData& a = g.allocs[n.payload];
        int device = a.device;
        if (device < 0) GRAPHDSL_CHECK(cudaGetDevice, &device);
        cudaMemAllocNodeParams p{};
        p.poolProps.allocType = cudaMemAllocationTypePinned;
        p.poolProps.location.type = cudaMemLocationTypeDevice;
        p.poolProps.location.id = device;
        std::vector<cudaMemAccessDesc> access(a.peers.size());
        for (std::size_t k = 0; k < a.peers.size(); ++k) {
          access[k].location.type = cudaMemLocationTypeDevice;
          access[k].location.id = a.peers[k];
          access[k].flags = cudaMemAccessFlagsProtReadWrite;
        }
        p.accessDescs = access.empty() ? nullptr : access.data();
        p.accessDescCount = access.size();
        p.bytesize = a.bytes;
        api = "cudaGraphAddMemAllocNode";
        rc = cuda_try(cudaGraphAddMemAllocNode, &node, graph, d, nd, &p);
        if (rc == cudaSuccess) dptrs_[i] = p.dptr;
        break;
      }
      case NodeKind::mem_free:
        api = "cudaGraphAddMemFreeNode";
        rc = cuda_try(cudaGraphAddMemFreeNode, &node, graph, d, nd, dptrs_[g.frees[n.payload]]);
        break;
      case NodeKind::empty:
        api = "cudaGraphAddEmptyNode";
        rc = cuda_try(cudaGraphAddEmptyNode, &node, graph, d, nd);
        break;
      case NodeKind::event_record:
      case NodeKind::event_wait: {
        const Event& e = g.events[n.payload];
        cudaEvent_t native = nullptr;  // created now (on the current device) if this is its first use
        api = "cudaEventCreateWithFlags";
        rc = native_event(e, native);
        if (rc != cudaSuccess) break;
        keep_.add(e.state());
        const bool record = n.kind == NodeKind::event_record;
        api = record ? "cudaGraphAddEventRecordNode" : "cudaGraphAddEventWaitNode";
        rc = record ? cuda_try(cudaGraphAddEventRecordNode, &node, graph, d, nd, native)
                    : cuda_try(cudaGraphAddEventWaitNode, &node, graph, d, nd, native);
        break;
      }
    }
    if (rc != cudaSuccess) throw_cuda(rc, api, info(g, i), std::move(hint));
    return node;
  }

  /// Captures captured node i of g into `graph` after `deps`; returns the capture's last nodes.
  /// On a CUDA failure sets `api`, `rc` and `hint`; if the user's function throws, the capture is
  /// ended (the caller destroys the half-built graph) and the exception propagates.
  std::vector<cudaGraphNode_t> capture(const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
                                       const std::vector<cudaGraphNode_t>& deps, const char*& api, cudaError_t& rc,
                                       std::string& hint) {
    const CaptureData& c = g.captures[g.nodes[i].payload];
    c.fn->check(info(g, i));
    const cudaStream_t s = capture_stream();
    api = "cudaStreamBeginCaptureToGraph";
    rc = cuda_try(cudaStreamBeginCaptureToGraph, s, graph, deps.data(), static_cast<const cudaGraphEdgeData*>(nullptr),
                  deps.size(), c.mode);
    if (rc != cudaSuccess) return {};
    auto end_capture = [&] {
      cudaGraph_t ended = nullptr;
      return cuda_try(cudaStreamEndCapture, s, &ended);  // capturing into `graph`: `ended` is `graph`
    };
    try {
      c.fn->call(s);
    } catch (...) {
      (void)end_capture();
      throw;
    }
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaGraphNode_t* last = nullptr;
    std::size_t count = 0;
    api = "cudaStreamGetCaptureInfo";
#if GRAPHDSL_CUDA_13
    rc = cuda_try(cudaStreamGetCaptureInfo, s, &status, static_cast<unsigned long long*>(nullptr),
                  static_cast<cudaGraph_t*>(nullptr), &last, static_cast<const cudaGraphEdgeData**>(nullptr), &count);
#else
    rc = cuda_try(cudaStreamGetCaptureInfo, s, &status, static_cast<unsigned long long*>(nullptr),
                  static_cast<cudaGraph_t*>(nullptr), &last, &count);
#endif
    std::vector<cudaGraphNode_t> exits(last, last + (rc == cudaSuccess ? count : 0));
    const cudaError_t ended = end_capture();
    if (ended != cudaSuccess || rc == cudaSuccess) {  // report the end of the capture unless only the query failed
      api = "cudaStreamEndCapture";
      rc = ended;
    }
    if (rc == cudaErrorStreamCaptureInvalidated || status == cudaStreamCaptureStatusInvalidated) {
      rc = rc == cudaSuccess ? cudaErrorStreamCaptureInvalidated : rc;
      hint = "the capture was invalidated inside the captured function: it made a call that is not allowed while "
             "capturing (cudaMalloc or another unsafe call in thread-local or global mode, a synchronization, or work "
             "on the legacy default stream); use cudaMallocAsync, or cudaStreamCaptureModeRelaxed for allocations";
    } else if (rc == cudaErrorStreamCaptureUnjoined) {
      hint = "the captured function forked work to another stream and did not join it back into the capture stream";
    }
    return exits;
  }

  /// A capture stream on the current device (one per device, created on first use).
  cudaStream_t capture_stream() {
    int device = 0;
    GRAPHDSL_CHECK(cudaGetDevice, &device);
    for (const auto& [d, s] : streams_) {
      if (d == device) return s.get();
    }
    cudaStream_t s = nullptr;
    GRAPHDSL_CHECK(cudaStreamCreateWithFlags, &s, static_cast<unsigned>(cudaStreamNonBlocking));
    streams_.emplace_back(device, NativeStream(s));
    return s;
  }

  /// The launch attributes against the device the node is created on (the current one): a cluster
  /// needs compute capability 9.0 and, above 8 blocks, a kernel that allows a non-portable size; a
  /// cooperative grid must fit on the device at once; an L2 window is at most the device's largest.
  /// @throws UsageError naming the node; CudaError when a query fails.
  void check_attributes_on_device(const GraphImpl& g, std::uint32_t i, const KernelData& k, const Launch& l) const {
    int device = 0;
    GRAPHDSL_CHECK(cudaGetDevice, &device);
    auto attribute = [device](cudaDeviceAttr a) {
      int v = 0;
      GRAPHDSL_CHECK(cudaDeviceGetAttribute, &v, a, device);
      return v;
    };
    auto refuse = [&](const std::string& rule) { throw UsageError(fmt::format("{}: {}", info(g, i).describe(), rule)); };
    const unsigned long long cluster_blocks = 1ull * l.cluster.x * l.cluster.y * l.cluster.z;
    if (cluster_blocks != 0) {
      const int major = attribute(cudaDevAttrComputeCapabilityMajor);
      if (major < 9) {
        refuse(fmt::format("thread-block clusters need compute capability 9.0 or newer; device {} has {}.{}", device,
                           major, attribute(cudaDevAttrComputeCapabilityMinor)));
      }
      if (cluster_blocks > 8) {
        cudaFuncAttributes fa{};
        GRAPHDSL_CHECK(cudaFuncGetAttributes, &fa, k.func);
        if (fa.nonPortableClusterSizeAllowed == 0) {
          refuse(fmt::format("a cluster of {} blocks is above CUDA's portable size of 8; allow it with "
                             "cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)",
                             cluster_blocks));
        }
      }
    }
    if (l.cooperative) {
      if (attribute(cudaDevAttrCooperativeLaunch) == 0) {
        refuse(fmt::format("device {} does not support cooperative launches", device));
      }
      int per_sm = 0;
      GRAPHDSL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, &per_sm, k.func,
                     static_cast<int>(l.block.x * l.block.y * l.block.z), static_cast<std::size_t>(l.shared_bytes));
      const int sms = attribute(cudaDevAttrMultiProcessorCount);
      const unsigned long long blocks = 1ull * l.grid.x * l.grid.y * l.grid.z;
      const unsigned long long most = 1ull * static_cast<unsigned>(per_sm) * static_cast<unsigned>(sms);
      if (blocks > most) {
        refuse(fmt::format("a cooperative launch of {} blocks, but device {} runs at most {} blocks of this kernel at "
                           "once ({} per multiprocessor x {} multiprocessors, for {} threads and {} B of dynamic "
                           "shared memory per block); every block of a cooperative grid must be resident",
                           blocks, device, most, per_sm, sms, l.block.x * l.block.y * l.block.z, l.shared_bytes));
      }
    }
    if (l.l2.bytes != 0) {
      const auto most = static_cast<std::size_t>(attribute(cudaDevAttrMaxAccessPolicyWindowSize));
      if (l.l2.bytes > most) {
        refuse(fmt::format("its L2 window of {} bytes is larger than device {}'s largest, {} bytes "
                           "(cudaDevAttrMaxAccessPolicyWindowSize)",
                           l.l2.bytes, device, most));
      }
    }
  }

  /// Adds the edge from -> to with its kind's edge data (programmatic: the kernel's programmatic
  /// port; launch completion: its launch-completion port). @throws CudaError naming the node.
  void add_kinded_edge(const GraphImpl& g, std::uint32_t from, std::uint32_t to, cudaGraph_t graph,
                       cudaGraphNode_t native_from, cudaGraphNode_t native_to) const {
    cudaGraphEdgeData e{};
    e.from_port = edge_kind(g, from, to) == EdgeKind::programmatic ? cudaGraphKernelNodePortProgrammatic
                                                                   : cudaGraphKernelNodePortLaunchCompletion;
    e.type = cudaGraphDependencyTypeProgrammatic;
#if CUDART_VERSION >= 13000
    const cudaError_t rc = cuda_try(cudaGraphAddDependencies, graph, &native_from, &native_to,
                                    static_cast<const cudaGraphEdgeData*>(&e), std::size_t{1});
    const char* api = "cudaGraphAddDependencies";
#else
    const cudaError_t rc = cuda_try(cudaGraphAddDependencies_v2, graph, &native_from, &native_to,
                                    static_cast<const cudaGraphEdgeData*>(&e), std::size_t{1});
    const char* api = "cudaGraphAddDependencies_v2";
#endif
    if (rc != cudaSuccess) {
      throw_cuda(rc, api, info(g, to),
                 fmt::format("the {} edge from {}", to_string(edge_kind(g, from, to)), g.info(from).describe()));
    }
  }

  /// Sets the node's priority and launch attributes (those not at their defaults).
  static cudaError_t set_attributes(cudaGraphNode_t node, int priority, const KernelAttributes* l, const char*& api) {
    cudaError_t rc = cudaSuccess;
    auto set = [&](cudaLaunchAttributeID id, const cudaLaunchAttributeValue& v) {
      if (rc != cudaSuccess) return;
      api = "cudaGraphKernelNodeSetAttribute";
      rc = cuda_try(cudaGraphKernelNodeSetAttribute, node, id, &v);
    };
    cudaLaunchAttributeValue v{};
    if (priority != 0) {
      v.priority = priority;
      set(cudaLaunchAttributePriority, v);
    }
    if (l == nullptr) return rc;
    if (l->cluster.x != 0) {
      v = cudaLaunchAttributeValue{};
      v.clusterDim.x = l->cluster.x;
      v.clusterDim.y = l->cluster.y;
      v.clusterDim.z = l->cluster.z;
      set(cudaLaunchAttributeClusterDimension, v);
    }
    if (l->cooperative) {
      v = cudaLaunchAttributeValue{};
      v.cooperative = 1;
      set(cudaLaunchAttributeCooperative, v);
    }
    if (l->sync_domain != MemSyncDomain::default_domain) {
      v = cudaLaunchAttributeValue{};
      v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
      set(cudaLaunchAttributeMemSyncDomain, v);
    }
    if (l->l2.bytes != 0) {
      v = cudaLaunchAttributeValue{};
      v.accessPolicyWindow.base_ptr = const_cast<void*>(l->l2.base);
      v.accessPolicyWindow.num_bytes = l->l2.bytes;
      v.accessPolicyWindow.hitRatio = l->l2.hit_ratio;
      v.accessPolicyWindow.hitProp = static_cast<cudaAccessProperty>(l->l2.hit);
      v.accessPolicyWindow.missProp = static_cast<cudaAccessProperty>(l->l2.miss);
      set(cudaLaunchAttributeAccessPolicyWindow, v);
    }
    return rc;
  }

  NodeInfo info(const GraphImpl& g, std::uint32_t i) const {
    NodeInfo n = g.info(i);
    n.context = where_;
    return n;
  }

  KeepAlive& keep_;  ///< what the root graph keeps alive (retained once the plan is built)
  std::shared_ptr<HostErrorSink> sink_;
  HostSlots* slots_;
  std::string where_;  ///< context of the plan being built, for messages about nested nodes
  HandleScopes scopes_;
  DeviceScope* devices_;  ///< switches devices for placed nodes; null for single-device plans
  int body_depth_ = 0;    ///< how many conditional bodies enclose the plan being built
  std::vector<std::pair<int, NativeStream>> streams_;  ///< capture streams by device, created on first use
  std::vector<cudaGraphConditionalHandle> root_handles_;  ///< of the top-level plan's conditions
  std::vector<void*> dptrs_;  ///< addresses of the top-level plan's allocations, by node
  std::vector<unsigned char> block_;
  std::vector<void*> argv_;
};

}  // namespace

Materialized materialize(const GraphImpl& g, const std::vector<std::uint32_t>& order,
                         const std::shared_ptr<HostErrorSink>& sink) {
  const bool placed = uses_devices(g);
  if (placed) check_devices(g);
  DeviceScope devices(-1);  // restores the current device on the way out
  Materialized m;
  m.graph = create_native_graph();
  m.host_slots.assign(g.hosts.size(), nullptr);
  auto keep = std::make_shared<KeepAlive>();
  Builder b(*keep, sink, &m.host_slots, placed ? &devices : nullptr);
  b.build(g, m.graph.get(), order, m.nodes);
  b.take_results(m);
  // One user object for the whole graph. Also for an empty box when a setter may give it something
  // to keep (an event, a child plan's closures): executables cannot retain user objects later.
  const bool may_keep = std::any_of(g.nodes.begin(), g.nodes.end(), [](const NodeData& n) {
    return n.kind == NodeKind::event_record || n.kind == NodeKind::event_wait || n.kind == NodeKind::child ||
           n.kind == NodeKind::conditional || n.kind == NodeKind::host;
  });
  if (may_keep || !keep->items.empty()) {
    m.keep = keep;
    retain_on_graph(m.graph.get(), std::move(keep), std::nullopt);
  }
  return m;  // on an exception, m.graph (half-built) is destroyed on the way out
}

}  // namespace graphdsl::detail
