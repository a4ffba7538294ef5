// src/plan/node_params.hpp — the CUDA parameter structs of kernel, memset and memcpy nodes, built in one
// place for materialization (kernel_params), Graph::add_memset_raw / add_memcpy_2d and the
// executable's direct setters (update.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// A memset of `height` rows of `width` elements of `element_size` bytes, rows `pitch` bytes apart.
inline cudaMemsetParams memset_node_params(void* dst, unsigned int value, unsigned int element_size, std::size_t width,
                                           std::size_t height, std::size_t pitch) {
  cudaMemsetParams p{};
  p.dst = dst;
  p.value = value;
  p.elementSize = element_size;
  p.width = width;
  p.height = height;
  p.pitch = pitch;
  return p;
}

/// The memset value of a 1-, 2- or 4-byte element whose bytes are at `value` (as Graph::bit_pattern
/// reads a typed value): what a Parameter used as a memset value puts in cudaMemsetParams::value.
inline unsigned int memset_bits(const unsigned char* value, std::uint32_t size) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, value, size < sizeof bits ? size : sizeof bits);
  if (size == 1) bits &= 0xffu;
  if (size == 2) bits &= 0xffffu;
  return bits;
}

/// A copy of `height` rows of `width_bytes` bytes between pitched pointers.
inline cudaMemcpy3DParms memcpy_node_params(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                                            std::size_t width_bytes, std::size_t height, cudaMemcpyKind kind) {
  // Every field written once, the tail padding after `kind` zeroed with it (records are compared
  // bytewise): `p{}` zeroes the 160 bytes first, which GCC does with `rep stos`, tens of ns on the
  // setters' hot path.
  static_assert(sizeof(cudaMemcpy3DParms) == offsetof(cudaMemcpy3DParms, kind) + 8, "a padding-free layout");
  cudaMemcpy3DParms p;
  const std::uint64_t tail = 0;
  std::memcpy(reinterpret_cast<unsigned char*>(&p) + offsetof(cudaMemcpy3DParms, kind), &tail, sizeof tail);
  p.srcArray = nullptr;
  p.srcPos = cudaPos{0, 0, 0};
  p.srcPtr = cudaPitchedPtr{const_cast<void*>(src), src_pitch, width_bytes, height};
  p.dstArray = nullptr;
  p.dstPos = cudaPos{0, 0, 0};
  p.dstPtr = cudaPitchedPtr{dst, dst_pitch, width_bytes, height};
  p.extent = cudaExtent{width_bytes, height, 1};
  p.kind = kind;
  return p;
}

/// Where use `u` of a parameter keeps the parameter's bytes in plan `g` (a GraphImpl or a const
/// one: the result is as const as g): the kernel argument's bytes, or the memcpy endpoint's pointer
/// (a pointer parameter's bytes are the pointer's); null for a memset value, which is kept as the
/// memset's bit pattern (memset_bits).
template <class Plan>
auto param_bytes(Plan& g, const ParamUse& u) -> std::conditional_t<std::is_const_v<Plan>, const void*, void*> {
  const NodeData& n = g.nodes[u.node];
  switch (u.place) {
    case ParamPlace::kernel_argument: return argument_block(g, kernel_record(g, n.payload)) + u.offset;
    case ParamPlace::memcpy_dst: return &g.memcpys[n.payload].dstPtr.ptr;
    case ParamPlace::memcpy_src: return &g.memcpys[n.payload].srcPtr.ptr;
    case ParamPlace::memset_value: break;
  }
  return nullptr;
}

}  // namespace graphdsl::detail
