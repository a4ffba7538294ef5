// src/kinds/kernel_build.cpp — the build concern of the kernel kind (native/kind_build.hpp), and the
// native pieces its patch shares (kinds/kernel_native.hpp): its launch attributes on the device,
// the node add through the driver, and its parameters with Condition and GraphBuffer arguments
// resolved.
#include "graphdsl/detail/config.hpp"
#include "kinds/kernel_native.hpp"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kinds/kinds.hpp"
#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/driver_params.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl::detail {

#if GRAPHDSL_HAS_DRIVER_ENTRY  // the driver's entry points: the functions are looked up for them only
namespace {

/// The calling thread's last kernels looked up, with the context each was looked up in.
struct ContextFunctions {
  struct Entry {
    unsigned long long context = 0;  ///< the context's unique id (cuCtxGetId); 0: empty
    const void* func = nullptr;
    cudaFunction_t function = nullptr;
  };
  std::array<Entry, 8> entries{};
  std::size_t next = 0;  ///< the entry the next lookup replaces
};

ContextFunctions& context_functions() noexcept {
  thread_local ContextFunctions cache;
  return cache;
}

/// The CUfunction of kernel `func` in the current context: from the calling thread's last 8
/// lookups, else cudaGetFuncBySymbol. Entries are keyed by the context's unique id, not by its
/// handle or device: a context destroyed and created again (cudaDeviceReset) may get the old
/// handle back, never the old id, so a function of a destroyed context is never handed to the
/// driver. `memo` (null: none) holds the current context and its id once asked, for the next
/// kernel node of the same materialize. Null without a current context or the entry points, or
/// when the lookup fails.
cudaFunction_t function_in_context(const void* func, ContextMemo* memo) noexcept {
  using GetId = CUresult (*)(CUcontext, unsigned long long*);
  static const auto get_id = reinterpret_cast<GetId>(driver_entry("cuCtxGetId", 12000));
  unsigned long long id = memo != nullptr ? memo->id : 0;
  if (id == 0) {
    const CUcontext ctx = current_context();
    if (ctx == nullptr || get_id == nullptr || get_id(ctx, &id) != CUDA_SUCCESS || id == 0) return nullptr;
    if (memo != nullptr) *memo = ContextMemo{ctx, id};
  }
  ContextFunctions& cache = context_functions();
  for (const ContextFunctions::Entry& e : cache.entries) {
    if (e.func == func && e.context == id) return e.function;
  }
  cudaFunction_t function = nullptr;
  if (cuda_try(cudaGetFuncBySymbol, &function, func) != cudaSuccess) return nullptr;
  cache.entries[cache.next++ % cache.entries.size()] = ContextFunctions::Entry{id, func, function};
  return function;
}

/// Forgets `func`'s entries (the driver refused a node with its function).
void forget_function(const void* func) noexcept {
  for (ContextFunctions::Entry& e : context_functions().entries) {
    if (e.func == func) e = ContextFunctions::Entry{};
  }
}

}  // namespace
#endif

cudaError_t add_kernel_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t count,
                            const cudaKernelNodeParams& p, ContextMemo* memo) noexcept {
#if GRAPHDSL_HAS_DRIVER_ENTRY  // driver_entry needs cudaGetDriverEntryPointByVersion
  using Add = CUresult (*)(CUgraphNode*, CUgraph, const CUgraphNode*, std::size_t, const CUDA_KERNEL_NODE_PARAMS*);
  static const auto driver = reinterpret_cast<Add>(driver_entry("cuGraphAddKernelNode", 12000));
  if (driver != nullptr && p.extra == nullptr) {
    if (const cudaFunction_t function = function_in_context(p.func, memo)) {
      const CUDA_KERNEL_NODE_PARAMS d = driver_kernel_params(p, function);
      count_cuda_call();
      if (driver(node, graph, deps, count, &d) == CUDA_SUCCESS) return cudaSuccess;
      forget_function(p.func);
      if (memo != nullptr) *memo = ContextMemo{};  // asked again for the next node
    }
  }
#else
  (void)memo;
#endif
  return cuda_try(cudaGraphAddKernelNode, node, graph, deps, count, &p);
}

void check_attributes_on_device(const GraphImpl& g, std::uint32_t i, const std::string& context, const KernelData& k,
                                const Launch& l) {
  int device = 0;
  GRAPHDSL_CHECK(cudaGetDevice, &device);
  auto attribute = [device](cudaDeviceAttr a) {
    int v = 0;
    GRAPHDSL_CHECK(cudaDeviceGetAttribute, &v, a, device);
    return v;
  };
  auto refuse = [&](const std::string& rule) {
    NodeInfo node = g.info(i);
    node.context = context;
    throw UsageError(fmt::format("{}: {}", node.describe(), rule));
  };
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
        refuse(
            fmt::format("a cluster of {} blocks is above CUDA's portable size of 8; allow it with "
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
      refuse(
          fmt::format("a cooperative launch of {} blocks, but device {} runs at most {} blocks of this kernel at "
                      "once ({} per multiprocessor x {} multiprocessors, for {} threads and {} B of dynamic "
                      "shared memory per block); every block of a cooperative grid must be resident",
                      blocks, device, most, per_sm, sms, l.block.x * l.block.y * l.block.z, l.shared_bytes));
    }
  }
  if (l.l2.bytes != 0) {
    const auto most = static_cast<std::size_t>(attribute(cudaDevAttrMaxAccessPolicyWindowSize));
    if (l.l2.bytes > most) {
      refuse(
          fmt::format("its L2 window of {} bytes is larger than device {}'s largest, {} bytes "
                      "(cudaDevAttrMaxAccessPolicyWindowSize)",
                      l.l2.bytes, device, most));
    }
  }
}

cudaError_t set_attributes(cudaGraphNode_t node, int priority, const KernelAttributes* l, const char*& api,
                           bool rewrite) {
  cudaError_t rc = cudaSuccess;
  auto set = [&](cudaLaunchAttributeID id, const cudaLaunchAttributeValue& v) {
    if (rc != cudaSuccess) return;
    api = "cudaGraphKernelNodeSetAttribute";
    rc = cuda_try(cudaGraphKernelNodeSetAttribute, node, id, &v);
  };
  cudaLaunchAttributeValue v{};
  if (priority != 0 || rewrite) {
    v.priority = priority;
    set(cudaLaunchAttributePriority, v);
  }
  if (rewrite && (l == nullptr || l->sync_domain == MemSyncDomain::default_domain)) {
    v = cudaLaunchAttributeValue{};
    v.memSyncDomain = cudaLaunchMemSyncDomainDefault;
    set(cudaLaunchAttributeMemSyncDomain, v);
  }
  if (rewrite && (l == nullptr || l->l2.bytes == 0)) {
    v = cudaLaunchAttributeValue{};  // an empty window: no L2 persistence
    set(cudaLaunchAttributeAccessPolicyWindow, v);
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
#if GRAPHDSL_HAS_DEVICE_NODES
  if (l->device_updatable) {  // compile() has checked the driver (check_device_updatable)
    v = cudaLaunchAttributeValue{};
    v.deviceUpdatableKernelNode.deviceUpdatable = 1;
    set(cudaLaunchAttributeDeviceUpdatableKernelNode, v);
  }
#endif
  return rc;
}

cudaKernelNodeParams kernel_params(const GraphImpl& g, std::uint32_t kernel, const HandleScopes& scopes,
                                   const std::vector<void*>& dptrs, std::vector<unsigned char>& block,
                                   std::vector<void*>& argv) {
  const KernelData& k = kernel_record(g, kernel);
  const KernelLinks& l = kernel_links_of(g, kernel);
  const unsigned char* base = argument_block(g, k);
  if (l.ph_count != 0) {
    block.assign(base, base + l.layout->total);
    for (std::uint32_t c = 0; c < l.ph_count; ++c) {
      const KernelPlaceholder& kc = kernel_placeholder(g, l, c);
      if (kc.kind == PlaceholderKind::condition) {
        const cudaGraphConditionalHandle h = scopes[scopes.size() - 1 - kc.ref.levels][kc.ref.index];
        std::memcpy(block.data() + kc.offset, &h, sizeof h);
      } else {
        std::uint64_t at = 0;  // the buffer's byte offset in its allocation (a slice's; 0 for a whole buffer)
        std::memcpy(&at, block.data() + kc.offset, sizeof at);
        const void* address = static_cast<char*>(dptrs[kc.ref.index]) + at;
        std::memcpy(block.data() + kc.offset, &address, sizeof address);
      }
    }
    base = block.data();
  }
  argv.resize(l.layout->count);
  return kernel_node_params(k, *l.layout, base, argv.data());
}

}  // namespace graphdsl::detail

namespace graphdsl::detail::kinds::kernel {
namespace building {
namespace {

/// What the message of a failed kernel node creation adds (empty: nothing).
std::string kernel_hint(cudaError_t rc, const KernelData& k) {
  if (rc == cudaErrorInvalidDeviceFunction || rc == cudaErrorInvalidResourceHandle) {
    return "the function is not a __global__ kernel compiled for this device (check CMAKE_CUDA_ARCHITECTURES)";
  }
  if (rc == cudaErrorInvalidValue && k.launch.shared_bytes > 48u * 1024u) {
    return fmt::format(
        "{} bytes of dynamic shared memory is above the default 48 KiB; raise the kernel's limit "
        "with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, {})",
        k.launch.shared_bytes, k.launch.shared_bytes);
  }
  return {};
}

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const NodeData& n = g.nodes[i];
  const KernelData& k = g.kernels[n.payload];
  // The argument pointers live until the driver has copied them, within this call: the thread's
  // buffers serve every kernel node it builds (a compile allocates nothing for them).
  thread_local std::vector<unsigned char> block;
  thread_local std::vector<void*> argv;
  const cudaKernelNodeParams p = kernel_params(g, n.payload, builder.scopes_, builder.dptrs_, block, argv);
  const KernelAttributes* attributes = attributes_of(g, n.payload);
  if (attributes != nullptr) check_attributes_on_device(g, i, builder.where_, k, launch_of(g, n.payload));
  AddedNode out;
  out.api = "cudaGraphAddKernelNode";
  out.rc = add_kernel_node(&out.node, graph, deps.data(), deps.size(), p, builder.context_memo());
  if (out.rc == cudaSuccess) out.rc = set_attributes(out.node, k.launch.priority, attributes, out.api);
  if (out.rc != cudaSuccess) out.hint = kernel_hint(out.rc, k);
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, /*may_keep=*/false, /*check_devices=*/nullptr,
                     /*device_launch=*/true};

}  // namespace graphdsl::detail::kinds::kernel
