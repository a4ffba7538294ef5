// plan/records/mem_alloc.hpp — the records of graph allocations and of the memset / memcpy nodes that use them.
//
// Plain data with no CUDA call: the one place any layer reads these records (plan/records/stores.def
// lists the plan's stores of them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graphdsl/detail/plan_types.hpp"

namespace graphdsl::detail {

/// A graph allocation (add_mem_alloc). A plan's allocs are in node order, so their uids increase.
struct AllocData {
  std::uint64_t uid;  ///< GraphBuffer::id()
  std::size_t bytes;
  int device;  ///< -1: the current device when compiled
  std::vector<int> peers;
  std::uint32_t node = 0;  ///< the mem_alloc node
};

/// A memset or memcpy node using a graph buffer (GraphImpl::buffer_uses is in node order). The
/// node's record holds, in the pointer field the buffer stands for, the buffer's byte offset in the
/// allocation (a slice's; 0 for a whole buffer): a parameter of the node, which the diff compares.
/// The buffer may be allocated by this plan (levels 0) or, in a child plan or a conditional body, by
/// the plan `levels` levels out (the plan that is compiled: only a top-level plan allocates).
struct BufferUse {
  std::uint32_t node;  ///< the memset or memcpy node
  BufferField field;
  std::uint32_t alloc_node;  ///< the mem_alloc node (of the plan `levels` out), or ConditionRef::unresolved
  std::uint32_t levels = 0;  ///< 0: this plan allocates the buffer; k: the plan k levels out
  std::uint64_t uid = 0;     ///< GraphBuffer::id() (to resolve it in another plan)
  std::uint64_t bytes = 0;   ///< the buffer's bytes (GraphBuffer::bytes(): a slice's own)
};

}  // namespace graphdsl::detail
