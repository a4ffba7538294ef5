// graphdsl/launch.hpp — the launch shape of a kernel node.
#pragma once

#include <cstddef>
#include <utility>

#include <vector_types.h>

namespace graphdsl {

/// The memory-synchronization domain of a kernel node (cudaLaunchAttributeMemSyncDomain; sm_90+):
/// fences of kernels in the remote domain do not wait for memory traffic of the default domain
/// (e.g. a communication kernel next to compute kernels).
enum class MemSyncDomain : unsigned char {
  default_domain = 0,  ///< cudaLaunchMemSyncDomainDefault
  remote = 1           ///< cudaLaunchMemSyncDomainRemote
};

/// How accesses in (hit) or outside (miss) an L2 access-policy window are cached (cudaAccessProperty).
enum class L2Access : unsigned char {
  normal = 0,     ///< cudaAccessPropertyNormal
  streaming = 1,  ///< cudaAccessPropertyStreaming: less likely to persist in L2
  persisting = 2  ///< cudaAccessPropertyPersisting: more likely to persist in L2
};

/// An L2 access-policy window (cudaLaunchAttributeAccessPolicyWindow): `hit_ratio` of the accesses
/// to [base, base + bytes) get `hit`, the others `miss`. `bytes` 0: no window.
struct L2Window {
  const void* base = nullptr;           ///< start of the window
  std::size_t bytes = 0;                ///< its size; at most the device's cudaDevAttrMaxAccessPolicyWindowSize
  float hit_ratio = 1.0f;               ///< in [0, 1]
  L2Access hit = L2Access::persisting;  ///< how the hit_ratio share of accesses in the window is cached
  L2Access miss = L2Access::streaming;  ///< how the other accesses in the window are cached
};

/// Grid, block, dynamic shared memory, (optional) priority and launch attributes of a kernel node.
///
/// Every grid and block dimension must be at least 1 and within CUDA's limits (grid x <= 2^31 - 1,
/// grid y and z <= 65535, block x and y <= 1024, block z <= 64), and a block may hold at most 1024
/// threads; Graph::validate() checks them and names the node. `priority` is applied as the node's
/// cudaLaunchAttributePriority when it is not 0; it takes effect when the executable is compiled
/// with InstantiateOptions::use_node_priority().
///
/// Launch attributes (docs/hopper.md), each set on the node when it differs from the default:
///   cluster      blocks per thread-block cluster (cudaLaunchAttributeClusterDimension, sm_90+); each
///                dimension divides the grid's; at most 8 blocks (CUDA's portable size), or 16 when
///                the kernel allows a non-portable size (cudaFuncAttributeNonPortableClusterSizeAllowed)
///   cooperative  a cooperative launch (cudaLaunchAttributeCooperative): the kernel may grid.sync();
///                the grid must fit on the device at once (checked from occupancy when compiled)
///   sync_domain  the memory-synchronization domain (cudaLaunchAttributeMemSyncDomain)
///   l2           an L2 access-policy window (cudaLaunchAttributeAccessPolicyWindow)
///   device_updatable  the node can be changed from device code (cudaLaunchAttributeDeviceUpdatableKernelNode,
///                CUDA 12.4+): Executable::device_node() gives its typed handle (graphdsl/device_node.hpp);
///                top-level plans only, and the executable cannot be updated whole-graph (docs/hopper.md)
///
///   auto l = gd::cover(n, 128).with_cluster(2).with_cooperative();
struct Launch {
  dim3 grid{1, 1, 1};                                         ///< blocks per grid (x, y, z)
  dim3 block{1, 1, 1};                                        ///< threads per block (x, y, z); at most 1024 in total
  unsigned int shared_bytes = 0;                              ///< dynamic shared memory per block, in bytes
  int priority = 0;                                           ///< the node's launch priority; 0 sets none
  dim3 cluster{0, 0, 0};                                      ///< blocks per cluster (x, y, z); (0,0,0): no cluster
  bool cooperative = false;                                   ///< a cooperative launch
  MemSyncDomain sync_domain = MemSyncDomain::default_domain;  ///< the memory-synchronization domain
  L2Window l2{};                                              ///< an L2 access-policy window; bytes 0: none
  bool device_updatable = false;                              ///< a device-updatable kernel node

  /// One block of one thread, no dynamic shared memory, priority 0, no attributes.
  Launch() = default;
  /// `grid_dims` blocks of `block_dims` threads. dim3 converts from an integer, so a 1-D launch is
  /// `Launch{blocks, threads}`. Nothing is checked here (see Graph::validate()).
  Launch(dim3 grid_dims, dim3 block_dims, unsigned int dynamic_shared_bytes = 0, int node_priority = 0)
      : grid(grid_dims), block(block_dims), shared_bytes(dynamic_shared_bytes), priority(node_priority) {}

  /// Clusters of `dims` blocks (an integer n: (n,1,1)).
  Launch& with_cluster(dim3 dims) & {
    cluster = dims;
    return *this;
  }
  /// The same on a temporary (`gd::cover(n).with_cluster(2)`).
  Launch&& with_cluster(dim3 dims) && { return std::move(with_cluster(dims)); }
  /// A cooperative launch (or not).
  Launch& with_cooperative(bool on = true) & {
    cooperative = on;
    return *this;
  }
  /// The same on a temporary.
  Launch&& with_cooperative(bool on = true) && { return std::move(with_cooperative(on)); }
  /// The memory-synchronization domain.
  Launch& with_sync_domain(MemSyncDomain domain) & {
    sync_domain = domain;
    return *this;
  }
  /// The same on a temporary.
  Launch&& with_sync_domain(MemSyncDomain domain) && { return std::move(with_sync_domain(domain)); }
  /// An L2 access-policy window over [base, base + bytes).
  Launch& with_l2_window(const void* base, std::size_t bytes, float hit_ratio = 1.0f,
                         L2Access hit = L2Access::persisting, L2Access miss = L2Access::streaming) & {
    l2 = L2Window{base, bytes, hit_ratio, hit, miss};
    return *this;
  }
  /// The same on a temporary.
  Launch&& with_l2_window(const void* base, std::size_t bytes, float hit_ratio = 1.0f,
                          L2Access hit = L2Access::persisting, L2Access miss = L2Access::streaming) && {
    return std::move(with_l2_window(base, bytes, hit_ratio, hit, miss));
  }
  /// A device-updatable node (or not): device code can change its arguments, grid and enabled
  /// state through the handle Executable::device_node() returns.
  Launch& with_device_updatable(bool on = true) & {
    device_updatable = on;
    return *this;
  }
  /// The same on a temporary.
  Launch&& with_device_updatable(bool on = true) && { return std::move(with_device_updatable(on)); }
  /// True when a cluster, a cooperative launch, a sync domain, an L2 window or a device-updatable
  /// node is asked for.
  bool has_attributes() const noexcept {
    return cluster.x != 0 || cluster.y != 0 || cluster.z != 0 || cooperative ||
           sync_domain != MemSyncDomain::default_domain || l2.bytes != 0 || device_updatable;
  }
};

/// "default", "remote".
const char* to_string(MemSyncDomain d) noexcept;
/// "normal", "streaming", "persisting".
const char* to_string(L2Access a) noexcept;

namespace detail {
/// Throws the UsageError of cover() (defined in src/plan/graph.cpp).
[[noreturn]] void cover_error(unsigned long long n, unsigned int block_size);
}  // namespace detail

/// A 1-D launch that covers `n` elements with blocks of `block_size` threads (one block for n = 0).
/// @throws UsageError for a block size of 0 or above 1024, or when the grid would need more than
///         2^31 - 1 blocks (CUDA's limit in x).
inline Launch cover(unsigned long long n, unsigned int block_size = 256) {
  if (block_size == 0 || block_size > 1024) detail::cover_error(n, block_size);
  const unsigned long long blocks = n / block_size + (n % block_size != 0 ? 1 : 0);  // no n + block_size - 1 to wrap
  if (blocks > 2147483647ull) detail::cover_error(n, block_size);
  return Launch{dim3(static_cast<unsigned int>(blocks == 0 ? 1 : blocks)), dim3(block_size)};
}

}  // namespace graphdsl
