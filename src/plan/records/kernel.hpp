// plan/records/kernel.hpp — the records of kernel nodes.
//
// Plain data with no CUDA call: the one place any layer reads these records (plan/records/stores.def
// lists the plan's stores of them).
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/detail/kernel_args.hpp"
#include "graphdsl/detail/plan_types.hpp"
#include "graphdsl/launch.hpp"
#include "plan/records/plan.hpp"

namespace graphdsl::detail {

/// What a kernel record keeps of its Launch: grid, block, dynamic shared memory and priority (32
/// bytes, so that KernelData stays 48). The launch attributes (cluster, cooperative, sync domain, L2
/// window), which few kernels have, live in GraphImpl::kernel_attributes: launch_of() and
/// store_launch() put the two together.
struct LaunchShape {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned int shared_bytes = 0;
  int priority = 0;
};

/// A kernel node's record (48 bytes): what the diff of Executable::update compares for every kernel
/// of both plans, with one memcmp per block of nodes (src/kinds/kernel_diff.cpp): the function, the launch
/// shape and where its arguments are. The rest of a kernel is in its KernelLinks.
struct KernelData {
  const void* func = nullptr;
  LaunchShape launch;
  std::uint64_t args = 0;  ///< offset of the packed argument block in GraphImpl::args (64-bit: the
                           ///< arena may pass 4 GiB)
};

/// What a kernel has besides its KernelData (16 bytes; GraphImpl::kernel_links, same index as
/// GraphImpl::kernels, so a kernel costs 64 bytes in all): its argument layout, which its function
/// determines (the ArgLayoutOf of the kernel's own signature, or a setter's that packs the same way:
/// kernels of one function pack their arguments alike, so the diff need not compare layouts), and
/// its placeholder arguments, which the diff reads only when a plan has placeholders.
struct KernelLinks {
  const ArgLayout* layout = nullptr;
  std::uint32_t ph_first = 0;  ///< first entry in GraphImpl::placeholders
  std::uint32_t ph_count = 0;  ///< placeholder arguments (conditions, graph buffers) of this kernel
};

/// The launch attributes of one kernel (its index in GraphImpl::kernels).
struct KernelAttributes {
  std::uint32_t kernel = 0;
  dim3 cluster{0, 0, 0};
  bool cooperative = false;
  MemSyncDomain sync_domain = MemSyncDomain::default_domain;
  L2Window l2{};
  bool device_updatable = false;
};

/// A placeholder argument of a kernel: where its value goes in the argument block. For a
/// Condition, `ref` locates the condition; for a GraphBuffer, `ref.index` is the plan index of the
/// mem_alloc node (levels 0), or `ref.levels` is unresolved; the block holds the byte offset of the
/// buffer (a slice) within the allocation, to which compiling adds the allocation's address.
struct KernelPlaceholder {
  std::uint32_t offset;  ///< byte offset within the kernel's argument block
  PlaceholderKind kind;
  ConditionRef ref;
  std::uint64_t uid = 0;  ///< Condition::id() or GraphBuffer::id() (to resolve it in another plan)
  /// A GraphBuffer's bytes (a slice's own; its byte offset is the argument block's value there)
  std::uint64_t bytes = 0;
};

/// A kernel node's parameters as SavedParams (plan/diff.hpp) keeps them, to move them between plans
/// or roll a change back (CompareOps::save / restore of the kernel kind).
struct SavedKernel {
  KernelData kernel;
  const ArgLayout* layout = nullptr;  ///< the kernel's (KernelLinks::layout; its placeholders stay the plan's own)
  Launch launch;                      ///< the kernel's whole launch (its attributes are not in the record)
  std::vector<unsigned char> args;    ///< its argument block
};

}  // namespace graphdsl::detail
