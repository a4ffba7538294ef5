// plan/records/memcpy.hpp — the records of memcpy nodes beside their cudaMemcpy3DParms.
//
// Plain data with no CUDA call: the one place any layer reads these records (plan/records/stores.def
// lists the plan's stores of them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "graphdsl/detail/plan_types.hpp"

namespace graphdsl::detail {

/// A memcpy node made by add_memcpy_peer: a direct copy between two devices.
struct PeerCopy {
  std::uint32_t node;
  int src_device;
  int dst_device;
};

/// A memcpy node made by add_memcpy_to_symbol / add_memcpy_from_symbol: which of its pointers is a
/// `__device__` symbol. The memcpy record holds the symbol's own address (the host-side variable the
/// runtime API takes) plus `offset`; compiling replaces it with the symbol's device address plus
/// `offset` (cudaGetSymbolAddress).
struct SymbolUse {
  std::uint32_t node;
  BufferField field;         ///< memcpy_dst (a copy to the symbol) or memcpy_src (from it)
  const void* symbol;        ///< the symbol
  std::size_t offset;        ///< bytes into the symbol where the copy starts
  std::size_t symbol_bytes;  ///< the symbol's size
};

}  // namespace graphdsl::detail
