// graphdsl/mem_ops.hpp — the parameters of memory-operations nodes (MemOp: writes, waits and
// barriers on device-visible memory) and of external-semaphore nodes (SemaphoreSignal,
// SemaphoreWait), with their typed handles. Graph::add_mem_ops, add_semaphore_signal and
// add_semaphore_wait (graphdsl/graph.hpp) take them.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "graphdsl/node.hpp"

namespace graphdsl {

/// One operation of a memory-operations node (Graph::add_mem_ops): CUDA's batch memory operations
/// (cuStreamBatchMemOp), in a graph. A write stores a 32- or 64-bit value; a wait holds the node's
/// successors until the word at its address satisfies a comparison with its value; a barrier
/// orders the memory accesses around it. Addresses are device memory, or host memory mapped into
/// the device (cudaHostAlloc with cudaHostAllocMapped, cudaHostRegister), 4-byte aligned for 32
/// bits and 8-byte aligned for 64.
///
/// A wait that nothing satisfies never ends, and CUDA does not see what it waits for: the work that
/// writes the awaited value must not depend on the wait's successors, and should reach it through
/// an edge or another stream or process (docs/node-kinds.md, "Memory operations").
struct MemOp {
  /// What the operation does.
  enum class Type : std::uint8_t {
    write32,  ///< CU_STREAM_MEM_OP_WRITE_VALUE_32
    write64,  ///< CU_STREAM_MEM_OP_WRITE_VALUE_64
    wait32,   ///< CU_STREAM_MEM_OP_WAIT_VALUE_32
    wait64,   ///< CU_STREAM_MEM_OP_WAIT_VALUE_64
    barrier   ///< CU_STREAM_MEM_OP_BARRIER
  };
  /// How a wait compares the word at its address with its value (CUstreamWaitValue_flags).
  enum class Until : std::uint8_t {
    at_least,  ///< (signed)(*address - value) >= 0: a cyclic comparison that ignores wrap-around
    equal,     ///< *address == value
    any_of,    ///< (*address & value) != 0
    nor        ///< ~(*address | value) != 0 (where the device supports it)
  };
  /// What a barrier orders (CUstreamMemoryBarrier_flags).
  enum class Scope : std::uint8_t {
    gpu,    ///< accesses of this GPU
    system  ///< accesses of the whole system
  };

  Type type = Type::barrier;      ///< the operation
  Until until = Until::at_least;  ///< a wait's comparison
  Scope scope = Scope::gpu;       ///< a barrier's scope
  std::uint64_t address = 0;      ///< the word written or awaited (as an integer; 0 for a barrier)
  std::uint64_t value = 0;        ///< the value written or compared with

  /// Writes `value` to `*address`.
  static MemOp write(std::uint32_t* address, std::uint32_t value) noexcept {
    return {Type::write32, Until::at_least, Scope::gpu, reinterpret_cast<std::uintptr_t>(address), value};
  }
  /// Writes the 64-bit `value` to `*address`.
  static MemOp write(std::uint64_t* address, std::uint64_t value) noexcept {
    return {Type::write64, Until::at_least, Scope::gpu, reinterpret_cast<std::uintptr_t>(address), value};
  }
  /// Waits until `*address` compares with `value` as `until` says.
  static MemOp wait(const std::uint32_t* address, std::uint32_t value, Until until = Until::at_least) noexcept {
    return {Type::wait32, until, Scope::gpu, reinterpret_cast<std::uintptr_t>(address), value};
  }
  /// Waits until the 64-bit `*address` compares with `value` as `until` says.
  static MemOp wait(const std::uint64_t* address, std::uint64_t value, Until until = Until::at_least) noexcept {
    return {Type::wait64, until, Scope::gpu, reinterpret_cast<std::uintptr_t>(address), value};
  }
  /// A memory barrier of `scope`.
  static MemOp barrier(Scope scope = Scope::gpu) noexcept { return {Type::barrier, Until::at_least, scope, 0, 0}; }
};

/// A memory-operations node (add_mem_ops).
GRAPHDSL_DETAIL_HANDLE(MemOpNode, mem_op);

/// One external semaphore a semaphore-signal node signals (Graph::add_semaphore_signal; CUDA's
/// cudaExternalSemaphoreSignalParams). The semaphore comes from cudaImportExternalSemaphore (a
/// Vulkan, Direct3D, NvSciSync or OS object shared with CUDA); the caller keeps it alive (and
/// does not destroy it) while plans and executables that use it exist, as with raw pointers.
struct SemaphoreSignal {
  cudaExternalSemaphore_t semaphore = nullptr;  ///< the imported semaphore
  unsigned long long value = 0;  ///< the fence value to signal (timeline semaphores, fences); 0 for binary ones
  unsigned long long key = 0;    ///< the key to release (keyed mutexes); else 0
};

/// One external semaphore a semaphore-wait node waits on (Graph::add_semaphore_wait; CUDA's
/// cudaExternalSemaphoreWaitParams). Lifetime: as SemaphoreSignal.
struct SemaphoreWait {
  cudaExternalSemaphore_t semaphore = nullptr;  ///< the imported semaphore
  unsigned long long value = 0;  ///< the fence value to wait for (timeline semaphores, fences); 0 for binary ones
  unsigned long long key = 0;    ///< the key to acquire (keyed mutexes); else 0
  unsigned int timeout_ms = 0;   ///< how long to wait for a keyed mutex, in milliseconds; else 0
};

/// A node that signals external semaphores (add_semaphore_signal).
GRAPHDSL_DETAIL_HANDLE(SemaphoreSignalNode, semaphore_signal);
/// A node that waits on external semaphores (add_semaphore_wait).
GRAPHDSL_DETAIL_HANDLE(SemaphoreWaitNode, semaphore_wait);

}  // namespace graphdsl
