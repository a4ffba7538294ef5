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

std::uint8_t device_ends(const cudaMemcpy3DParms& p) noexcept {
  std::uint8_t bits = 0;
  if (p.srcArray != nullptr || (p.srcPtr.ptr != nullptr && is_device_memory(p.srcPtr.ptr))) bits |= 1u;
  if (p.dstArray != nullptr || (p.dstPtr.ptr != nullptr && is_device_memory(p.dstPtr.ptr))) bits |= 2u;
  return bits;
}

}  // namespace

bool copies_checked_by_environment() noexcept {
  const char* env = std::getenv("GRAPHDSL_CHECK_COPIES");
  return env != nullptr && env[0] != '\0' && std::strcmp(env, "0") != 0;
}

void record_copy_ends(ExecImpl& x) {
  x.check_copies = true;
  const GraphImpl& g = x.plan.impl();
  for (std::uint32_t i = 0; i < node_count(g); ++i) {
    if (node_kind(g, i) != NodeKind::memcpy) continue;
    cudaMemcpy3DParms p{};
    if (memcpy_params(g, i, x.native.dptrs, p) != cudaSuccess) continue;  // compiling has reported it
    x.device_copy_ends.emplace_back(x.native.nodes[i], device_ends(p));
  }
  std::sort(x.device_copy_ends.begin(), x.device_copy_ends.end());
}

Applied set_memcpy_node(ExecImpl& x, cudaGraphNode_t node, const cudaMemcpy3DParms& p) {
  if (x.check_copies) {
    const auto it = std::lower_bound(x.device_copy_ends.begin(), x.device_copy_ends.end(),
                                     std::make_pair(node, std::uint8_t{0}));
    if (it != x.device_copy_ends.end() && it->first == node) {
      const bool src_host = p.srcArray == nullptr && p.srcPtr.ptr != nullptr &&
                            memory_type_of(p.srcPtr.ptr) == cudaMemoryTypeUnregistered;
      const bool dst_host = p.dstArray == nullptr && p.dstPtr.ptr != nullptr &&
                            memory_type_of(p.dstPtr.ptr) == cudaMemoryTypeUnregistered;
      if (((it->second & 1u) != 0 && src_host) || ((it->second & 2u) != 0 && dst_host)) {
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
