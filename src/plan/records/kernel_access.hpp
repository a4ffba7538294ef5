// plan/records/kernel_access.hpp — a plan's kernel records as every layer reads them: the record of a
// kernel node, its argument layout and block, its placeholder arguments and its launch (the shape
// in KernelData, the attributes of the few kernels that have any in the kernel_attributes store;
// launch_of() and store_launch() put the two together, plan/records/kernel.cpp). No CUDA call.
//
// Included at the end of plan/graph_impl.hpp; the record types are in plan/records/kernel.hpp.
#pragma once

#include <string>
#include <vector>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <cuda_runtime_api.h>

#include "graphdsl/detail/function_ref.hpp"
#include "graphdsl/launch.hpp"
#include "plan/graph_impl.hpp"
#include "plan/records/kernel.hpp"

namespace graphdsl::detail {

/// The index of kernel node i's record: what launch_of, attributes_of and device_updatable take.
inline std::uint32_t kernel_index(const GraphImpl& g, std::uint32_t i) noexcept { return g.nodes[i].payload; }
/// The record of kernel node i (function, launch shape, where its arguments are).
inline const KernelData& kernel_of(const GraphImpl& g, std::uint32_t i) noexcept {
  return g.kernels[kernel_index(g, i)];
}
inline KernelData& kernel_of(GraphImpl& g, std::uint32_t i) noexcept { return g.kernels[kernel_index(g, i)]; }
/// The record of kernel `kernel` (an index into the plan's kernels, as kernel_index gives it).
inline const KernelData& kernel_record(const GraphImpl& g, std::uint32_t kernel) noexcept { return g.kernels[kernel]; }
/// The argument layout and placeholder arguments of kernel `kernel` (an index into the plan's
/// kernels, as kernel_index gives it).
inline const KernelLinks& kernel_links_of(const GraphImpl& g, std::uint32_t kernel) noexcept {
  return g.kernel_links[kernel];
}
/// The argument layout of kernel `kernel` (an index, as kernel_index gives it): the ArgLayoutOf of
/// its function's signature.
inline const ArgLayout& kernel_layout(const GraphImpl& g, std::uint32_t kernel) noexcept {
  return *g.kernel_links[kernel].layout;
}
/// The parameters of kernel node i that a declared range may name (RaceOps::declared_params of the
/// kernel kind): its layout's count.
inline std::uint32_t kernel_parameter_count(const GraphImpl& g, std::uint32_t i) noexcept {
  const ArgLayout* layout = g.kernel_links[kernel_index(g, i)].layout;
  return layout != nullptr ? layout->count : 0;
}
/// The packed argument block of kernel `k` (a record of g): its layout's `total` bytes.
inline const unsigned char* argument_block(const GraphImpl& g, const KernelData& k) noexcept {
  return g.args.data() + k.args;
}
inline unsigned char* argument_block(GraphImpl& g, const KernelData& k) noexcept { return g.args.data() + k.args; }
/// The argument block at `offset` in g's arena (a KernelData::args kept elsewhere: the executable's
/// setter records).
inline unsigned char* argument_block_at(GraphImpl& g, std::uint64_t offset) noexcept { return g.args.data() + offset; }
/// Whether a kernel of `g` has launch attributes (attributes_of is null for every kernel when not).
inline bool has_launch_attributes(const GraphImpl& g) noexcept { return !g.kernel_attributes.empty(); }
/// Whether a kernel of the plan takes a Condition or GraphBuffer argument.
inline bool has_placeholders(const GraphImpl& g) noexcept { return !g.placeholders.empty(); }

/// Placeholder argument c (< l.ph_count) of the kernel whose links are `l` (of g): a Condition or a
/// GraphBuffer.
inline const KernelPlaceholder& kernel_placeholder(const GraphImpl& g, const KernelLinks& l, std::uint32_t c) noexcept {
  return g.placeholders[l.ph_first + c];
}

/// The byte offset within its allocation of GraphBuffer argument `ph` of kernel `k` (of g): the
/// value its argument block holds there (a slice's offset; 0 for a whole buffer).
inline std::uint64_t placeholder_offset(const GraphImpl& g, const KernelData& k, const KernelPlaceholder& ph) noexcept {
  std::uint64_t at = 0;
  std::memcpy(&at, argument_block(g, k) + ph.offset, sizeof at);
  return at;
}

/// Whether a launch shape keeps the kernel rules that depend on the shape alone: no zero dimension,
/// at most 1,024 threads per block, and CUDA's per-dimension limits of grid and block (the same on
/// every device graphdsl supports). The kernel rules (src/kinds/kernel.cpp) say which one a shape
/// breaks; the kernel setters' short path takes only shapes this allows.
inline bool launch_shape_allowed(const dim3& grid, const dim3& block) noexcept {
  const bool nonzero = grid.x != 0 && grid.y != 0 && grid.z != 0 && block.x != 0 && block.y != 0 && block.z != 0;
  const bool limits = grid.x <= 2147483647u && grid.y <= 65535u && grid.z <= 65535u && block.x <= 1024u &&
                      block.y <= 1024u && block.z <= 64u;
  // Each block dimension is at most 1,024 here, so the product cannot wrap.
  return nonzero && limits && std::uint64_t{block.x} * block.y * block.z <= 1024u;
}

/// The launch attributes of kernel `kernel` (an index into g.kernels), or nullptr when it has none.
const KernelAttributes* attributes_of(const GraphImpl& g, std::uint32_t kernel) noexcept;
/// The whole Launch of kernel `kernel`: its shape and its attributes.
Launch launch_of(const GraphImpl& g, std::uint32_t kernel);
/// Stores `l` as kernel `kernel`'s launch: the shape in the record, the attributes aside.
void store_launch(GraphImpl& g, std::uint32_t kernel, const Launch& l);
/// Whether kernel `kernel` (an index into g.kernels) is device-updatable.
bool device_updatable(const GraphImpl& g, std::uint32_t kernel) noexcept;
/// The first node of `g` (top level only) that is a device-updatable kernel node, or
/// ConditionRef::unresolved when there is none (O(1) for a plan without launch attributes). In
/// src/kinds/kernel_plan.cpp.
std::uint32_t first_device_updatable(const GraphImpl& g) noexcept;

/// The argument pointers of a block packed at `block` by `layout`, written to `argv` (room for the
/// layout's count); returns what kernelParams takes: `argv`, or null for a kernel without parameters.
inline void** kernel_argv(const ArgLayout& layout, const unsigned char* block, void** argv) noexcept {
  for (std::uint32_t a = 0; a < layout.count; ++a) argv[a] = const_cast<unsigned char*>(block + layout.offsets[a]);
  return layout.count == 0 ? nullptr : argv;
}

/// The launch of kernel `k` with its arguments packed at `block` by `layout` (the kernel's:
/// KernelLinks::layout); `argv` (room for the kernel's parameter count) receives the address of each
/// argument.
inline cudaKernelNodeParams kernel_node_params(const KernelData& k, const ArgLayout& layout, const unsigned char* block,
                                               void** argv) {
  cudaKernelNodeParams p{};
  p.kernelParams = kernel_argv(layout, block, argv);
  p.func = const_cast<void*>(k.func);
  p.gridDim = k.launch.grid;
  p.blockDim = k.launch.block;
  p.sharedMemBytes = k.launch.shared_bytes;
  return p;
}

/// Reserves room for `n` kernels (Graph::reserve).
inline void reserve_kernels(GraphImpl& g, std::size_t n) {
  g.kernels.reserve(n);
  g.kernel_links.reserve(n);
}

/// Whether the kernels of `a` and `t` (plans of one shape) keep their arguments and placeholder
/// arguments at the same places (plan/recorded_update.cpp, lines_up).
inline bool kernel_storage_lines_up(const GraphImpl& a, const GraphImpl& t) noexcept {
  for (std::size_t k = 0; k < a.kernels.size(); ++k) {
    if (a.kernels[k].args != t.kernels[k].args || a.kernel_links[k].ph_first != t.kernel_links[k].ph_first ||
        a.kernel_links[k].ph_count != t.kernel_links[k].ph_count) {
      return false;
    }
  }
  return true;
}

/// The first field of kernel node i that differs between plans a and t, in the user's terms
/// ("grid (2,1,1) -> (4,1,1)", "argument 1 (8 bytes): 0x... -> 0x..."): DescribeOps::change of the
/// kernel kind (graphdsl::explain). In plan/records/kernel_changes.cpp.
std::string kernel_change(const GraphImpl& a, const GraphImpl& t, std::uint32_t i);

/// Kernel node i's argument block with argument `index` replaced by the `bytes` bytes at `value`
/// (Executable::set_kernel_arg); `layout` is set to the block's layout.
/// @throws UsageError naming the node for an index past its parameters or a value of another size.
std::vector<unsigned char> arguments_with(const GraphImpl& g, std::uint32_t i, unsigned int index, const void* value,
                                          std::size_t bytes, const ArgLayout*& layout);

/// Calls f(bytes) with the slice length of each Condition or GraphBuffer argument of node i of g,
/// when it is a kernel (recorded_update.cpp: the lengths an update carries over). In
/// src/kinds/kernel_plan.cpp.
void each_placeholder_bytes(const GraphImpl& g, std::uint32_t i, FunctionRef<void(const std::uint64_t&)> f);
/// The same, each length by reference, to set.
void each_placeholder_bytes(GraphImpl& g, std::uint32_t i, FunctionRef<void(std::uint64_t&)> f);

/// What swap_kernel changed in a plan, for undo_kernel_swap: kernel node i's record and layout,
/// its argument block, and the plan's argument arena as they were.
struct KernelSwap {
  std::uint32_t node = 0;
  KernelData kernel;
  const ArgLayout* layout = nullptr;
  std::vector<unsigned char> block;  ///< the old argument block (the new one may be written over it)
  std::size_t arena = 0;             ///< GraphImpl::args' size before
  std::uint64_t unused = 0;          ///< GraphImpl::unused_args before
};

/// Kernel node i of g (an executable's recorded plan; no Condition or GraphBuffer argument) takes
/// function `func`, the argument block at `block` laid out by `layout` (the new function's own, which
/// may differ from the node's) and the grid, block and dynamic shared memory of `shape`; its priority
/// and launch attributes stay. The block goes where the old one was when it fits or ends the arena,
/// else at the arena's end (the old one then counts in GraphImpl::unused_args). O(the two blocks).
/// Strong guarantee: on std::bad_alloc, g is unchanged. In plan/records/kernel_swap.cpp.
KernelSwap swap_kernel(GraphImpl& g, std::uint32_t i, const void* func, const ArgLayout& layout,
                       const unsigned char* block, const LaunchShape& shape);
/// Puts back what swap_kernel `s` changed (the last change made to g's kernel records).
void undo_kernel_swap(GraphImpl& g, const KernelSwap& s) noexcept;
/// Packs g's argument blocks again, in kernel order, when more than half of the arena is unused
/// (GraphImpl::unused_args): O(arena) then, so that swaps cost O(their blocks) amortized and the
/// arena stays at most twice the blocks in use. Keeps g as it is when memory is short.
void tidy_arguments(GraphImpl& g) noexcept;
/// The first parameter entry of g (an index into g.params) that node i uses, or
/// ConditionRef::unresolved; O(the plan's parameter uses), nothing read for a plan without parameters.
std::uint32_t parameter_of_node(const GraphImpl& g, std::uint32_t i) noexcept;

/// The position (from 0) of the argument at byte `offset` of blocks laid out by `l` (the last one
/// when none starts there).
inline std::uint32_t argument_at(const ArgLayout& l, std::uint32_t offset) noexcept {
  std::uint32_t arg = 0;
  while (arg + 1 < l.count && l.offsets[arg] != offset) ++arg;
  return arg;
}

/// Calls f(ref, uid) with the reference (by reference when G is not const) and the id of every
/// GraphBuffer argument of the kernels of g: {levels, mem_alloc node} or unresolved
/// (plan/nested_buffers.hpp).
template <class G, class F>
void each_buffer_argument(G& g, F&& f) {
  for (auto& ph : g.placeholders) {
    if (ph.kind == PlaceholderKind::buffer) f(ph.ref, ph.uid);
  }
}

/// Calls f(ref) with the reference of every Condition argument of the kernels of g.
template <class F>
void each_condition_argument(const GraphImpl& g, F&& f) {
  for (const KernelPlaceholder& ph : g.placeholders) {
    if (ph.kind == PlaceholderKind::condition) f(ph.ref);
  }
}

/// Calls f(node, ref, uid, position, offset, bytes) for each GraphBuffer argument of each kernel node
/// of g, in node order: the node, the argument's reference, id, position (from 0), byte offset in
/// its allocation and length (a slice's). In src/kinds/kernel_plan.cpp.
void each_kernel_buffer_argument(
    const GraphImpl& g,
    FunctionRef<void(std::uint32_t, ConditionRef, std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t)> f);

/// Whether node k of plan `p` is a kernel with graph buffer `uid` as an argument (Graph::remove_node
/// of its mem_alloc node). In src/kinds/kernel_plan.cpp.
bool kernel_uses_buffer(const GraphImpl& p, std::uint32_t k, std::uint64_t uid);

namespace rule {
struct ScopedNode;  // plan/rule_kit.hpp
/// The kernel kind's RuleOps::check_scoped: a device-updatable kernel only in a top-level plan, its
/// Condition arguments declared where they point. In src/kinds/kernel_plan.cpp.
void check_kernel_scoped(const ScopedNode& node);
/// The kernel kind's RuleOps::check_replacement: the setter's argument layout is the node's, and its
/// Condition and GraphBuffer arguments stand where and for what the node's do.
void check_kernel_replacement(const GraphImpl& a, std::uint32_t i, const GraphImpl& s);
}  // namespace rule

/// Copies the slice lengths of t's kernel placeholder arguments into img, a plan of t's shape
/// (kernel k of one is kernel k of the other). In plan/records/kernel_changes.cpp.
void take_placeholder_bytes(GraphImpl& img, const GraphImpl& t) noexcept;

}  // namespace graphdsl::detail
