// graphdsl/node_params.hpp — the parameters of a node as its plan holds them, read back by Graph's
// getters (Graph::memset_of, memcpy_of, allocation_of; graphdsl/graph.hpp).
//
//   gd::MemsetParams p = g.memset_of(fill);   // p.width, p.value, ...: what add_memset recorded
//
// Plain values copied out of the plan: they make no CUDA call and stay valid after the plan changes.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "graphdsl/buffer.hpp"

namespace graphdsl {

/// A memset node's parameters (Graph::memset_of): the fields of cudaMemsetParams, and the graph
/// buffer the node sets, if any.
struct MemsetParams {
  void* dst = nullptr;            ///< the destination; null when the node sets a graph buffer (see `buffer`)
  std::uint64_t buffer = 0;       ///< GraphBuffer::id() of the buffer the node sets; 0 for a raw pointer
  std::size_t buffer_offset = 0;  ///< where in `buffer`'s allocation the node starts, in bytes (a slice's offset)
  unsigned int value = 0;         ///< the value's bit pattern (a float 1.0f is 0x3f800000)
  unsigned int element_size = 0;  ///< bytes per element: 1, 2 or 4
  std::size_t width = 0;          ///< elements per row
  std::size_t height = 0;         ///< rows (1 for a 1-D memset)
  std::size_t pitch = 0;          ///< bytes from one row to the next (2-D memsets; 0 or unused for 1-D)
};

/// A memcpy node's parameters (Graph::memcpy_of): its endpoints, size and kind, and the whole
/// cudaMemcpy3DParms it was recorded as (pitches, CUDA arrays, positions, extent).
struct MemcpyParams {
  void* dst = nullptr;                      ///< full.dstPtr.ptr: null for a CUDA array or a graph buffer (`dst_buffer`)
  const void* src = nullptr;                ///< full.srcPtr.ptr: null for a CUDA array or a graph buffer (`src_buffer`)
  std::size_t bytes = 0;                    ///< bytes copied: extent width x height x depth
  cudaMemcpyKind kind = cudaMemcpyDefault;  ///< the direction as given (cudaMemcpyDefault: inferred by CUDA)
  std::uint64_t dst_buffer = 0;             ///< GraphBuffer::id() of the buffer copied into; 0 for none
  std::uint64_t src_buffer = 0;             ///< GraphBuffer::id() of the buffer copied from; 0 for none
  std::size_t dst_offset = 0;               ///< where in `dst_buffer`'s allocation the copy starts, in bytes
  std::size_t src_offset = 0;               ///< where in `src_buffer`'s allocation the copy starts, in bytes
  /// The record as a whole. A copy to or from a `__device__` symbol holds the symbol's host-side
  /// address plus the offset (compiling puts the device address there); a pointer parameter's
  /// endpoint holds the parameter's current value; a graph buffer's endpoint its byte offset.
  cudaMemcpy3DParms full{};
};

/// A mem_alloc node's parameters (Graph::allocation_of).
struct AllocationParams {
  std::size_t bytes = 0;     ///< bytes allocated
  MemAllocOptions options;   ///< device and peer access, as given to add_mem_alloc
  std::uint64_t buffer = 0;  ///< GraphBuffer::id() of the buffer it allocates
};

}  // namespace graphdsl
