// src/native/adopt.cpp — graphdsl::adopt: a plan from a CUDA graph built elsewhere (graphdsl/adopt.hpp).
//
// One pass over the native nodes in cudaGraphGetNodes order, each read with its kind's getter and
// added with the matching add_* call; then the edges, grouped by their successor. A kernel is read
// through the driver's cuGraphKernelNodeGetParams (the runtime's getter refuses kernels it did not
// launch itself, such as a library's): what a function needs once (its name, its parameter sizes and
// the handle the runtime API takes for it) is looked up at its first node and kept for the others.
#include "graphdsl/adopt.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "graphdsl/detail/config.hpp"
#include "graphdsl/event.hpp"
#include "native/cuda_call.hpp"
#include "native/driver_params.hpp"
#include "plan/adopted_layouts.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl {
namespace detail {

namespace {

/// The CUDA node type's name, for messages.
const char* native_type_name(cudaGraphNodeType t) noexcept {
  static constexpr std::pair<cudaGraphNodeType, const char*> names[] = {
      {cudaGraphNodeTypeKernel, "kernel"},
      {cudaGraphNodeTypeMemcpy, "memcpy"},
      {cudaGraphNodeTypeMemset, "memset"},
      {cudaGraphNodeTypeHost, "host"},
      {cudaGraphNodeTypeGraph, "child graph"},
      {cudaGraphNodeTypeEmpty, "empty"},
      {cudaGraphNodeTypeWaitEvent, "event wait"},
      {cudaGraphNodeTypeEventRecord, "event record"},
      {cudaGraphNodeTypeExtSemaphoreSignal, "external semaphore signal"},
      {cudaGraphNodeTypeExtSemaphoreWait, "external semaphore wait"},
      {cudaGraphNodeTypeMemAlloc, "memory allocation"},
      {cudaGraphNodeTypeMemFree, "memory free"},
      {cudaGraphNodeTypeConditional, "conditional"},
  };
  for (const auto& [type, name] : names) {
    if (type == t) return name;
  }
  return "unknown";
}

/// A kernel function's name for its nodes: demangled, without its parameter list or return type
/// ("void ns::axpy<float>(float*, int)" gives "ns::axpy<float>").
std::string short_name(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string full = status == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  int depth = 0;
  std::size_t start = 0;
  static constexpr char anonymous[] = "(anonymous namespace)";
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full.compare(i, sizeof anonymous - 1, anonymous) == 0) {
      i += sizeof anonymous - 2;  // a namespace, not a parameter list
      continue;
    }
    const char c = full[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == ' ') start = i + 1;  // a return type before the name (templates)
    if (depth == 0 && c == '(') return full.substr(start, i - start);
  }
  return full.substr(start);
}

/// An adopted host node's callable: the native node's function and data, the same closure for
/// diff() as another of the same two (each adoption makes its own).
struct NativeHostFn final : HostClosure {
  NativeHostFn(cudaHostFn_t f, void* d) noexcept : fn(f), data(d) {}
  void call() override { fn(data); }
  bool same_as(const HostClosure& other) const noexcept override {
    const auto* o = dynamic_cast<const NativeHostFn*>(&other);
    return o != nullptr && o->fn == fn && o->data == data;
  }
  cudaHostFn_t fn;
  void* data;
};

}  // namespace

/// Builds one adopted plan (Graph's friend: it adds kernels with their raw argument blocks).
struct Adopter {
  using GetKernel = CUresult (*)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS*);
  using GetName = CUresult (*)(const char**, CUfunction);
  using GetParamInfo = CUresult (*)(CUfunction, std::size_t, std::size_t*, std::size_t*);

  /// What a kernel function needs once for all its nodes.
  struct Function {
    const void* func = nullptr;  ///< the runtime's handle: the host stub, or the cudaKernel_t
    const ArgLayout* layout = nullptr;
    std::string name;
    std::uint32_t uses = 0;  ///< its nodes so far (the second is named "<name>.2")
  };

  Graph& g;
  std::vector<cudaGraphNode_t> natives;
  std::vector<std::pair<cudaGraphNode_t, std::uint32_t>> sorted;  ///< (native node, position), by node

  /// The position of native node `n` (of this graph) in cudaGraphGetNodes' order.
  std::uint32_t index_of(cudaGraphNode_t n) const {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(n, std::uint32_t{0}));
    if (it == sorted.end() || it->first != n) throw UsageError("adopt: an edge names a node the graph does not list");
    return it->second;
  }
  std::unordered_map<CUfunction, Function> functions;
  std::unordered_map<std::string, std::uint32_t> uses;  ///< nodes of the other kinds named so far, by name

  [[noreturn]] void refuse(std::uint32_t i, cudaGraphNodeType t, const std::string& why) const {
    throw UsageError(fmt::format("adopt: native node #{} of graph '{}' (a {} node) cannot be adopted: {}", i, g.name(),
                                 native_type_name(t), why));
  }

  void name(std::uint32_t i, const std::string& base, std::uint32_t& count) {
    ++count;
    g.impl().set_node_name(i, count == 1 ? base : base + "." + std::to_string(count));
  }
  void name(std::uint32_t i, const std::string& base) { name(i, base, uses[base]); }

  static void* entry(const char* symbol, unsigned version) {
    void* fn = driver_entry(symbol, version);
    if (fn == nullptr) {
      throw UsageError(fmt::format("adopt: the CUDA driver has no {} (adopting kernels needs a 12.4 driver or newer)",
                                   symbol));
    }
    return fn;
  }

  Function& function_of(std::uint32_t i, cudaGraphNode_t node, const CUDA_KERNEL_NODE_PARAMS& d) {
    auto it = functions.find(d.func);
    if (it != functions.end()) return it->second;
    static const auto get_name = reinterpret_cast<GetName>(entry("cuFuncGetName", 12040));
    static const auto get_info = reinterpret_cast<GetParamInfo>(entry("cuFuncGetParamInfo", 12040));
    Function f;
    cudaKernelNodeParams p{};
    // The runtime knows the host stub of the kernels it launched; a library's kernels are named by
    // their cudaKernel_t, which the runtime's graph calls take in place of a stub.
    f.func = cuda_try(cudaGraphKernelNodeGetParams, node, &p) == cudaSuccess ? p.func : d.kern;
    if (f.func == nullptr)
      refuse(i, cudaGraphNodeTypeKernel,
             "its function is a CUfunction of a module loaded with cuModuleLoad, which the runtime API cannot launch");
    const char* mangled = nullptr;
    if (driver_try(get_name, &mangled, d.func) != cudaSuccess || mangled == nullptr) mangled = "kernel";
    f.name = short_name(mangled);
    std::vector<std::uint32_t> sizes, offsets;
    for (std::size_t a = 0;; ++a) {
      std::size_t offset = 0, size = 0;
      if (driver_try(get_info, d.func, a, &offset, &size) != cudaSuccess) break;
      sizes.push_back(static_cast<std::uint32_t>(size));
      offsets.push_back(static_cast<std::uint32_t>(offset));
    }
    f.layout = &adopted_layout(sizes.data(), offsets.data(), static_cast<std::uint32_t>(sizes.size()));
    return functions.emplace(d.func, std::move(f)).first->second;
  }

  /// The node's launch: its shape, and the launch attributes graphdsl keeps (read through the driver,
  /// whose getter costs half the runtime's: these four calls are a third of an adopt's time).
  static Launch launch_of(cudaGraphNode_t node, const CUDA_KERNEL_NODE_PARAMS& d) {
    using GetAttribute = CUresult (*)(CUgraphNode, CUkernelNodeAttrID, CUkernelNodeAttrValue*);
    static const auto get = reinterpret_cast<GetAttribute>(entry("cuGraphKernelNodeGetAttribute", 12000));
    const auto n = reinterpret_cast<CUgraphNode>(node);
    Launch l{dim3(d.gridDimX, d.gridDimY, d.gridDimZ), dim3(d.blockDimX, d.blockDimY, d.blockDimZ), d.sharedMemBytes};
    CUkernelNodeAttrValue v{};
    if (driver_try(get, n, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v) == cudaSuccess && v.clusterDim.x != 0) {
      l.cluster = dim3(v.clusterDim.x, v.clusterDim.y, v.clusterDim.z);
    }
    if (driver_try(get, n, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v) == cudaSuccess) l.cooperative = v.cooperative != 0;
    if (driver_try(get, n, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v) == cudaSuccess) l.priority = v.priority;
    if (driver_try(get, n, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &v) == cudaSuccess) {
      l.sync_domain = static_cast<MemSyncDomain>(v.memSyncDomain);
    }
    return l;
  }

  void kernel(std::uint32_t i, cudaGraphNode_t node) {
    static const auto get = reinterpret_cast<GetKernel>(entry("cuGraphKernelNodeGetParams", 12000));
    CUDA_KERNEL_NODE_PARAMS d{};
    const cudaError_t rc = driver_try(get, reinterpret_cast<CUgraphNode>(node), &d);
    if (rc != cudaSuccess) throw_cuda(rc, "cuGraphKernelNodeGetParams");
    if (d.extra != nullptr || (d.kernelParams == nullptr && d.func != nullptr)) {
      refuse(i, cudaGraphNodeTypeKernel, "its arguments were given as one buffer (the extra field), not one by one");
    }
    Function& f = function_of(i, node, d);
    const Launch l = launch_of(node, d);
    std::size_t offset = 0;
    unsigned char* block = g.add_argument_block(f.layout->total, offset);
    for (std::uint32_t a = 0; a < f.layout->count; ++a) {
      std::memcpy(block + f.layout->offsets[a], d.kernelParams[a], f.layout->sizes[a]);
    }
    (void)g.add_kernel_node(f.func, l, f.layout, offset);
    name(i, f.name, f.uses);
  }

  void memset(std::uint32_t i, cudaGraphNode_t node) {
    cudaMemsetParams m{};
    GRAPHDSL_CHECK(cudaGraphMemsetNodeGetParams, node, &m);
    (void)g.add_memset_raw(m.dst, m.value, m.elementSize, m.width, m.height, m.height > 1 ? m.pitch : 0);
    name(i, "memset");
  }

  void memcpy(std::uint32_t i, cudaGraphNode_t node) {
    cudaMemcpy3DParms m{};
    GRAPHDSL_CHECK(cudaGraphMemcpyNodeGetParams, node, &m);
    const bool linear = m.srcArray == nullptr && m.dstArray == nullptr && m.extent.height <= 1 && m.extent.depth <= 1 &&
                        m.srcPos.x == 0 && m.srcPos.y == 0 && m.srcPos.z == 0 && m.dstPos.x == 0 && m.dstPos.y == 0 &&
                        m.dstPos.z == 0;
    if (linear) {
      (void)g.add_memcpy_bytes(m.dstPtr.ptr, m.srcPtr.ptr, m.extent.width, m.kind);
    } else {
      (void)g.add_memcpy_3d(m);
    }
    name(i, "memcpy");
  }

  void host(std::uint32_t i, cudaGraphNode_t node) {
    cudaHostNodeParams h{};
    GRAPHDSL_CHECK(cudaGraphHostNodeGetParams, node, &h);
    if (h.fn == nullptr) refuse(i, cudaGraphNodeTypeHost, "its function is null");
    (void)g.add_host_node(new NativeHostFn(h.fn, h.userData));
    name(i, "host");
  }

  void child(std::uint32_t i, cudaGraphNode_t node) {
    cudaGraph_t sub = nullptr;
    GRAPHDSL_CHECK(cudaGraphChildGraphNodeGetGraph, node, &sub);
    (void)g.add_child(adopt(sub, "child"));
    name(i, "child");
  }

  void event(std::uint32_t i, cudaGraphNode_t node, bool record) {
    cudaEvent_t e = nullptr;
    if (record) {
      GRAPHDSL_CHECK(cudaGraphEventRecordNodeGetEvent, node, &e);
      (void)g.add_event_record(Event::borrow(e));
    } else {
      GRAPHDSL_CHECK(cudaGraphEventWaitNodeGetEvent, node, &e);
      (void)g.add_event_wait(Event::borrow(e));
    }
    name(i, record ? "event_record" : "event_wait");
  }

  void node(std::uint32_t i) {
    cudaGraphNode_t n = natives[i];
    using GetType = CUresult (*)(CUgraphNode, CUgraphNodeType*);
    static const auto get_type = reinterpret_cast<GetType>(entry("cuGraphNodeGetType", 12000));
    CUgraphNodeType type{};
    if (const cudaError_t rc = driver_try(get_type, reinterpret_cast<CUgraphNode>(n), &type); rc != cudaSuccess) {
      throw_cuda(rc, "cuGraphNodeGetType");
    }
    const auto t = static_cast<cudaGraphNodeType>(type);  // the runtime's values are the driver's
    if (t == cudaGraphNodeTypeKernel) return kernel(i, n);
    if (t == cudaGraphNodeTypeMemset) return memset(i, n);
    if (t == cudaGraphNodeTypeMemcpy) return memcpy(i, n);
    if (t == cudaGraphNodeTypeHost) return host(i, n);
    if (t == cudaGraphNodeTypeGraph) return child(i, n);
    if (t == cudaGraphNodeTypeEventRecord || t == cudaGraphNodeTypeWaitEvent) {
      return event(i, n, t == cudaGraphNodeTypeEventRecord);
    }
    if (t == cudaGraphNodeTypeEmpty) {
      (void)g.add_empty();
      return name(i, "empty");
    }
    if (t == cudaGraphNodeTypeMemAlloc || t == cudaGraphNodeTypeMemFree) {
      refuse(i, t,
             "the driver fixed a graph allocation's address when the node was made, and the captured work "
             "holds that address; allocate the memory outside the capture, or build the allocation with "
             "Graph::add_mem_alloc");
    }
    if (t == cudaGraphNodeTypeConditional) {
      refuse(i, t,
             "its condition handle belongs to the captured graph and is held by the captured kernels; build "
             "conditional nodes with Graph::add_if / add_while / add_switch");
    }
    refuse(i, t, "graphdsl has no copy of this node type");
  }

  void edges(cudaGraph_t native) {
    std::size_t count = 0;
#if GRAPHDSL_CUDA_13
    GRAPHDSL_CHECK(cudaGraphGetEdges, native, nullptr, nullptr, nullptr, &count);
    std::vector<cudaGraphNode_t> from(count), to(count);
    std::vector<cudaGraphEdgeData> data(count);
    GRAPHDSL_CHECK(cudaGraphGetEdges, native, from.data(), to.data(), data.data(), &count);
#else
    GRAPHDSL_CHECK(cudaGraphGetEdges_v2, native, nullptr, nullptr, nullptr, &count);
    std::vector<cudaGraphNode_t> from(count), to(count);
    std::vector<cudaGraphEdgeData> data(count);
    GRAPHDSL_CHECK(cudaGraphGetEdges_v2, native, from.data(), to.data(), data.data(), &count);
#endif
    struct Edge {
      std::uint32_t to, from;
      EdgeKind kind;
    };
    std::vector<Edge> list(count);
    for (std::size_t e = 0; e < count; ++e) {
      const std::uint32_t t = index_of(to[e]);
      const cudaGraphEdgeData& d = data[e];
      EdgeKind kind = EdgeKind::full;
      if (d.from_port == cudaGraphKernelNodePortProgrammatic) kind = EdgeKind::programmatic;
      if (d.from_port == cudaGraphKernelNodePortLaunchCompletion) kind = EdgeKind::launch_completion;
      if (d.to_port != 0 || (kind == EdgeKind::full && d.from_port != 0)) {
        throw UsageError(
            fmt::format("adopt: the edge #{} -> #{} of graph '{}' has ports {} -> {}, which graphdsl "
                        "has no edge kind for",
                        index_of(from[e]), t, g.name(), d.from_port, d.to_port));
      }
      list[e] = Edge{t, index_of(from[e]), kind};
    }
    std::sort(list.begin(), list.end(), [](const Edge& a, const Edge& b) { return a.to < b.to; });
    std::vector<Node> preds;
    for (std::size_t e = 0; e < list.size();) {
      const Node succ = g.node(list[e].to);
      preds.clear();
      for (; e < list.size() && list[e].to == succ.index(); ++e) {
        const Node pred = g.node(list[e].from);
        if (list[e].kind == EdgeKind::full) {
          preds.push_back(pred);
        } else {
          add_edge_of_kind(pred, succ, list[e].kind);
        }
      }
      if (!preds.empty()) add_edges(preds.data(), preds.size(), succ);
    }
  }

  void run(cudaGraph_t native) {
    std::size_t count = 0;
    GRAPHDSL_CHECK(cudaGraphGetNodes, native, nullptr, &count);
    natives.resize(count);
    GRAPHDSL_CHECK(cudaGraphGetNodes, native, natives.data(), &count);
    natives.resize(count);
    g.reserve(count);
    sorted.resize(count);
    for (std::uint32_t i = 0; i < count; ++i) sorted[i] = {natives[i], i};
    std::sort(sorted.begin(), sorted.end());
    for (std::uint32_t i = 0; i < count; ++i) node(i);
    edges(native);
  }
};

}  // namespace detail

Graph adopt(cudaGraph_t native, std::string name) {
  if (native == nullptr) throw UsageError("adopt: the cudaGraph_t is null");
  Graph g(std::move(name));
  detail::Adopter{g, {}, {}, {}, {}}.run(native);
  return g;
}

Graph adopt_capture(cudaStream_t stream, detail::FunctionRef<void(cudaStream_t)> work, cudaStreamCaptureMode mode,
                    std::string name) {
  GRAPHDSL_CHECK(cudaStreamBeginCapture, stream, mode);
  cudaGraph_t captured = nullptr;
  try {
    work(stream);
  } catch (...) {
    if (detail::cuda_try(cudaStreamEndCapture, stream, &captured) == cudaSuccess && captured != nullptr) {
      (void)detail::cuda_try(cudaGraphDestroy, captured);
    }
    throw;
  }
  GRAPHDSL_CHECK(cudaStreamEndCapture, stream, &captured);
  struct Destroy {
    cudaGraph_t graph;
    ~Destroy() { (void)detail::cuda_try(cudaGraphDestroy, graph); }
  } destroy{captured};
  return adopt(captured, std::move(name));
}

}  // namespace graphdsl
