// src/exec/copy_check.cpp — checked copies (InstantiateOptions::check_copies): a memcpy node whose
// end was device memory when compiled is not pointed at pageable host memory by a per-node change.
//
// Probed on an H100 (driver 580): a cudaMemcpyDefault node created between device buffers and then
// given a pageable host pointer by cudaGraphExecMemcpyNodeSetParams (or the driver's setter) is
// accepted, and the next launch faults with cudaErrorIllegalAddress. A node created with a host end
// takes another host pointer without harm. The check costs a pointer query per changed end, so it
// is asked for (docs/reliability.md).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "exec/kind_patch.hpp"
#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl::detail {
namespace {

/// The memory type of `ptr` as CUDA reports it (cudaMemoryTypeUnregistered for pageable host memory
/// or a pointer CUDA does not know; the query's failure counts as that too).
cudaMemoryType memory_type_of(const void* ptr) noexcept {
  cudaPointerAttributes a{};
  if (cuda_try(cudaPointerGetAttributes, &a, ptr) != cudaSuccess) return cudaMemoryTypeUnregistered;
  return a.type;
}

bool is_device_memory(const void* ptr) noexcept {
  const cudaMemoryType t = memory_type_of(ptr);
  return t == cudaMemoryTypeDevice || t == cudaMemoryTypeManaged;
}

/// Whether a copy end (a CUDA array, or a pointer) is device memory.
bool device_end(cudaArray_const_t array, const void* ptr) noexcept {
  return array != nullptr || (ptr != nullptr && is_device_memory(ptr));
}

/// Whether a copy end is a pointer to pageable host memory.
bool pageable_end(cudaArray_const_t array, const void* ptr) noexcept {
  return array == nullptr && ptr != nullptr && memory_type_of(ptr) == cudaMemoryTypeUnregistered;
}

/// Bit 0: the source is device memory; bit 1: the destination.
std::uint8_t device_ends(const cudaMemcpy3DParms& p) noexcept {
  return static_cast<std::uint8_t>((device_end(p.srcArray, p.srcPtr.ptr) ? 1u : 0u) |
                                   (device_end(p.dstArray, p.dstPtr.ptr) ? 2u : 0u));
}

}  // namespace

bool copies_checked_by_environment() noexcept {
  // Read once per process: getenv scans the whole environment, a cost every instantiate() paid.
  static const bool checked = [] {
    const char* env = std::getenv("GRAPHDSL_CHECK_COPIES");
    return env != nullptr && env[0] != '\0' && std::strcmp(env, "0") != 0;
  }();
  return checked;
}

void record_copy_ends(ExecImpl& x) {
  x.check_copies = true;
  const GraphImpl& g = recorded_plan(x);
  for (std::uint32_t i = 0; i < node_count(g); ++i) {
    const auto copy = patch_ops(node_kind(g, i)).compiled_copy;  // null: the kind copies nothing
    cudaMemcpy3DParms p{};
    if (copy == nullptr || !copy(x, i, p)) continue;
    x.device_copy_ends.emplace_back(x.native.nodes[i], device_ends(p));
  }
  std::sort(x.device_copy_ends.begin(), x.device_copy_ends.end());
}

Applied set_memcpy_node(ExecImpl& x, cudaGraphNode_t node, const cudaMemcpy3DParms& p) {
  if (x.check_copies) {
    const auto it = std::lower_bound(x.device_copy_ends.begin(), x.device_copy_ends.end(),
                                     std::make_pair(node, std::uint8_t{0}));
    if (it != x.device_copy_ends.end() && it->first == node) {
      // Only the ends compiled as device memory are queried.
      if (((it->second & 1u) != 0 && pageable_end(p.srcArray, p.srcPtr.ptr)) ||
          ((it->second & 2u) != 0 && pageable_end(p.dstArray, p.dstPtr.ptr))) {
        return {cudaErrorInvalidValue,
                "checked copies (InstantiateOptions::check_copies): an end of this memcpy node was device memory "
                "when compiled and the change points it at pageable host memory, which CUDA accepts and the next "
                "launch faults on; use pinned host memory (cudaMallocHost, cudaHostRegister) or compile a new "
                "executable"};
      }
    }
  }
  return {exec_memcpy_set_params(x, node, p), "cudaGraphExecMemcpyNodeSetParams"};
}

}  // namespace graphdsl::detail
