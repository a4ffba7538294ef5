// graphdsl/launch.hpp — the launch shape of a kernel node.
#pragma once

#include <vector_types.h>

namespace graphdsl {

/// Grid, block, dynamic shared memory and (optional) priority of a kernel node.
///
/// Every grid and block dimension must be at least 1 and within CUDA's limits (grid x <= 2^31 - 1,
/// grid y and z <= 65535, block x and y <= 1024, block z <= 64), and a block may hold at most 1024
/// threads; Graph::validate() checks them and names the node. `priority` is applied as the node's
/// cudaLaunchAttributePriority when it is not 0; it takes effect when the executable is compiled
/// with InstantiateOptions::use_node_priority().
struct Launch {
  dim3 grid{1, 1, 1};             ///< blocks per grid (x, y, z)
  dim3 block{1, 1, 1};            ///< threads per block (x, y, z); at most 1024 in total
  unsigned int shared_bytes = 0;  ///< dynamic shared memory per block, in bytes
  int priority = 0;               ///< the node's launch priority; 0 sets none

  /// One block of one thread, no dynamic shared memory, priority 0.
  Launch() = default;
  /// `grid_dims` blocks of `block_dims` threads. dim3 converts from an integer, so a 1-D launch is
  /// `Launch{blocks, threads}`. Nothing is checked here (see Graph::validate()).
  Launch(dim3 grid_dims, dim3 block_dims, unsigned int dynamic_shared_bytes = 0, int node_priority = 0)
      : grid(grid_dims), block(block_dims), shared_bytes(dynamic_shared_bytes), priority(node_priority) {}
};

namespace detail {
/// Throws the UsageError of cover() (defined in src/graph.cpp).
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
